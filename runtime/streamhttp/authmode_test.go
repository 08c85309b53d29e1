package streamhttp

import (
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// Issue 23, must-show 6: every hardening test runs twice, once with the
// Handler alone and once behind runtime/auth's resource server with a
// client holding a valid token, so a refusal of the handler's own (Origin,
// Host, body limit and budget, session cap, idle and handshake expiry,
// orphan bounds, invalid UTF-8) still holds, and still comes from the
// handler, when auth is on. runtime/auth imports this package, so its
// middleware is wired in by authmode_ext_test.go (package streamhttp_test)
// through SetTestAuth.

// fixtureFunc builds a test's fixture; a hardening test takes it as its
// newFixture parameter, shadowing the package's, so its body is the same
// in both modes.
type fixtureFunc func(t *testing.T, opts Options) *fixture

// eachAuthMode runs test with auth off and on.
func eachAuthMode(t *testing.T, test func(t *testing.T, newFixture fixtureFunc)) {
	t.Helper()
	t.Run("auth=off", func(t *testing.T) {
		test(t, func(t *testing.T, opts Options) *fixture { return newFixtureAuth(t, opts, false) })
	})
	t.Run("auth=on", func(t *testing.T) {
		if testAuth == nil {
			t.Fatal("no auth hook: authmode_ext_test.go did not run SetTestAuth")
		}
		test(t, func(t *testing.T, opts Options) *fixture { return newFixtureAuth(t, opts, true) })
	})
}

// AuthFront is what SetTestAuth's hook returns for a fixture at resource:
// the middleware in front of the Handler (after the hook has set the
// Options it needs) and a token it accepts.
type AuthFront struct {
	Wrap  func(http.Handler) http.Handler
	Token string
}

var testAuth func(resource string, opts *Options) AuthFront

// SetTestAuth installs the hook that puts runtime/auth in front of an
// auth-mode fixture; authmode_ext_test.go calls it at init.
func SetTestAuth(hook func(resource string, opts *Options) AuthFront) { testAuth = hook }

// fixtureTokens maps the host:port of each auth-mode fixture to the token
// the test's requests carry.
var fixtureTokens sync.Map

// behindAuth applies the auth hook to opts for a fixture at resource and
// returns its middleware; requests to the fixture's host carry the token
// from now until the test ends.
func behindAuth(t *testing.T, resource string, opts *Options) func(http.Handler) http.Handler {
	t.Helper()
	front := testAuth(resource, opts)
	u, err := url.Parse(resource)
	if err != nil {
		t.Fatal(err)
	}
	fixtureTokens.Store(u.Host, front.Token)
	t.Cleanup(func() { fixtureTokens.Delete(u.Host) })
	return front.Wrap
}

// addAuth sets the bearer token of an auth-mode fixture on a request to it
// (by URL host: a test that forges req.Host still authenticates).
func addAuth(req *http.Request) {
	if tok, ok := fixtureTokens.Load(req.URL.Host); ok {
		req.Header.Set("Authorization", "Bearer "+tok.(string))
	}
}

// authHeaderLine is the Authorization header line of a raw request to
// addr ("" when the fixture there has no auth).
func authHeaderLine(addr string) string {
	if tok, ok := fixtureTokens.Load(addr); ok {
		return "Authorization: Bearer " + tok.(string) + "\r\n"
	}
	return ""
}

// checkAuthFront makes sure an auth-mode fixture is really behind the
// resource server: a request without the token is refused 401 before the
// Handler (no Conn built, no session).
func checkAuthFront(t *testing.T, f *fixture) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, f.url, strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, resp)
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") == "" || f.h.Sessions() != 0 || len(f.conns) != 0 {
		t.Fatalf("auth mode: a request without a token got %d (%d sessions, %d conns), want 401 before the Handler", resp.StatusCode, f.h.Sessions(), len(f.conns))
	}
}
