package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestHTTPMatrix replays the stdio cancellation rules over Streamable HTTP
// against the examples/http-server binary, per era, with a raw net/http
// client that reads every byte of every response. Each handler's progress
// is read from the server's --log-format json records ("sleep started",
// "sleep finished", "sleep interrupted" carry the sleep's ms, which each
// subtest makes unique; "cancellation" records carry the reason), so no
// subtest waits on a clock.
//
// Legacy (2025-03-26, 2025-11-25): a notifications/cancelled POST cancels
// its session's request and no response follows; a disconnect is not a
// cancellation; a cancellation from another session is ignored; unknown,
// completed and malformed cancellations are ignored and logged; "7" and 7
// are different requests. Modern (2026-07-28): closing the response stream
// is the cancellation and the server sends no notification; a stray
// notifications/cancelled is ignored harmlessly; a version in _meta that
// contradicts the header is refused with 400.
func TestHTTPMatrix(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	dir := buildHTTPExamples(t, "http-server")
	url, records := startHTTPServer(t, filepath.Join(dir, "http-server"))
	m := &matrix{t: t, url: url, records: records}
	for _, v := range []string{"2025-03-26", "2025-11-25"} {
		t.Run("legacy "+v, func(t *testing.T) { m.legacy(t, v) })
	}
	t.Run("modern 2026-07-28", m.modern)
	items, _, _ := records.snapshot()
	for _, r := range items {
		if r["msg"] == "cancellation" && r["event"] == "sent" {
			t.Errorf("the server sent a notifications/cancelled: %v", r)
		}
	}
}

type matrix struct {
	t       *testing.T
	url     string
	records *watch[map[string]any]
	ms      atomic.Int64 // unique sleep durations name the handlers in the records
}

// uniqueMs returns a sleep duration no other request of the run uses, at
// least base.
func (m *matrix) uniqueMs(base int64) int64 { return base + m.ms.Add(1) }

// exchange is one POST: its status, headers and the JSON-RPC messages of
// its body (one JSON body, or the data of each SSE event) as they arrive.
// The POST runs in the background: a server may send no header before the
// handler's first message, so waiting for them would block the test.
type exchange struct {
	ready  chan struct{} // closed when status, header and err are set
	status int
	header http.Header
	err    error
	msgs   chan map[string]any // closed at the end of the body
	cancel context.CancelFunc  // closes the response stream
}

func (m *matrix) post(t *testing.T, hdr map[string]string, body string) *exchange {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, m.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	x := &exchange{ready: make(chan struct{}), msgs: make(chan map[string]any, 64), cancel: cancel}
	go func() {
		defer close(x.msgs)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			x.err = err
			close(x.ready)
			return
		}
		x.status, x.header = resp.StatusCode, resp.Header
		close(x.ready)
		defer resp.Body.Close()
		emit := func(b []byte) {
			var v map[string]any
			if json.Unmarshal(b, &v) == nil {
				x.msgs <- v
			} else if len(strings.TrimSpace(string(b))) > 0 {
				x.msgs <- map[string]any{"unparsed": string(b)}
			}
		}
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
			b, _ := io.ReadAll(resp.Body)
			emit(b)
			return
		}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
				emit([]byte(strings.TrimSpace(d)))
			}
		}
	}()
	t.Cleanup(func() {
		cancel()
		for range x.msgs { // the reader ends before the test does (goleak)
		}
	})
	return x
}

// wait returns once the response's status and headers are in.
func (x *exchange) wait(t *testing.T, what string) *exchange {
	t.Helper()
	select {
	case <-x.ready:
	case <-time.After(15 * time.Second):
		t.Fatalf("%s: no response headers", what)
	}
	if x.err != nil {
		t.Fatalf("%s: %v", what, x.err)
	}
	return x
}

// rest reads the exchange to its end and returns its messages.
func (x *exchange) rest(t *testing.T, what string) []map[string]any {
	t.Helper()
	var out []map[string]any
	timeout := time.After(15 * time.Second)
	for {
		select {
		case v, ok := <-x.msgs:
			if !ok {
				return out
			}
			out = append(out, v)
		case <-timeout:
			t.Fatalf("%s: the response stream did not end (got %v)", what, out)
		}
	}
}

// responses are the JSON-RPC responses among msgs (id and result or error).
func responses(msgs []map[string]any) []map[string]any {
	var out []map[string]any
	for _, v := range msgs {
		_, res := v["result"]
		_, e := v["error"]
		if res || e {
			out = append(out, v)
		}
	}
	return out
}

func (m *matrix) waitRecord(t *testing.T, what string, pred func(map[string]any) bool) map[string]any {
	t.Helper()
	return m.records.waitFor(t, what, pred)
}

func (m *matrix) sleepRecord(t *testing.T, msg string, ms int64) map[string]any {
	t.Helper()
	return m.waitRecord(t, fmt.Sprintf("%q record of the %d ms sleep", msg, ms), func(r map[string]any) bool {
		v, _ := r["ms"].(float64)
		return r["msg"] == msg && int64(v) == ms
	})
}

func (m *matrix) cancelRecord(t *testing.T, event, reason string) map[string]any {
	t.Helper()
	return m.waitRecord(t, fmt.Sprintf("cancellation %s with reason %q", event, reason), func(r map[string]any) bool {
		return r["msg"] == "cancellation" && r["event"] == event && r["reason"] == reason
	})
}

// noSleepRecord fails if a record msg exists for the ms sleep.
func (m *matrix) noSleepRecord(t *testing.T, msg string, ms int64) {
	t.Helper()
	items, _, _ := m.records.snapshot()
	for _, r := range items {
		if v, _ := r["ms"].(float64); r["msg"] == msg && int64(v) == ms {
			t.Errorf("unexpected record %v", r)
		}
	}
}

func sleepBody(id string, ms int64, meta string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":%d}%s}}`, id, ms, meta)
}

func cancelBody(id, reason string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":%q}}`, id, reason)
}

// legacySession initializes a session of version v and returns its headers.
func (m *matrix) legacySession(t *testing.T, v string) map[string]string {
	t.Helper()
	x := m.post(t, nil, fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"e2e-http","version":"0"}}}`, v))
	res := responses(x.wait(t, "initialize").rest(t, "initialize"))
	sid := x.header.Get("Mcp-Session-Id")
	if x.status != 200 || len(res) != 1 || sid == "" || res[0]["result"].(map[string]any)["protocolVersion"] != v {
		t.Fatalf("initialize %s: status %d, session %q, %v", v, x.status, sid, res)
	}
	hdr := map[string]string{"Mcp-Session-Id": sid, "Mcp-Protocol-Version": v}
	if x := m.post(t, hdr, `{"jsonrpc":"2.0","method":"notifications/initialized"}`).wait(t, "initialized"); x.status != 202 {
		t.Fatalf("notifications/initialized: %d", x.status)
	}
	return hdr
}

func (m *matrix) legacy(t *testing.T, v string) {
	s := m.legacySession(t, v)
	notify := func(t *testing.T, hdr map[string]string, body string) {
		t.Helper()
		if x := m.post(t, hdr, body).wait(t, body); x.status != 202 {
			t.Fatalf("POST %s: %d, want 202", body, x.status)
		}
	}
	t.Run("cancel POST cancels, no response after", func(t *testing.T) {
		ms := m.uniqueMs(60000)
		x := m.post(t, s, sleepBody("10", ms, ""))
		m.sleepRecord(t, "sleep started", ms)
		reason := "matrix " + v + " cancel"
		notify(t, s, cancelBody("10", reason))
		rec := m.cancelRecord(t, "applied", reason)
		if rec["source"] != "peer notification" || rec["era"] != "legacy" {
			t.Errorf("record %v", rec)
		}
		if got := m.sleepRecord(t, "sleep interrupted", ms); got["reason"] != reason {
			t.Errorf("handler's cause %v, want reason %q", got, reason)
		}
		if res := responses(x.rest(t, "cancelled sleep")); len(res) != 0 {
			t.Errorf("responses after the cancel: %v", res)
		}
	})
	t.Run("disconnect is not a cancellation", func(t *testing.T) {
		ms := m.uniqueMs(400)
		x := m.post(t, s, sleepBody("11", ms, ""))
		m.sleepRecord(t, "sleep started", ms)
		x.cancel() // the client goes away mid-request
		m.sleepRecord(t, "sleep finished", ms)
		m.noSleepRecord(t, "sleep interrupted", ms)
	})
	t.Run("another session's cancellation is ignored", func(t *testing.T) {
		other := m.legacySession(t, v)
		ms := m.uniqueMs(60000)
		x := m.post(t, s, sleepBody("12", ms, ""))
		m.sleepRecord(t, "sleep started", ms)
		foreign := "matrix " + v + " foreign"
		notify(t, other, cancelBody("12", foreign))
		if rec := m.cancelRecord(t, "ignored", foreign); rec["why"] == nil {
			t.Errorf("ignored record without why: %v", rec)
		}
		own := "matrix " + v + " own"
		notify(t, s, cancelBody("12", own)) // still running: its own session's cancel applies
		m.cancelRecord(t, "applied", own)
		if got := m.sleepRecord(t, "sleep interrupted", ms); got["reason"] != own {
			t.Errorf("cancelled with %v, want reason %q", got["reason"], own)
		}
		x.rest(t, "sleep")
	})
	t.Run("unknown, completed and malformed cancellations are ignored", func(t *testing.T) {
		x := m.post(t, s, `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`)
		if res := responses(x.rest(t, "echo")); len(res) != 1 || res[0]["result"] == nil {
			t.Fatalf("echo: %v", res)
		}
		for _, c := range []struct{ name, body, reason string }{
			{"unknown", cancelBody("999", "matrix "+v+" unknown"), "matrix " + v + " unknown"},
			{"completed", cancelBody("13", "matrix "+v+" completed"), "matrix " + v + " completed"},
			{"malformed", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":{"x":1},"reason":"matrix ` + v + ` malformed"}}`, ""},
		} {
			notify(t, s, c.body)
			if c.reason != "" {
				m.cancelRecord(t, "ignored", c.reason)
				continue
			}
			m.waitRecord(t, "malformed cancellation ignored", func(r map[string]any) bool {
				why, _ := r["why"].(string)
				return r["msg"] == "cancellation" && r["event"] == "ignored" && strings.Contains(why, "malformed")
			})
		}
		// The session still works.
		x = m.post(t, s, `{"jsonrpc":"2.0","id":14,"method":"ping"}`)
		if res := responses(x.rest(t, "ping")); len(res) != 1 || res[0]["result"] == nil {
			t.Fatalf("ping after ignored cancellations: %v", res)
		}
	})
	t.Run(`"7" and 7 are different requests`, func(t *testing.T) {
		msNum, msStr := m.uniqueMs(60000), m.uniqueMs(60000)
		num := m.post(t, s, sleepBody("7", msNum, ""))
		m.sleepRecord(t, "sleep started", msNum)
		str := m.post(t, s, sleepBody(`"7"`, msStr, ""))
		m.sleepRecord(t, "sleep started", msStr)
		rNum, rStr := "matrix "+v+" number 7", "matrix "+v+" string 7"
		notify(t, s, cancelBody("7", rNum))
		if got := m.sleepRecord(t, "sleep interrupted", msNum); got["reason"] != rNum {
			t.Errorf("number 7 cancelled with %v", got["reason"])
		}
		m.noSleepRecord(t, "sleep interrupted", msStr)
		notify(t, s, cancelBody(`"7"`, rStr))
		if got := m.sleepRecord(t, "sleep interrupted", msStr); got["reason"] != rStr {
			t.Errorf(`"7" cancelled with %v`, got["reason"])
		}
		for _, x := range []*exchange{num, str} {
			if res := responses(x.rest(t, "sleep 7")); len(res) != 0 {
				t.Errorf("responses after the cancel: %v", res)
			}
		}
	})
}

const matrixModernMeta = `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"e2e-http","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}`

func modernHeaders(method, name string) map[string]string {
	h := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": method}
	if name != "" {
		h["Mcp-Name"] = name
	}
	return h
}

func (m *matrix) modern(t *testing.T) {
	t.Run("closing the stream cancels, nothing sent for it", func(t *testing.T) {
		ms := m.uniqueMs(60000)
		x := m.post(t, modernHeaders("tools/call", "sleep"), sleepBody("20", ms, matrixModernMeta))
		m.sleepRecord(t, "sleep started", ms)
		x.cancel()
		got := m.sleepRecord(t, "sleep interrupted", ms)
		if got["source"] != "stream closed" {
			t.Errorf("cause source %v, want \"stream closed\"", got["source"])
		}
		rec := m.waitRecord(t, "applied record of the closed stream", func(r map[string]any) bool {
			return r["msg"] == "cancellation" && r["event"] == "applied" && r["era"] == "modern" && r["source"] == "stream closed"
		})
		if rec["method"] != "tools/call" {
			t.Errorf("record %v", rec)
		}
	})
	t.Run("a stray notifications/cancelled is ignored", func(t *testing.T) {
		ms := m.uniqueMs(300)
		x := m.post(t, modernHeaders("tools/call", "sleep"), sleepBody("21", ms, matrixModernMeta))
		m.sleepRecord(t, "sleep started", ms)
		stray := m.post(t, modernHeaders("notifications/cancelled", ""), fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":21,"reason":"matrix stray"%s}}`, matrixModernMeta))
		if stray.wait(t, "stray cancellation").status >= 500 {
			t.Errorf("stray cancellation: %d", stray.status)
		}
		stray.rest(t, "stray cancellation")
		res := responses(x.rest(t, "sleep"))
		if len(res) != 1 || res[0]["result"] == nil {
			t.Fatalf("the request did not answer after a stray cancellation: %v", res)
		}
		m.noSleepRecord(t, "sleep interrupted", ms)
	})
	t.Run("_meta version contradicting the header is 400", func(t *testing.T) {
		meta := strings.Replace(matrixModernMeta, `"2026-07-28"`, `"2025-11-25"`, 1)
		x := m.post(t, modernHeaders("tools/call", "echo"), `{"jsonrpc":"2.0","id":22,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}`+meta+`}}`)
		res := responses(x.wait(t, "mismatch").rest(t, "mismatch"))
		if x.status != 400 || len(res) != 1 || res[0]["error"] == nil {
			t.Fatalf("mismatch: %d %v, want 400 with a JSON-RPC error", x.status, res)
		}
	})
}
