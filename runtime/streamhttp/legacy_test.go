package streamhttp

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

func TestLegacySessionLifecycle(t *testing.T) {
	f := newFixture(t, Options{})
	a, b := f.initSession(t), f.initSession(t)
	if a == b {
		t.Fatal("two sessions got the same id")
	}
	for _, sid := range []string{a, b} {
		if len(sid) < 32 {
			t.Errorf("session id %q is short", sid)
		}
		for _, c := range []byte(sid) {
			if c < 0x21 || c > 0x7e {
				t.Errorf("session id %q has a byte outside visible ASCII", sid)
			}
		}
	}
	resp := post(t, context.Background(), f.url, legacyHdr(a), `{"jsonrpc":"2.0","id":7,"method":"echo","params":{"x":1}}`)
	body := readAll(t, resp)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "application/json" || body != `{"jsonrpc":"2.0","id":7,"result":{"params":{"x":1}}}` {
		t.Fatalf("echo: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	cases := []struct {
		name   string
		hdr    map[string]string
		body   string
		status int
	}{
		{"no session", map[string]string{HeaderProtocolVersion: "2025-11-25"}, `{"jsonrpc":"2.0","id":1,"method":"echo"}`, 400},
		{"unknown session", legacyHdr("nope"), `{"jsonrpc":"2.0","id":1,"method":"echo"}`, 404},
		{"bad version", map[string]string{HeaderSessionID: a, HeaderProtocolVersion: "1999-01-01"}, `{"jsonrpc":"2.0","id":1,"method":"echo"}`, 400},
		{"bad json", legacyHdr(a), `{"jsonrpc":`, 400},
		{"batch", legacyHdr(a), `[{"jsonrpc":"2.0","id":1,"method":"echo"}]`, 400},
		{"no accept sse", map[string]string{HeaderSessionID: a, "Accept": "application/json"}, `{"jsonrpc":"2.0","id":1,"method":"echo"}`, 406},
		{"wrong content type", map[string]string{HeaderSessionID: a, "Content-Type": "text/plain"}, `{"jsonrpc":"2.0","id":1,"method":"echo"}`, 415},
	}
	for _, c := range cases {
		resp := post(t, context.Background(), f.url, c.hdr, c.body)
		body := readAll(t, resp)
		if resp.StatusCode != c.status || !strings.Contains(body, `"error"`) {
			t.Errorf("%s: got %d %s, want %d with a JSON-RPC error", c.name, resp.StatusCode, body, c.status)
		}
	}
	// DELETE ends the session: later requests get 404.
	req, _ := http.NewRequest(http.MethodDelete, f.url, nil)
	req.Header.Set(HeaderSessionID, a)
	dresp, err := http.DefaultClient.Do(req)
	if err != nil || dresp.StatusCode != 200 {
		t.Fatalf("DELETE: %v %v", err, dresp)
	}
	dresp.Body.Close()
	resp = post(t, context.Background(), f.url, legacyHdr(a), `{"jsonrpc":"2.0","id":8,"method":"echo"}`)
	if readAll(t, resp); resp.StatusCode != 404 {
		t.Fatalf("after DELETE: %d, want 404", resp.StatusCode)
	}
	if got := f.h.Sessions(); got != 1 {
		t.Fatalf("sessions = %d, want 1", got)
	}
}

// A legacy client that drops the POST stream has not cancelled: the handler
// keeps running until the client POSTs notifications/cancelled.
func TestLegacyDisconnectIsNotCancellation(t *testing.T) {
	f := newFixture(t, Options{})
	sid := f.initSession(t)
	ctx, drop := context.WithCancel(context.Background())
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, f.url, strings.NewReader(`{"jsonrpc":"2.0","id":"s1","method":"sleep"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set(HeaderSessionID, sid)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	if id := waitFor(t, f.started, "sleep start"); id != `"s1"` {
		t.Fatalf("started %s", id)
	}
	drop()
	// The server has seen the disconnect and, under the legacy policy, not
	// treated it as a cancellation.
	f.waitLog(t, "not a cancellation under this policy")
	select {
	case e := <-f.ended:
		t.Fatalf("handler ended on disconnect: %v", e.cause)
	default:
	}
	resp := post(t, context.Background(), f.url, legacyHdr(sid), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s1","reason":"user gave up"}}`)
	if b := readAll(t, resp); resp.StatusCode != 202 || b != "" {
		t.Fatalf("cancel POST: %d %q", resp.StatusCode, b)
	}
	e := waitFor(t, f.ended, "handler end")
	var ce *jsonrpc2.CancelError
	if !errors.As(e.cause, &ce) || ce.Source != jsonrpc2.SourcePeer || ce.Reason != "user gave up" {
		t.Fatalf("cause = %v, want peer notification with the reason", e.cause)
	}
}

// A cancellation naming another session's request is ignored there and
// never reaches the request's own session.
func TestLegacyCancelFromOtherSessionIgnored(t *testing.T) {
	f := newFixture(t, Options{})
	a, b := f.initSession(t), f.initSession(t)
	resp := postAsync(context.Background(), f.url, legacyHdr(a), `{"jsonrpc":"2.0","id":5,"method":"sleep"}`)
	waitFor(t, f.started, "sleep start")
	r := post(t, context.Background(), f.url, legacyHdr(b), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"hijack"}}`)
	if readAll(t, r); r.StatusCode != 202 {
		t.Fatalf("foreign cancel: %d", r.StatusCode)
	}
	f.waitEvent(t, func(e jsonrpc2.Event) bool {
		return e.Kind == jsonrpc2.EventIgnored && e.Why == jsonrpc2.IgnoreUnknownID && e.ID == jsonrpc2.Int64ID(5)
	})
	select {
	case e := <-f.ended:
		t.Fatalf("another session's cancel ended the handler: %v", e.cause)
	default:
	}
	r = post(t, context.Background(), f.url, legacyHdr(a), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"mine"}}`)
	readAll(t, r)
	e := waitFor(t, f.ended, "handler end")
	var ce *jsonrpc2.CancelError
	if !errors.As(e.cause, &ce) || ce.Reason != "mine" {
		t.Fatalf("cause = %v", e.cause)
	}
	// The cancelled request gets no response: the stream ends empty.
	if e.notifyErr == nil {
		t.Error("a notification after the cancellation was accepted")
	}
	got := waitFor(t, resp, "sleep response")
	if body := readAll(t, got); strings.Contains(body, `"result"`) {
		t.Fatalf("cancelled request answered: %s", body)
	}
}

// A request whose handler notifies first is answered as SSE: the
// notification, then the response, on that one stream.
func TestLegacySSEResponse(t *testing.T) {
	f := newFixture(t, Options{})
	sid := f.initSession(t)
	resp := post(t, context.Background(), f.url, legacyHdr(sid), `{"jsonrpc":"2.0","id":3,"method":"progress"}`)
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" || resp.Header.Get("X-Accel-Buffering") != "no" {
		t.Fatalf("content type %q", ct)
	}
	s := newSSE(resp.Body)
	if e := s.next(t); !strings.Contains(e, `"notifications/progress"`) {
		t.Fatalf("first event %s", e)
	}
	if e := s.next(t); e != `{"jsonrpc":"2.0","id":3,"result":{"done":"yes"}}` {
		t.Fatalf("second event %s", e)
	}
}

// The server's own request to the client travels on the stream of the
// request whose handler made it; the client answers with a POST (202); the
// result then ends that stream. When the server's call times out it POSTs
// nothing but sends notifications/cancelled on the same stream.
func TestLegacyServerRequestOnStream(t *testing.T) {
	f := newFixture(t, Options{})
	sid := f.initSession(t)
	resp := post(t, context.Background(), f.url, legacyHdr(sid), `{"jsonrpc":"2.0","id":1,"method":"ask"}`)
	defer resp.Body.Close()
	s := newSSE(resp.Body)
	ask := s.next(t)
	if !strings.Contains(ask, `"method":"sampling/createMessage"`) {
		t.Fatalf("got %s", ask)
	}
	m, _ := jsonrpc2.DecodeMessage([]byte(ask))
	r := post(t, context.Background(), f.url, legacyHdr(sid), `{"jsonrpc":"2.0","id":`+m.ID.String()+`,"result":{"ok":true}}`)
	if readAll(t, r); r.StatusCode != 202 {
		t.Fatalf("response POST: %d", r.StatusCode)
	}
	if e := s.next(t); e != `{"jsonrpc":"2.0","id":1,"result":{"answer":{"ok":true}}}` {
		t.Fatalf("final %s", e)
	}
	if err := waitFor(t, f.answers, "first ask outcome"); err != nil {
		t.Fatal(err)
	}

	// The server's cancellation races the handler's error response (the
	// runtime queues the notification, the response is written at once), so
	// it goes on the request's stream if still open, else on the GET stream:
	// exactly once, on one of them.
	get := openGet(t, f.url, sid)
	defer get.Body.Close()
	resp2 := post(t, context.Background(), f.url, legacyHdr(sid), `{"jsonrpc":"2.0","id":2,"method":"ask","params":{"timeoutMs":50}}`)
	defer resp2.Body.Close()
	s2 := newSSE(resp2.Body)
	ask = s2.next(t)
	m, _ = jsonrpc2.DecodeMessage([]byte(ask))
	want := `"requestId":` + m.ID.String()
	seen := 0
	for e := range s2.ch {
		if strings.Contains(string(e), "notifications/cancelled") && strings.Contains(string(e), want) {
			seen++
		}
	}
	if seen == 0 {
		e := newSSE(get.Body).next(t)
		if strings.Contains(e, "notifications/cancelled") && strings.Contains(e, want) {
			seen++
		}
	}
	if seen != 1 {
		t.Fatalf("the server's cancellation was seen %d times", seen)
	}
	if err := waitFor(t, f.answers, "ask outcome"); err == nil {
		t.Fatal("the server's call did not fail")
	}
}

// The GET stream carries server-initiated requests when no request stream
// is open; a second GET is refused.
func openGet(t *testing.T, url, sid string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(HeaderSessionID, sid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET: %v %v", err, resp)
	}
	return resp
}

func TestLegacyGetStream(t *testing.T) {
	f := newFixture(t, Options{})
	sid := f.initSession(t)
	req, _ := http.NewRequest(http.MethodGet, f.url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(HeaderSessionID, sid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET: %v %v", err, resp)
	}
	defer resp.Body.Close()
	second, _ := http.DefaultClient.Do(req)
	if second.StatusCode != http.StatusConflict {
		t.Fatalf("second GET: %d", second.StatusCode)
	}
	second.Body.Close()
	conn := waitFor(t, f.conns, "conn") // first session's Conn
	got := make(chan error, 1)
	go func() {
		got <- conn.Notify(context.Background(), "notifications/message", map[string]any{"level": "info", "data": "hi"})
	}()
	s := newSSE(resp.Body)
	if e := s.next(t); !strings.Contains(e, "notifications/message") {
		t.Fatalf("GET event %s", e)
	}
	if err := waitFor(t, got, "notify"); err != nil {
		t.Fatal(err)
	}
}
