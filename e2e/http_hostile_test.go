package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Issue 23, must-show 6: hostile HTTP peers against examples/http-server
// as a subprocess (built without -race, so its memory is what a deployment
// sees), with the server's RSS read from /proc: request bodies (an
// over-limit Content-Length, many stalled near-limit bodies, a stalled
// body), sessions that never finish the handshake, sessions and GET streams
// held against the cap, orphaned legacy handlers, and invalid UTF-8.

var (
	plainHTTPOnce sync.Once
	plainHTTPBin  string
	plainHTTPErr  error
)

// plainHTTPServer builds examples/http-server without -race, once.
func plainHTTPServer(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and floods a server")
	}
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc to measure RSS")
	}
	plainHTTPOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcpgen-http-hostile-")
		if err != nil {
			plainHTTPErr = err
			return
		}
		plainHTTPBin = filepath.Join(dir, "http-server")
		cmd := exec.Command("go", "build", "-o", plainHTTPBin, "github.com/mcpgen/mcpgen/examples/http-server")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		plainHTTPErr = cmd.Run()
	})
	if plainHTTPErr != nil {
		t.Fatalf("building http-server: %v", plainHTTPErr)
	}
	return plainHTTPBin
}

// hostileHTTP is a running http-server subprocess.
type hostileHTTP struct {
	url     string
	addr    string
	pid     int
	records *watch[map[string]any]
	client  *http.Client
	// token is the bearer token every request of the test's client
	// carries when the server runs with --auth ("" without).
	token string
}

// hostileStarter starts the server of a hostile test with extra flags.
type hostileStarter func(t *testing.T, args ...string) *hostileHTTP

// eachHostileMode runs a hostile test against http-server as it is and
// with --auth (issue 23, must-show 6: every hardening test still passes
// with auth on), its client then holding a valid token. The token is
// checked by an RFC 7662 introspection endpoint of the test's.
func eachHostileMode(t *testing.T, test func(t *testing.T, start hostileStarter)) {
	t.Run("auth=off", func(t *testing.T) {
		test(t, func(t *testing.T, args ...string) *hostileHTTP { return startHostileHTTP(t, "", args...) })
	})
	t.Run("auth=on", func(t *testing.T) { test(t, authStarter(t)) })
}

// authStarter starts http-server with --auth, its resource server checking
// tokens at an RFC 7662 introspection endpoint of the test's that knows
// one token, which the returned server's client carries.
func authStarter(t *testing.T) hostileStarter {
	const resource, token = "http://mcp.test/mcp", "hostile-token"
	var verified atomic.Int64
	intro := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if u, p, ok := r.BasicAuth(); !ok || u != "rs" || p != "s3cret" || r.PostFormValue("token") != token {
			_, _ = w.Write([]byte(`{"active":false}`))
			return
		}
		verified.Add(1)
		_, _ = w.Write([]byte(`{"active":true,"sub":"hostile","scope":"mcp","aud":"` + resource + `","iss":"http://as.test"}`))
	}))
	t.Cleanup(intro.Close)
	t.Setenv("MCP_AUTH_CLIENT_SECRET", "s3cret")
	return func(t *testing.T, args ...string) *hostileHTTP {
		s := startHostileHTTP(t, token, append([]string{"--auth", "--auth-resource", resource, "--auth-issuer", "http://as.test",
			"--auth-introspect", intro.URL, "--auth-client-id", "rs", "--auth-scopes", "mcp"}, args...)...)
		// Auth really is on: no token, 401 before the handler.
		req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(hostileInit))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := s.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("--auth: a request without a token got %d, want 401", resp.StatusCode)
		}
		t.Cleanup(func() { t.Logf("--auth: %d requests verified by introspection", verified.Load()) })
		return s
	}
}

func startHostileHTTP(t *testing.T, token string, args ...string) *hostileHTTP {
	t.Helper()
	bin := plainHTTPServer(t)
	srv := exec.Command(bin, append([]string{"--addr", "127.0.0.1:0", "--log-format", "json"}, args...)...)
	stderr, err := srv.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	records := newWatch[map[string]any]()
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			var r map[string]any
			if json.Unmarshal(sc.Bytes(), &r) == nil {
				records.add(r)
			}
		}
		records.close()
	}()
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		srv.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- srv.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("http-server exit: %v", err)
			}
		case <-time.After(15 * time.Second):
			srv.Process.Kill()
			t.Error("http-server did not exit on SIGTERM")
		}
	})
	url := records.waitFor(t, "listening record", func(r map[string]any) bool { return r["msg"] == "listening" })["url"].(string)
	return &hostileHTTP{url: url, addr: strings.TrimSuffix(strings.TrimPrefix(url, "http://"), "/mcp"), pid: srv.Process.Pid, records: records, client: &http.Client{Transport: tr}, token: token}
}

// rss returns the server's resident set now and its peak (VmRSS, VmHWM).
func (s *hostileHTTP) rss(t *testing.T) (now, peak int64) {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			now = kb << 10
		case "VmHWM:":
			peak = kb << 10
		}
	}
	return now, peak
}

func mb(b int64) string { return fmt.Sprintf("%.1f MB", float64(b)/(1<<20)) }

const hostileInit = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"hostile","version":"0"}}}`

// post sends one JSON-RPC message (legacy, session sid if not empty).
func (s *hostileHTTP) post(ctx context.Context, sid, body string) (*http.Response, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, s.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	s.authorize(req)
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	return s.client.Do(req)
}

func (s *hostileHTTP) status(t *testing.T, sid, body string) (int, string) {
	t.Helper()
	resp, err := s.post(context.Background(), sid, body)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp.StatusCode, string(b)
}

// initialize opens a legacy session; with handshake it also sends
// notifications/initialized.
func (s *hostileHTTP) initialize(t *testing.T, handshake bool) string {
	t.Helper()
	resp, err := s.post(context.Background(), "", hostileInit)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, b)
	}
	if handshake {
		if st, b := s.status(t, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); st != 202 {
			t.Fatalf("initialized: %d %s", st, b)
		}
	}
	return sid
}

func (s *hostileHTTP) echo(t *testing.T, sid string) (int, string) {
	return s.status(t, sid, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"text":"still served"}}}`)
}

// authorize sets the client's bearer token on req (with --auth).
func (s *hostileHTTP) authorize(req *http.Request) {
	if s.token != "" {
		req.Header.Set("Authorization", "Bearer "+s.token)
	}
}

// rawPost writes a POST's headers declaring length bytes and then the
// first send bytes of the body, and returns the connection (not closed).
func (s *hostileHTTP) rawPost(t *testing.T, length, send int) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", s.addr)
	if err != nil {
		t.Fatal(err)
	}
	authz := ""
	if s.token != "" {
		authz = "Authorization: Bearer " + s.token + "\r\n"
	}
	fmt.Fprintf(c, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n%sContent-Length: %d\r\n\r\n", s.addr, authz, length)
	if send > 0 {
		go func() {
			_ = c.SetWriteDeadline(time.Now().Add(20 * time.Second))
			_, _ = c.Write(make([]byte, send)) // may fail once the server refuses
		}()
	}
	return c
}

// rawStatus reads the HTTP status the server answers on c within d, or 0
// when none came (a reset counts as none).
func rawStatus(c net.Conn, d time.Duration) int {
	_ = c.SetReadDeadline(time.Now().Add(d))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return 0
	}
	resp.Body.Close()
	return resp.StatusCode
}

// Bodies: an over-limit Content-Length is 413 at once (before any of the
// body); 64 connections that each send just under the 4 MiB limit and
// stall hold at most the budget (the others get 503, or 429 once their
// client holds its share, at once), and meanwhile a client's small
// requests, a modern tools/call and a legacy session's, are each answered
// within 1 s (issue 35: they were 503 until the stalled bodies timed
// out); a stalled body gets 408 after the 10 s read timeout instead of
// holding its connection for the server's minute.
func TestHTTPHostileBodies(t *testing.T) { eachHostileMode(t, testHTTPHostileBodies) }

func testHTTPHostileBodies(t *testing.T, startHostileHTTP hostileStarter) {
	s := startHostileHTTP(t)
	base, _ := s.rss(t)

	start := time.Now()
	c := s.rawPost(t, 100<<20, 0)
	if st := rawStatus(c, 3*time.Second); st != 413 {
		t.Fatalf("100 MB Content-Length: status %d, want 413", st)
	}
	c.Close()
	t.Logf("100 MB declared, nothing sent: 413 after %v", time.Since(start).Round(time.Millisecond))

	const conns = 64
	var refused, other int
	var mu sync.Mutex
	var wg sync.WaitGroup
	open := make([]net.Conn, conns)
	for i := range conns {
		// The largest body admitted: 16 of them took all of the budget
		// before issue 35, and every other body got 503.
		open[i] = s.rawPost(t, 4<<20, 4<<20-64<<10)
	}
	for i := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st := rawStatus(open[i], 2*time.Second) // the refused ones: at once
			mu.Lock()
			defer mu.Unlock()
			if st == 503 || st == 429 {
				refused++
			} else {
				other++
			}
		}()
	}
	wg.Wait()
	// The stalled bodies are held (until the read timeout): small
	// requests of both eras are still served, and a small body is
	// admitted (to stall until its 408 below).
	stalled := s.rawPost(t, 1000, 10)
	defer stalled.Close()
	stallStart := time.Now()
	timed := func(what, sid, body string, hdr map[string]string, want int) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		s.authorize(req)
		if sid != "" {
			req.Header.Set("Mcp-Session-Id", sid)
			req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		}
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		start := time.Now()
		resp, err := s.client.Do(req)
		if err != nil {
			t.Fatalf("%s during the flood: %v", what, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		took := time.Since(start)
		if resp.StatusCode != want || took > time.Second {
			t.Errorf("%s during the flood: %d %s after %v, want %d within 1s", what, resp.StatusCode, b, took, want)
		}
		t.Logf("%s during the flood: %d after %v", what, resp.StatusCode, took.Round(time.Millisecond))
	}
	timed("modern tools/call", "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"served"},`+modernMeta(false)+`}}`,
		map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo"}, 200)
	floodStart := time.Now()
	sid := s.initialize(t, true)
	if took := time.Since(floodStart); took > 2*time.Second {
		t.Errorf("legacy initialize and initialized during the flood took %v", took)
	}
	timed("legacy tools/call", sid, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"echo","arguments":{"text":"served"}}}`, nil, 200)
	now, peak := s.rss(t)
	t.Logf("%d near-limit stalled bodies: %d refused (503/429) at once, %d held (until the read timeout); RSS %s at start, %s now, peak %s", conns, refused, other, mb(base), mb(now), mb(peak))
	if refused < conns/2 {
		t.Errorf("only %d of %d near-limit bodies refused: the budget does not hold", refused, conns)
	}
	if peak > 150<<20 {
		t.Errorf("peak RSS %s: the body budget does not bound memory", mb(peak))
	}
	for _, c := range open {
		c.Close()
	}
	if st := rawStatus(stalled, 15*time.Second); st != 408 {
		t.Errorf("stalled body: %d, want 408", st)
	}
	t.Logf("stalled body: 408 after %v", time.Since(stallStart).Round(100*time.Millisecond))
	if st, b := s.echo(t, s.initialize(t, true)); st != 200 {
		t.Errorf("a client after the flood: %d %s", st, b)
	}
}

// Sessions: 64 initializes that never finish the handshake (the cap is 64)
// do not lock a real client out, and expire within the handshake timeout;
// then 64 complete sessions each holding a GET stream do not either.
func TestHTTPHostileSessions(t *testing.T) { eachHostileMode(t, testHTTPHostileSessions) }

func testHTTPHostileSessions(t *testing.T, startHostileHTTP hostileStarter) {
	s := startHostileHTTP(t, "--max-sessions", "64", "--handshake-timeout", "1s")
	base, _ := s.rss(t)
	start := time.Now()
	for range 64 {
		s.initialize(t, false)
	}
	t.Logf("64 initializes without the handshake: %v", time.Since(start).Round(time.Millisecond))
	sid := s.initialize(t, true)
	if st, b := s.echo(t, sid); st != 200 {
		t.Fatalf("a real client at the cap: %d %s", st, b)
	}
	s.records.waitN(t, "handshake expiries", 63, func(r map[string]any) bool {
		return r["msg"] == "session ended: no notifications/initialized within the handshake timeout"
	})
	t.Logf("63 unfinished sessions expired %v after they were opened (1 gave way at the cap)", time.Since(start).Round(100*time.Millisecond))

	// 64 complete sessions holding GET streams.
	var gets []*http.Response
	for range 64 {
		id := s.initialize(t, true)
		req, _ := http.NewRequest(http.MethodGet, s.url, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", id)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		s.authorize(req)
		resp, err := s.client.Do(req)
		if err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET stream: %v %v", resp, err)
		}
		gets = append(gets, resp)
	}
	fresh := s.initialize(t, true)
	if st, b := s.echo(t, fresh); st != 200 {
		t.Fatalf("a real client against held GET streams: %d %s", st, b)
	}
	s.records.waitN(t, "eviction", 1, func(r map[string]any) bool {
		return r["msg"] == "session ended to make room for a new one (MaxSessions reached)"
	})
	for _, g := range gets {
		_ = g.Body.Close()
	}
	now, peak := s.rss(t)
	t.Logf("sessions: RSS %s at start, %s now, peak %s", mb(base), mb(now), mb(peak))
}

// Orphans: 1,100 legacy tools/call sleep requests whose clients drop their
// connections (not a cancellation in the legacy era) are bounded by
// MaxOrphans (1,024): the oldest beyond it are cancelled at once with a
// cause that names the bound.
func TestHTTPHostileOrphans(t *testing.T) { eachHostileMode(t, testHTTPHostileOrphans) }

func testHTTPHostileOrphans(t *testing.T, startHostileHTTP hostileStarter) {
	s := startHostileHTTP(t)
	base, _ := s.rss(t)
	const sessions, per = 8, 140
	total := sessions * per
	var cancels []context.CancelFunc
	var wg sync.WaitGroup
	for range sessions {
		sid := s.initialize(t, true)
		for i := range per {
			ctx, cancel := context.WithCancel(context.Background())
			cancels = append(cancels, cancel)
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := s.post(ctx, sid, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":600000}}}`, i+1))
				if err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}()
		}
	}
	s.records.waitN(t, "sleeps started", total, func(r map[string]any) bool { return r["msg"] == "sleep started" })
	start := time.Now()
	for _, c := range cancels {
		c() // the client goes away: an orphan
	}
	wg.Wait()
	over := total - 1024
	s.records.waitN(t, "orphans given up", over, func(r map[string]any) bool {
		c, _ := r["cause"].(string)
		return r["msg"] == "sleep interrupted" && strings.Contains(c, "MaxOrphans")
	})
	now, peak := s.rss(t)
	t.Logf("%d orphans: %d cancelled at the bound within %v; RSS %s at start, %s now, peak %s", total, over, time.Since(start).Round(time.Millisecond), mb(base), mb(now), mb(peak))
	if st, b := s.echo(t, s.initialize(t, true)); st != 200 {
		t.Errorf("a client after the orphans: %d %s", st, b)
	}
}

// Invalid UTF-8 in a string is a parse error, never rewritten to U+FFFD.
func TestHTTPHostileUTF8(t *testing.T) { eachHostileMode(t, testHTTPHostileUTF8) }

func testHTTPHostileUTF8(t *testing.T, startHostileHTTP hostileStarter) {
	s := startHostileHTTP(t)
	sid := s.initialize(t, true)
	st, b := s.status(t, sid, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a`+"\xff\xfe"+`b"}}}`)
	if st != 400 || !strings.Contains(b, `"code":-32700`) || strings.Contains(b, "\uFFFD") {
		t.Fatalf("invalid UTF-8: %d %s", st, b)
	}
}

// Unauthenticated floods against --auth cost no session: 2,048 legacy
// initializes and modern tools/calls without a token or with a forged one
// (concurrently, 32 at a time) are all refused 401, and afterwards 64
// clients with a valid token fill the 64-session cap without a single
// eviction: none of the refused requests held a slot.
func TestHTTPHostileUnauthenticated(t *testing.T) {
	s := authStarter(t)(t, "--max-sessions", "64")
	base, _ := s.rss(t)
	const total, workers = 2048, 32
	modern := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":60000},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"h","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}}}`
	var next, refused atomic.Int64
	var wg sync.WaitGroup
	begin := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1); i <= total; i = next.Add(1) {
				body, hdr := hostileInit, map[string]string{}
				if i%2 == 0 {
					body = modern
					hdr = map[string]string{"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "sleep"}
				}
				req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				if i%4 < 2 {
					req.Header.Set("Authorization", "Bearer forged-"+strconv.FormatInt(i, 10))
				}
				for k, v := range hdr {
					req.Header.Set(k, v)
				}
				resp, err := s.client.Do(req)
				if err != nil {
					t.Error(err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == http.StatusUnauthorized && strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer ") {
					refused.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	now, peak := s.rss(t)
	t.Logf("%d unauthenticated requests in %v: %d refused 401; RSS %s at start, %s now, peak %s", total, time.Since(begin).Round(time.Millisecond), refused.Load(), mb(base), mb(now), mb(peak))
	if refused.Load() != total {
		t.Fatalf("%d of %d unauthenticated requests refused 401", refused.Load(), total)
	}
	for range 64 {
		s.initialize(t, true)
	}
	recs, _, _ := s.records.snapshot()
	for _, r := range recs {
		if r["msg"] == "session ended to make room for a new one (MaxSessions reached)" || r["msg"] == "sleep started" {
			t.Fatalf("after the unauthenticated flood: %v (a refused request held a session or ran)", r)
		}
	}
}
