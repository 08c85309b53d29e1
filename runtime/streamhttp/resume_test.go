package streamhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

var errCut = errors.New("test: connection cut")

// tally counts what one request's stream delivered, over every
// connection it took.
type tally struct {
	progress map[int]int
	answers  int
	order    []int
}

func (ty *tally) add(t *testing.T, data []byte) {
	var m struct {
		Method string `json:"method"`
		Params struct {
			Progress int `json:"progress"`
		} `json:"params"`
		Result *struct {
			N int `json:"n"`
		} `json:"result"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Errorf("event is not JSON: %q", data)
		return
	}
	switch {
	case m.Method == "notifications/progress":
		ty.progress[m.Params.Progress]++
		ty.order = append(ty.order, m.Params.Progress)
	case m.Result != nil:
		ty.answers++
	}
}

// readCut reads a stream's events into ty, cutting the connection (ctx
// cancel) after cutAfter messages when cutAfter >= 0.
func readCut(t *testing.T, resp *http.Response, cancel context.CancelFunc, cur *sseCursor, ty *tally, cutAfter int) {
	n := 0
	err := readEventsResumable(resp.Body, 1<<20, cur, func(d []byte) error {
		ty.add(t, d)
		n++
		if cutAfter >= 0 && n >= cutAfter {
			return errCut
		}
		return nil
	})
	cancel() // closes the connection: the server sees the client gone
	resp.Body.Close()
	_ = err
}

// A connection cut mid-stream under load loses nothing and repeats
// nothing: many sessions run long streams at once, each cut at a random
// point (some twice, once in the resumed stream), and each client resumes
// with GET Last-Event-ID until its answer. Every progress notification and
// every answer arrives exactly once, in order.
func TestResumeCutMidStreamUnderLoad(t *testing.T) {
	f := newFixture(t, Options{SSEResponses: true})
	const sessions, perSession, n = 6, 4, 200
	// Its own client, so no dial of it outlives the test.
	tr := &http.Transport{}
	client := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()
	var wg sync.WaitGroup
	for range sessions {
		sid := f.initSession(t)
		for k := range perSession {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ty := &tally{progress: map[int]int{}}
				cur := &sseCursor{}
				ctx, cancel := context.WithCancel(context.Background())
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"burst","params":{"n":%d,"pad":256}}`, k+1, n)
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, f.url, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set(HeaderSessionID, sid)
				req.Header.Set(HeaderProtocolVersion, "2025-11-25")
				resp, err := client.Do(req)
				if err != nil {
					t.Error(err)
					cancel()
					return
				}
				readCut(t, resp, cancel, cur, ty, rand.IntN(n))
				cuts := 0
				for ty.answers == 0 {
					if cur.lastID == "" {
						t.Errorf("stream cut before any event id")
						return
					}
					if cur.retry != time.Second {
						t.Errorf("retry = %v, want 1s (the default)", cur.retry)
					}
					ctx, cancel := context.WithCancel(context.Background())
					get, _ := http.NewRequestWithContext(ctx, http.MethodGet, f.url, nil)
					get.Header.Set("Accept", "text/event-stream")
					get.Header.Set(HeaderSessionID, sid)
					get.Header.Set(HeaderProtocolVersion, "2025-11-25")
					get.Header.Set("Last-Event-ID", cur.lastID)
					resp, err := client.Do(get)
					if err != nil {
						t.Error(err)
						cancel()
						return
					}
					if resp.StatusCode != 200 {
						b, _ := io.ReadAll(resp.Body)
						t.Errorf("resume with %s: %d %s", cur.lastID, resp.StatusCode, b)
						cancel()
						resp.Body.Close()
						return
					}
					cut := -1
					if cuts == 0 && rand.IntN(2) == 0 {
						cut = 1 + rand.IntN(20)
					}
					cuts++
					readCut(t, resp, cancel, cur, ty, cut)
					if cuts > 10 {
						t.Errorf("no answer after %d resumptions", cuts)
						return
					}
				}
				for i := 1; i <= n; i++ {
					if ty.progress[i] != 1 {
						t.Errorf("progress %d delivered %d times", i, ty.progress[i])
						return
					}
				}
				for i, p := range ty.order {
					if p != i+1 {
						t.Errorf("progress out of order at %d: %d", i, p)
						return
					}
				}
				if ty.answers != 1 {
					t.Errorf("answer delivered %d times", ty.answers)
				}
			}()
		}
	}
	wg.Wait()
}

// The first event of a legacy SSE stream for a 2025-11-25 client is the
// priming event (an id, the retry field, empty data); every message event
// has an id. A modern stream has neither ids nor retry: 2026-07-28 has no
// resumption.
func TestPrimingEventAndModernHasNoIDs(t *testing.T) {
	f := newFixture(t, Options{SSEResponses: true, SSERetry: 250 * time.Millisecond})
	sid := f.initSession(t)
	resp := post(t, context.Background(), f.url, legacyHdr(sid), `{"jsonrpc":"2.0","id":1,"method":"progress"}`)
	body := readAll(t, resp)
	if !strings.HasPrefix(body, "id: ") || !strings.Contains(body, "_0\nretry: 250\ndata: \n\nevent: message\n") {
		t.Fatalf("legacy stream does not start with the priming event: %q", body)
	}
	if strings.Count(body, "\nid: ") != 2 {
		t.Errorf("want an id on each of the 2 messages: %q", body)
	}
	// A 2025-06-18 client gets ids and retry but no priming event (an empty
	// message would break it).
	hdr := legacyHdr(sid)
	hdr[HeaderProtocolVersion] = "2025-06-18"
	resp = post(t, context.Background(), f.url, hdr, `{"jsonrpc":"2.0","id":2,"method":"progress"}`)
	body = readAll(t, resp)
	if !strings.HasPrefix(body, "retry: 250\n\n") || strings.Contains(body, "data: \n") {
		t.Fatalf("2025-06-18 stream: %q", body)
	}
	resp = post(t, context.Background(), f.url, modernHdr("progress"), `{"jsonrpc":"2.0","id":3,"method":"progress","params":{`+modernMeta+`}}`)
	body = readAll(t, resp)
	if resp.StatusCode != 200 || !strings.Contains(body, `"done":"yes"`) {
		t.Fatalf("modern: %d %q", resp.StatusCode, body)
	}
	if strings.Contains(body, "id:") || strings.Contains(body, "retry:") {
		t.Fatalf("a modern stream pretends to be resumable: %q", body)
	}
}

// A Last-Event-ID the session does not hold gets 404 (the client learns its
// messages are gone), a malformed one 400; and an id of another session is
// unknown in this one.
func TestResumeUnknown(t *testing.T) {
	f := newFixture(t, Options{SSEResponses: true})
	sid := f.initSession(t)
	other := f.initSession(t)
	resp := post(t, context.Background(), f.url, legacyHdr(sid), `{"jsonrpc":"2.0","id":1,"method":"progress"}`)
	readAll(t, resp)
	for _, tc := range []struct {
		sid, last string
		want      int
	}{{sid, "99_1", 404}, {sid, "junk", 400}, {other, "2_0", 404}} {
		hdr := legacyHdr(tc.sid)
		hdr["Last-Event-ID"] = tc.last
		req, _ := http.NewRequest(http.MethodGet, f.url, nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		req.Header.Set("Accept", "text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if readAll(t, resp); resp.StatusCode != tc.want {
			t.Errorf("Last-Event-ID %s: %d, want %d", tc.last, resp.StatusCode, tc.want)
		}
	}
}

// cutSleep starts a legacy sleep (id) on an SSE stream and cuts its
// connection once the handler runs.
func cutSleep(t *testing.T, f *fixture, sid string, id int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	running := postAsync(ctx, f.url, legacyHdr(sid), fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"sleep"}`, id))
	waitFor(t, f.started, "sleep start")
	r := <-running // headers of the SSE stream (priming event sent)
	if r == nil {
		t.Fatal("no response")
	}
	cancel()
	r.Body.Close()
}

// An orphaned legacy handler (its client's connection gone, no resumption)
// is cancelled after OrphanGrace, with a cause that says why.
func TestOrphanGrace(t *testing.T) { eachAuthMode(t, testOrphanGrace) }

func testOrphanGrace(t *testing.T, newFixture fixtureFunc) {
	f := newFixture(t, Options{SSEResponses: true, OrphanGrace: 50 * time.Millisecond})
	sid := f.initSession(t)
	cutSleep(t, f, sid, 1)
	e := waitFor(t, f.ended, "orphan cancelled")
	var ce *jsonrpc2.CancelError
	if !errors.As(e.cause, &ce) || ce.Source != jsonrpc2.SourceLocal || !strings.Contains(ce.Reason, "orphan grace") {
		t.Fatalf("cause: %v", e.cause)
	}
	if n := f.h.Orphans(); n != 0 {
		t.Errorf("orphans after expiry: %d", n)
	}
}

// Over MaxOrphans, the oldest orphan is cancelled at once.
func TestMaxOrphans(t *testing.T) { eachAuthMode(t, testMaxOrphans) }

func testMaxOrphans(t *testing.T, newFixture fixtureFunc) {
	f := newFixture(t, Options{SSEResponses: true, MaxOrphans: 1})
	sid := f.initSession(t)
	cutSleep(t, f, sid, 1)
	f.waitLog(t, "request stream disconnected") // the server noticed the cut
	cutSleep(t, f, sid, 2)
	e := waitFor(t, f.ended, "oldest orphan cancelled")
	var ce *jsonrpc2.CancelError
	if e.id != "1" || !errors.As(e.cause, &ce) || !strings.Contains(ce.Reason, "MaxOrphans") {
		t.Fatalf("ended %s: %v", e.id, e.cause)
	}
	resp := post(t, context.Background(), f.url, legacyHdr(sid), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
	if readAll(t, resp); resp.StatusCode != 202 {
		t.Fatalf("cancel: %d", resp.StatusCode)
	}
	waitFor(t, f.ended, "sleep 2 end")
}

// A session that never sends notifications/initialized ends within
// HandshakeTimeout.
func TestHandshakeTimeout(t *testing.T) { eachAuthMode(t, testHandshakeTimeout) }

func testHandshakeTimeout(t *testing.T, newFixture fixtureFunc) {
	f := newFixture(t, Options{HandshakeTimeout: 50 * time.Millisecond})
	resp := post(t, context.Background(), f.url, nil, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`)
	readAll(t, resp)
	sid := resp.Header.Get(HeaderSessionID)
	conn := waitFor(t, f.conns, "conn")
	waitFor(t, conn.Done(), "handshake expiry")
	resp = post(t, context.Background(), f.url, legacyHdr(sid), `{"jsonrpc":"2.0","id":1,"method":"echo"}`)
	if readAll(t, resp); resp.StatusCode != 404 {
		t.Fatalf("expired session: %d", resp.StatusCode)
	}
	// A completed handshake is not expired.
	done := f.initSession(t)
	conn = waitFor(t, f.conns, "conn")
	resp = post(t, context.Background(), f.url, legacyHdr(done), `{"jsonrpc":"2.0","id":1,"method":"echo"}`)
	if readAll(t, resp); resp.StatusCode != 200 {
		t.Fatalf("initialized session: %d", resp.StatusCode)
	}
	select {
	case <-conn.Done():
		t.Fatal("initialized session ended")
	default:
	}
}

// At MaxSessions a session gives way: first one without a completed
// handshake, then the least recently active one with no request in flight,
// even if it holds a GET stream.
func TestSessionCapEvicts(t *testing.T) { eachAuthMode(t, testSessionCapEvicts) }

func testSessionCapEvicts(t *testing.T, newFixture fixtureFunc) {
	f := newFixture(t, Options{MaxSessions: 2, HandshakeTimeout: -1})
	a := f.initSession(t)
	b := f.initSession(t)
	// a holds a GET stream; b is used after it: a is the least recent.
	held := <-getAsync(f.url, a)
	if held == nil || held.StatusCode != 200 {
		t.Fatal("GET stream not opened")
	}
	resp := post(t, context.Background(), f.url, legacyHdr(b), `{"jsonrpc":"2.0","id":1,"method":"echo"}`)
	readAll(t, resp)
	c := f.initSession(t)
	if st := echoStatus(t, f, a); st != 404 {
		t.Errorf("least recent session (with a GET stream): %d, want 404 (evicted)", st)
	}
	readAll(t, held) // its GET stream ended with it
	// An initialize without the handshake is the first to go.
	resp = post(t, context.Background(), f.url, nil, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`)
	readAll(t, resp)
	half := resp.Header.Get(HeaderSessionID)
	if resp.StatusCode != 200 {
		t.Fatalf("initialize at the cap: %d", resp.StatusCode)
	}
	f.initSession(t)
	if st := echoStatus(t, f, half); st != 404 {
		t.Errorf("session without handshake: %d, want 404", st)
	}
	if st := echoStatus(t, f, c); st != 200 {
		t.Errorf("active session: %d, want 200", st)
	}
}

func echoStatus(t *testing.T, f *fixture, sid string) int {
	resp := post(t, context.Background(), f.url, legacyHdr(sid), `{"jsonrpc":"2.0","id":7,"method":"echo"}`)
	readAll(t, resp)
	return resp.StatusCode
}

func getAsync(url, sid string) <-chan *http.Response {
	ch := make(chan *http.Response, 1)
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(HeaderSessionID, sid)
	req.Header.Set(HeaderProtocolVersion, "2025-11-25")
	addAuth(req)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			ch <- nil
			return
		}
		ch <- resp
	}()
	return ch
}

// Invalid UTF-8 inside a JSON string is refused with a parse error, never
// rewritten to U+FFFD.
func TestInvalidUTF8Refused(t *testing.T) { eachAuthMode(t, testInvalidUTF8Refused) }

func testInvalidUTF8Refused(t *testing.T, newFixture fixtureFunc) {
	f := newFixture(t, Options{})
	sid := f.initSession(t)
	body := []byte(`{"jsonrpc":"2.0","id":1,"method":"echo","params":{"s":"a` + "\xff\xfe" + `b"}}`)
	resp := post(t, context.Background(), f.url, legacyHdr(sid), string(body))
	got := readAll(t, resp)
	if resp.StatusCode != 400 || !strings.Contains(got, `"code":-32700`) || bytes.Contains([]byte(got), []byte("\uFFFD")) {
		t.Fatalf("%d %s", resp.StatusCode, got)
	}
}

// The MemoryEventStore keeps its bounds and refuses a resumption with a gap.
func TestMemoryEventStoreBounds(t *testing.T) {
	m := NewMemoryEventStore(100, 40)
	ctx := context.Background()
	for i := uint64(1); i <= 5; i++ {
		_ = m.Append(ctx, "s", "1", i, bytes.Repeat([]byte("x"), 10))
	}
	if m.Bytes() != 40 {
		t.Fatalf("per-stream bound: %d bytes held", m.Bytes())
	}
	if err := m.After(ctx, "s", "1", 0, func(uint64, []byte) error { return nil }); !errors.Is(err, ErrEventsLost) {
		t.Fatalf("gap not refused: %v", err)
	}
	var got []uint64
	if err := m.After(ctx, "s", "1", 2, func(i uint64, _ []byte) error { got = append(got, i); return nil }); err != nil || len(got) != 3 {
		t.Fatalf("after 2: %v %v", got, err)
	}
	for s := range 20 {
		_ = m.Append(ctx, "s", fmt.Sprint(s+2), 1, bytes.Repeat([]byte("y"), 10))
	}
	if m.Bytes() > 100 {
		t.Fatalf("global bound: %d", m.Bytes())
	}
	m.SessionClosed(ctx, "s")
	if m.Bytes() != 0 {
		t.Fatalf("after SessionClosed: %d", m.Bytes())
	}
	// A huge single event is kept (the newest always is).
	_ = m.Append(ctx, "t", "1", 1, bytes.Repeat([]byte("z"), 60))
	if err := m.After(ctx, "t", "1", 0, func(uint64, []byte) error { return nil }); err != nil {
		t.Fatal(err)
	}
}

// Bodies: a Content-Length over the limit is 413 before reading; a body of
// unknown length (chunked) that would take the bodies being read over
// MaxBodyBudget is 503; a known length over the budget too.
func TestBodyBudgetAndEarly413(t *testing.T) { eachAuthMode(t, testBodyBudgetAndEarly413) }

func testBodyBudgetAndEarly413(t *testing.T, newFixture fixtureFunc) {
	f := newFixture(t, Options{MaxBodyBytes: 4096, MaxBodyBudget: 1000})
	req, _ := http.NewRequest(http.MethodPost, f.url, strings.NewReader(strings.Repeat(" ", 5000)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	addAuth(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if readAll(t, resp); resp.StatusCode != 413 {
		t.Errorf("over-limit Content-Length: %d", resp.StatusCode)
	}
	for _, chunked := range []bool{false, true} {
		body := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"pad":"` + strings.Repeat("x", 2000) + `"}}`
		var r io.Reader = strings.NewReader(body)
		if chunked {
			r = io.MultiReader(r) // hides the length: sent chunked
		}
		req, _ := http.NewRequest(http.MethodPost, f.url, r)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		addAuth(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if got := readAll(t, resp); resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" {
			t.Errorf("chunked=%v over the budget: %d %s", chunked, resp.StatusCode, got)
		}
	}
}

// cutter cuts the SSE response bodies of POSTs after a number of bytes,
// anywhere (inside an event too), as a broken connection would.
type cutter struct {
	rt   http.RoundTripper
	mu   sync.Mutex
	cuts []int // byte offsets of the next POST streams' cuts
}

func (c *cutter) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := c.rt.RoundTrip(r)
	if err != nil || r.Method != http.MethodPost || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return resp, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.cuts) > 0 {
		resp.Body = &cutBody{ReadCloser: resp.Body, left: c.cuts[0]}
		c.cuts = c.cuts[1:]
	}
	return resp, nil
}

type cutBody struct {
	io.ReadCloser
	left int
}

func (b *cutBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		b.ReadCloser.Close() // the connection goes: the server sees it
		return 0, io.ErrUnexpectedEOF
	}
	if len(p) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= n
	return n, err
}

// mcpgen's own ClientTransport resumes a cut legacy stream by itself (GET
// Last-Event-ID after the server's retry), even when the cut falls inside
// an event: every progress notification and the answer arrive exactly once.
func TestClientTransportResumesCutStream(t *testing.T) {
	f := newFixture(t, Options{SSEResponses: true, SSERetry: time.Millisecond})
	cut := &cutter{rt: &http.Transport{}}
	defer cut.rt.(*http.Transport).CloseIdleConnections()
	c := NewClientTransport(f.url, ClientOptions{Revisions: testRevs(), Era: EraLegacy, HTTPClient: &http.Client{Transport: cut}, Logger: quiet()})
	defer c.Close()
	ctx := context.Background()
	read := func() *jsonrpc2.Message {
		t.Helper()
		rctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		m, err := c.ReadMessage(rctx)
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		return m
	}
	if err := c.Write(ctx, []byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)); err != nil {
		t.Fatal(err)
	}
	if m := read(); m.Kind != jsonrpc2.KindResponse {
		t.Fatalf("initialize: %+v", m)
	}
	if err := c.Write(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)); err != nil {
		t.Fatal(err)
	}
	for round, at := range []int{333, 1500, 4097} {
		cut.mu.Lock()
		cut.cuts = []int{at}
		cut.mu.Unlock()
		const n = 50
		id := round + 1
		if err := c.Write(ctx, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"burst","params":{"n":%d,"pad":100}}`, id, n)); err != nil {
			t.Fatal(err)
		}
		ty := &tally{progress: map[int]int{}}
		for ty.answers == 0 {
			m := read()
			if m.Kind == jsonrpc2.KindErrorResponse {
				t.Fatalf("round %d: error %s", round, m.Error)
			}
			b, _ := json.Marshal(m)
			ty.add(t, b)
		}
		for i := 1; i <= n; i++ {
			if ty.progress[i] != 1 {
				t.Fatalf("cut at byte %d: progress %d delivered %d times", at, i, ty.progress[i])
			}
		}
	}
}
