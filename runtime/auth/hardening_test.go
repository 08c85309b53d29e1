package auth_test

import (
	"net/http"
	"strings"
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
