package auth_test

import (
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// TestHardeningWithAuth: the handler's own refusals hold behind the
// resource server, for an authorized client: disallowed Origin 403, body
// over the limit 413, the session cap evicts an idle session, idle sessions end; and a request
// refused by auth does not count against the session cap.
func TestHardeningWithAuth(t *testing.T) {
	f := newFixture(t, streamhttp.Options{MaxBodyBytes: 1024, MaxSessions: 2, SessionIdleTimeout: 200 * time.Millisecond})
	if r := do(t, "POST", f.url, "alice", map[string]string{"Origin": "https://evil.example"}, initBody); r.status != http.StatusForbidden {
		t.Errorf("disallowed origin: %d %s", r.status, r.body)
	}
	big := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 2048) + `"}}`
	if r := do(t, "POST", f.url, "alice", nil, big); r.status != http.StatusRequestEntityTooLarge {
		t.Errorf("body over the limit: %d %s", r.status, r.body)
	}
	for i := 0; i < 50; i++ {
		if r := do(t, "POST", f.url, "forged", nil, initBody); r.status != 401 {
			t.Fatalf("forged initialize: %d", r.status)
		}
	}
	f.initSession(t, "alice")
	f.initSession(t, "bob")
	// At the cap an idle session gives way (streamhttp.Options.MaxSessions):
	// the new one is served and the count stays at the cap.
	if r := do(t, "POST", f.url, "alice", nil, initBody); r.status != http.StatusOK || f.h.Sessions() != 2 {
		t.Errorf("beyond MaxSessions: %d %s, %d sessions", r.status, r.body, f.h.Sessions())
	}
	deadline := time.Now().Add(10 * time.Second)
	for f.h.Sessions() > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("idle sessions still live: %d", f.h.Sessions())
		}
		time.Sleep(20 * time.Millisecond) // polling the janitor's effect: it reports no event
	}
}

// TestRefusedByAuthCostsNothing floods the server with requests that auth
// refuses (no token, a forged, expired or wrong-audience one, a token
// without the server's scope, a token without the tool's or method's
// scope) of every kind: legacy initialize, tools/call and task-augmented
// tools/call in a session, GET and DELETE of it, modern tools/call,
// task-augmented tools/call, tasks/get and tasks/list. None is answered
// 2xx, and none costs a handler call, a Conn (so no session and no modern
// request context) or a task: first with no session on the server, then
// with alice's session, whose id every refused request names.
func TestRefusedByAuthCostsNothing(t *testing.T) {
	f := newFixture(t, streamhttp.Options{})
	type refused struct {
		method, token string
		hdr           map[string]string
		body          string
	}
	legacyTask := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"task","arguments":{},"task":{}}}`
	modernReq := func(method, name, params string) (map[string]string, string) {
		return map[string]string{streamhttp.HeaderProtocolVersion: "2026-07-28", streamhttp.HeaderMethod: method, streamhttp.HeaderName: name},
			`{"jsonrpc":"2.0","id":8,"method":"` + method + `","params":{` + params + taskMeta + `}}`
	}
	flood := func(sid string) []refused {
		var rs []refused
		// Refused by Middleware (401, or 403 for the server's own scope).
		for _, tok := range []string{"", "forged", "expired", "wrong-aud", "no-aud", "no-mcp-scope"} {
			rs = append(rs, refused{"POST", tok, nil, initBody})
			if sid != "" {
				rs = append(rs,
					refused{"POST", tok, legacyHdr(sid), callBody("whoami")},
					refused{"POST", tok, legacyHdr(sid), legacyTask},
					refused{"GET", tok, legacyHdr(sid), ""},
					refused{"DELETE", tok, legacyHdr(sid), ""})
			}
			hdr, body := modernCall("task", modernMeta)
			rs = append(rs, refused{"POST", tok, hdr, body})
			hdr, body = modernCall("task", taskMeta)
			rs = append(rs, refused{"POST", tok, hdr, body})
			hdr, body = modernReq("tasks/get", "AAAAAAAAAAAAAAAAAAAAAAAA", `"taskId":"AAAAAAAAAAAAAAAAAAAAAAAA",`)
			rs = append(rs, refused{"POST", tok, hdr, body})
			hdr, body = modernReq("tasks/list", "", "")
			rs = append(rs, refused{"POST", tok, hdr, body})
		}
		// Refused by Authorize (403 insufficient_scope for the tool or the
		// method), after the body is read and before any session or Conn.
		hdr, body := modernCall("write", taskMeta)
		rs = append(rs, refused{"POST", "alice", hdr, body})
		rs = append(rs, refused{"POST", "alice", map[string]string{streamhttp.HeaderProtocolVersion: "2026-07-28", streamhttp.HeaderMethod: "resources/read", streamhttp.HeaderName: "file:///x"},
			`{"jsonrpc":"2.0","id":5,"method":"resources/read","params":{"uri":"file:///x",` + modernMeta + `}}`})
		if sid != "" {
			rs = append(rs, refused{"POST", "alice", legacyHdr(sid), `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"write","arguments":{},"task":{}}}`})
		}
		return rs
	}
	const rounds = 20
	run := func(sid string) int {
		rs := flood(sid)
		var wg sync.WaitGroup
		var bad atomic.Int64
		for range rounds {
			for _, r := range rs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					got := do(t, r.method, f.url, r.token, r.hdr, r.body)
					if got.status < 400 || got.status >= 500 {
						bad.Add(1)
						t.Errorf("%s %s (token %q): %d %s, want a refusal", r.method, r.body, r.token, got.status, got.body)
					}
				}()
			}
		}
		wg.Wait()
		return rounds * len(rs)
	}
	n := run("")
	if s, c, calls, tk := f.h.Sessions(), f.conns.Load(), f.calls.Load(), f.tasks.Load(); s != 0 || c != 0 || calls != 0 || tk != 0 {
		t.Fatalf("after %d refused requests: %d sessions, %d Conns, %d handler calls, %d tasks; want none", n, s, c, calls, tk)
	}
	sid := f.initSession(t, "alice")
	conns := f.conns.Load() // alice's session
	m := run(sid)
	if s, c, calls, tk := f.h.Sessions(), f.conns.Load(), f.calls.Load(), f.tasks.Load(); s != 1 || c != conns || calls != 0 || tk != 0 {
		t.Fatalf("after %d refused requests naming alice's session: %d sessions, %d Conns (%d before), %d handler calls, %d tasks; want alice's session alone", m, s, c, conns, calls, tk)
	}
	t.Logf("%d refused requests: 0 handler calls, 0 Conns, 0 sessions, 0 tasks beyond alice's own session", n+m)
	// The flood left alice's session usable.
	if r := do(t, "POST", f.url, "alice", legacyHdr(sid), callBody("whoami")); r.status != 200 || !strings.Contains(r.body, "subject=alice") {
		t.Errorf("alice after the flood: %d %s", r.status, r.body)
	}
}
