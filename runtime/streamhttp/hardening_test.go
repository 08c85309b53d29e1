package streamhttp

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

func TestOrigin(t *testing.T) { eachAuthMode(t, testOrigin) }

func testOrigin(t *testing.T, newFixture fixtureFunc) {
	f := newFixture(t, Options{})
	for origin, want := range map[string]int{
		"http://evil.example":     403,
		"http://localhost:3000":   200,
		"http://127.0.0.1:8080":   200,
		"http://[::1]":            200,
		"null":                    403,
		"http://localhost.evil":   403,
		"http://127.0.0.1.nip.io": 403,
	} {
		resp := post(t, context.Background(), f.url, map[string]string{"Origin": origin}, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`)
		body := readAll(t, resp)
		if resp.StatusCode != want {
			t.Errorf("Origin %s: %d %s, want %d", origin, resp.StatusCode, body, want)
		}
	}
	g := newFixture(t, Options{AllowedOrigins: []string{"https://app.example"}})
	for origin, want := range map[string]int{"https://app.example": 200, "http://localhost": 403} {
		resp := post(t, context.Background(), g.url, map[string]string{"Origin": origin}, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`)
		if readAll(t, resp); resp.StatusCode != want {
			t.Errorf("allow-list, Origin %s: %d, want %d", origin, resp.StatusCode, want)
		}
	}
}

// DNS rebinding without Origin: a loopback server refuses a foreign Host.
func TestHostCheck(t *testing.T) { eachAuthMode(t, testHostCheck) }

func testHostCheck(t *testing.T, newFixture fixtureFunc) {
	f := newFixture(t, Options{})
	for host, want := range map[string]int{"evil.example.com": 403, "localhost:1234": 200, "127.0.0.1": 200, "[::1]:80": 200} {
		req, _ := http.NewRequest(http.MethodPost, f.url, strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`))
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		addAuth(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("Host %s: %d, want %d", host, resp.StatusCode, want)
		}
	}
	g := newFixture(t, Options{AllowAnyHost: true})
	req, _ := http.NewRequest(http.MethodPost, g.url, strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`))
	req.Host = "evil.example.com"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	addAuth(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("AllowAnyHost: %d", resp.StatusCode)
	}
}

func TestBodyLimit(t *testing.T) { eachAuthMode(t, testBodyLimit) }

func testBodyLimit(t *testing.T, newFixture fixtureFunc) {
	f := newFixture(t, Options{MaxBodyBytes: 1024})
	big := `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"pad":"` + strings.Repeat("x", 2048) + `"}}`
	resp := post(t, context.Background(), f.url, nil, big)
	if body := readAll(t, resp); resp.StatusCode != 413 || !strings.Contains(body, `"error"`) {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
}

// At the session cap a session with a request in flight never gives way:
// a new initialize then gets 503. (An idle one does: TestSessionCapEvicts.)
func TestSessionAndStreamLimits(t *testing.T) { eachAuthMode(t, testSessionAndStreamLimits) }

func testSessionAndStreamLimits(t *testing.T, newFixture fixtureFunc) {
	f := newFixture(t, Options{MaxSessions: 1, MaxStreams: 1})
	sid := f.initSession(t)
	running := postAsync(context.Background(), f.url, legacyHdr(sid), `{"jsonrpc":"2.0","id":1,"method":"sleep"}`)
	waitFor(t, f.started, "sleep start")
	resp := post(t, context.Background(), f.url, nil, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`)
	if readAll(t, resp); resp.StatusCode != 503 {
		t.Fatalf("second session while the first has a request in flight: %d, want 503", resp.StatusCode)
	}
	resp = post(t, context.Background(), f.url, legacyHdr(sid), `{"jsonrpc":"2.0","id":2,"method":"echo"}`)
	if readAll(t, resp); resp.StatusCode != 503 {
		t.Fatalf("second stream: %d, want 503", resp.StatusCode)
	}
	cancelSleep(t, f, sid, running)
}

// One session cannot take every stream: over MaxSessionStreams its own
// requests get 503 while another session's are still served.
func TestPerSessionStreamLimit(t *testing.T) { eachAuthMode(t, testPerSessionStreamLimit) }

func testPerSessionStreamLimit(t *testing.T, newFixture fixtureFunc) {
	f := newFixture(t, Options{MaxSessionStreams: 1})
	if status, body := busySession(t, f); status != 503 || !strings.Contains(body, "in this session") {
		t.Fatalf("second stream of one session: %d %s, want 503", status, body)
	}
}

// The hostile-peer bounds of the runtime hold per session: each legacy
// session has its own Conn with its own admission limits, so a session over
// its bound gets CodeServerBusy while another session is still served.
func TestRuntimeLimitsPerSession(t *testing.T) { eachAuthMode(t, testRuntimeLimitsPerSession) }

func testRuntimeLimitsPerSession(t *testing.T, newFixture fixtureFunc) {
	f := newFixture(t, Options{})
	f.connOpts = []jsonrpc2.Option{jsonrpc2.WithMaxInFlight(1)}
	if status, body := busySession(t, f); !strings.Contains(body, `"code":-31429`) || !strings.Contains(body, `"id":2`) {
		t.Fatalf("second request of a session at its bound: %d %s, want error -31429 for id 2", status, body)
	}
}

// busySession keeps a sleep (id 1) running in one session and sends that
// session a second request, whose answer it returns; meanwhile another
// session's request must be served. It then cancels the sleep.
func busySession(t *testing.T, f *fixture) (status int, body string) {
	t.Helper()
	busy := f.initSession(t)
	other := f.initSession(t)
	running := startSleep(t, f, busy)
	resp := post(t, context.Background(), f.url, legacyHdr(busy), `{"jsonrpc":"2.0","id":2,"method":"echo"}`)
	status, body = resp.StatusCode, readAll(t, resp)
	// Were the limit shared with the busy session, this would stay busy.
	for deadline := time.Now().Add(5 * time.Second); ; {
		resp = post(t, context.Background(), f.url, legacyHdr(other), `{"jsonrpc":"2.0","id":2,"method":"echo"}`)
		b := readAll(t, resp)
		if retryBusy(b, deadline) {
			continue
		}
		if resp.StatusCode != 200 || !strings.Contains(b, `"result"`) {
			t.Fatalf("another session's request: %d %s, want 200 with a result", resp.StatusCode, b)
		}
		break
	}
	cancelSleep(t, f, busy, running)
	return status, body
}

// startSleep posts a sleep (id 1) in session sid and waits for its handler
// to start.
func startSleep(t *testing.T, f *fixture, sid string) <-chan *http.Response {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; {
		running := postAsync(context.Background(), f.url, legacyHdr(sid), `{"jsonrpc":"2.0","id":1,"method":"sleep"}`)
		select {
		case <-f.started:
			return running
		case r := <-running:
			b := ""
			if r != nil {
				b = readAll(t, r)
			}
			if retryBusy(b, deadline) {
				continue
			}
			t.Fatalf("sleep answered before it started: %s", b)
		case <-time.After(10 * time.Second):
			t.Fatal("timed out waiting for sleep start")
		}
	}
}

// retryBusy reports whether an answer was the runtime's busy error and the
// deadline allows another try, after a moment. With WithMaxInFlight(1) the
// session's previous request (initialize) holds its one slot until its
// handler has exited, which can come just after the client read its answer;
// the busy error means "retry later", and nothing signals the free slot.
func retryBusy(body string, deadline time.Time) bool {
	if !strings.Contains(body, `"code":-31429`) || time.Now().After(deadline) {
		return false
	}
	time.Sleep(time.Millisecond)
	return true
}

// cancelSleep cancels the running legacy sleep (id 1) of session sid the
// way a legacy client must, and waits for its handler and its stream.
func cancelSleep(t *testing.T, f *fixture, sid string, running <-chan *http.Response) {
	t.Helper()
	resp := post(t, context.Background(), f.url, legacyHdr(sid), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	if readAll(t, resp); resp.StatusCode != 202 {
		t.Fatalf("cancel: %d", resp.StatusCode)
	}
	waitFor(t, f.ended, "sleep end")
	if r := <-running; r != nil {
		readAll(t, r)
	}
}

// An idle session ends by itself: its Conn shuts down (event, not sleep) and
// its id then gets 404.
func TestIdleSessionExpiry(t *testing.T) { eachAuthMode(t, testIdleSessionExpiry) }

func testIdleSessionExpiry(t *testing.T, newFixture fixtureFunc) {
	f := newFixture(t, Options{SessionIdleTimeout: 30 * time.Millisecond})
	sid := f.initSession(t)
	conn := waitFor(t, f.conns, "conn")
	waitFor(t, conn.Done(), "session expiry")
	resp := post(t, context.Background(), f.url, legacyHdr(sid), `{"jsonrpc":"2.0","id":1,"method":"echo"}`)
	if readAll(t, resp); resp.StatusCode != 404 {
		t.Fatalf("expired session: %d, want 404", resp.StatusCode)
	}
}

func TestNewHTTPServerTimeouts(t *testing.T) {
	s := NewHTTPServer("127.0.0.1:0", http.NotFoundHandler())
	if s.ReadHeaderTimeout <= 0 || s.MaxHeaderBytes <= 0 {
		t.Fatalf("ReadHeaderTimeout %v, MaxHeaderBytes %d", s.ReadHeaderTimeout, s.MaxHeaderBytes)
	}
}

// Real TCP: raw clients of both eras start long requests and vanish in the
// middle (after the headers, before them, half-way through the body). Every
// modern handler must be cancelled by the disconnect, every legacy one must
// survive it until its session is deleted, and nothing may leak (goleak in
// TestMain, after Handler.Close).
func TestRealTCPVanishingClients(t *testing.T) { eachAuthMode(t, testRealTCPVanishingClients) }

func testRealTCPVanishingClients(t *testing.T, newFixture fixtureFunc) {
	f := newFixture(t, Options{})
	addr := f.srv.Listener.Addr().String()
	sid := f.initSession(t)
	const n = 8
	raw := func(body string, hdr string) net.Conn {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n%s%sContent-Length: %d\r\n\r\n%s", addr, authHeaderLine(addr), hdr, len(body), body)
		return c
	}
	var conns []net.Conn
	for i := 0; i < n; i++ {
		conns = append(conns, raw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"sleep","params":{%s}}`, i, modernMeta),
			"Mcp-Protocol-Version: 2026-07-28\r\nMcp-Method: sleep\r\n"))
		conns = append(conns, raw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"sleep"}`, 100+i),
			"Mcp-Session-Id: "+sid+"\r\nMcp-Protocol-Version: 2025-11-25\r\n"))
	}
	for i := 0; i < 2*n; i++ {
		waitFor(t, f.started, "sleep start")
	}
	// A client that sends half a body and one that sends only headers, then
	// vanish: the server must not hang on them.
	half, _ := net.Dial("tcp", addr)
	fmt.Fprintf(half, "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n%sContent-Length: 100\r\n\r\n{\"jsonrpc\"", authHeaderLine(addr))
	headersOnly, _ := net.Dial("tcp", addr)
	fmt.Fprintf(headersOnly, "POST /mcp HTTP/1.1\r\nHost: x\r\n")
	half.Close()
	headersOnly.Close()
	for _, c := range conns {
		c.(*net.TCPConn).SetLinger(0) // RST: the harshest way to vanish
		c.Close()
	}
	modern := 0
	for i := 0; i < n; i++ {
		e := waitFor(t, f.ended, "modern handler end")
		if !strings.Contains(e.cause.Error(), "stream closed") {
			t.Errorf("handler %s ended by %v", e.id, e.cause)
		}
		modern++
	}
	select {
	case e := <-f.ended:
		t.Fatalf("a legacy handler ended on disconnect: %s %v", e.id, e.cause)
	default:
	}
	// Deleting the session ends the legacy handlers.
	req, _ := http.NewRequest(http.MethodDelete, f.url, nil)
	req.Header.Set(HeaderSessionID, sid)
	addAuth(req)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for i := 0; i < n; i++ {
		e := waitFor(t, f.ended, "legacy handler end")
		// The session's transport closing or its Conn closing, whichever
		// the Conn sees first: both say the session ended.
		if msg := e.cause.Error(); !strings.Contains(msg, "transport closed") && !strings.Contains(msg, "connection closed") {
			t.Errorf("legacy handler %s ended by %v", e.id, e.cause)
		}
	}
	_ = bufio.NewReader
}
