package auth_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/auth"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// TestMetadata: Protected Resource Metadata at the path-based and the root
// well-known URIs (RFC 9728 section 3; MCP authorization, Protected
// Resource Metadata Discovery Requirements), without a token.
func TestMetadata(t *testing.T) {
	f := newFixture(t, streamhttp.Options{})
	for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		r := do(t, "GET", f.base+path, "", nil, "")
		if r.status != 200 || r.hdr.Get("Content-Type") != "application/json" {
			t.Fatalf("GET %s: %d %s %s", path, r.status, r.hdr.Get("Content-Type"), r.body)
		}
		var md auth.Metadata
		if err := json.Unmarshal([]byte(r.body), &md); err != nil {
			t.Fatal(err)
		}
		if md.Resource != resource || len(md.AuthorizationServers) != 1 || md.AuthorizationServers[0] != issuer ||
			strings.Join(md.ScopesSupported, " ") != "mcp tools:write resources:read" || strings.Join(md.BearerMethodsSupported, ",") != "header" {
			t.Errorf("GET %s: metadata %s", path, r.body)
		}
		if r := do(t, "POST", f.base+path, "", nil, "{}"); r.status != http.StatusMethodNotAllowed {
			t.Errorf("POST %s: %d, want 405", path, r.status)
		}
	}
	if _, err := auth.New(auth.Config{Resource: resource, Verifier: verifier}); err == nil {
		t.Error("New without authorization servers: no error")
	}
	if _, err := auth.New(auth.Config{Resource: "mcp.example.com", AuthorizationServers: []string{issuer}, Verifier: verifier}); err == nil {
		t.Error("New with a resource without scheme: no error")
	}
	if _, err := auth.New(auth.Config{Resource: resource, AuthorizationServers: []string{issuer}, Verifier: verifier, ScopesSupported: []string{"mcp", "offline_access"}}); err == nil {
		t.Error("New with offline_access in scopes_supported: no error")
	}
	if _, err := auth.New(auth.Config{Resource: resource, AuthorizationServers: []string{issuer}}); err == nil {
		t.Error("New without a verifier: no error")
	}
}

// Test401: every request without a valid token gets 401 with a Bearer
// challenge naming the metadata and the scope; an invalid, expired or
// wrong-audience token adds error="invalid_token"; none of them costs a
// session or a handler.
func Test401(t *testing.T) {
	f := newFixture(t, streamhttp.Options{})
	hdr, body := modernCall("whoami", modernMeta)
	cases := []struct {
		name, token, method string
		hdr                 map[string]string
		body                string
		wantErr             string
	}{
		{"no token, initialize", "", "POST", nil, initBody, ""},
		{"no token, modern call", "", "POST", hdr, body, ""},
		{"no token, GET", "", "GET", legacyHdr("x"), "", ""},
		{"no token, DELETE", "", "DELETE", legacyHdr("x"), "", ""},
		{"unknown token", "forged", "POST", nil, initBody, "invalid_token"},
		{"verifier error not wrapping unavailable", "down", "POST", nil, initBody, "invalid_token"},
		{"expired", "expired", "POST", nil, initBody, "invalid_token"},
		{"wrong audience", "wrong-aud", "POST", hdr, body, "invalid_token"},
		{"no audience", "no-aud", "POST", nil, initBody, "invalid_token"},
	}
	for _, c := range cases {
		r := do(t, c.method, f.url, c.token, c.hdr, c.body)
		if r.status != http.StatusUnauthorized {
			t.Errorf("%s: %d %s, want 401", c.name, r.status, r.body)
			continue
		}
		ch := challenge(t, r.hdr)
		if ch["resource_metadata"] != metaURL || ch["scope"] != "mcp" || ch["error"] != c.wantErr {
			t.Errorf("%s: challenge %q", c.name, r.hdr.Get("WWW-Authenticate"))
		}
	}
	// Another scheme is no bearer token.
	r := do(t, "POST", f.url, "", map[string]string{"Authorization": "Basic YWxpY2U6cHc="}, initBody)
	if r.status != 401 || challenge(t, r.hdr)["error"] != "" {
		t.Errorf("Basic: %d %q", r.status, r.hdr.Get("WWW-Authenticate"))
	}
	if n := f.h.Sessions(); n != 0 || f.calls.Load() != 0 {
		t.Errorf("refused requests cost %d sessions and %d handler calls", n, f.calls.Load())
	}
}

// TestMalformedAndOutage: a malformed Authorization or a token in the query
// is 400 invalid_request (MCP: tokens MUST NOT be in the query string); a
// verifier that cannot work answers 503, not 401, so clients keep their
// token.
func TestMalformedAndOutage(t *testing.T) {
	f := newFixture(t, streamhttp.Options{})
	r := do(t, "POST", f.url, "alice extra", nil, initBody)
	if r.status != 400 || challenge(t, r.hdr)["error"] != "invalid_request" {
		t.Errorf("two-part token: %d %q", r.status, r.hdr.Get("WWW-Authenticate"))
	}
	r = do(t, "POST", f.url+"?access_token=alice", "", nil, initBody)
	if r.status != 400 || challenge(t, r.hdr)["error"] != "invalid_request" {
		t.Errorf("query token: %d %q", r.status, r.hdr.Get("WWW-Authenticate"))
	}
	r = do(t, "POST", f.url, "outage", nil, initBody)
	if r.status != http.StatusServiceUnavailable || r.hdr.Get("WWW-Authenticate") != "" {
		t.Errorf("verifier outage: %d %q", r.status, r.hdr.Get("WWW-Authenticate"))
	}
	if f.h.Sessions() != 0 {
		t.Error("refused requests created a session")
	}
}

// TestAudience: the canonical comparison accepts upper-case scheme and host
// and a trailing slash (MCP authorization, Canonical Server URI).
func TestAudience(t *testing.T) {
	f := newFixture(t, streamhttp.Options{})
	if r := do(t, "POST", f.url, "upper-aud", nil, initBody); r.status != 200 {
		t.Errorf("upper-case audience: %d %s", r.status, r.body)
	}
	for in, want := range map[string]string{
		"HTTPS://MCP.example.com/mcp":        "https://mcp.example.com/mcp",
		"https://mcp.example.com/":           "https://mcp.example.com",
		"https://mcp.example.com:8443":       "https://mcp.example.com:8443",
		"https://mcp.example.com/Server/MCP": "https://mcp.example.com/Server/MCP",
	} {
		if got, err := auth.CanonicalResource(in); err != nil || got != want {
			t.Errorf("CanonicalResource(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, bad := range []string{"mcp.example.com", "https://mcp.example.com#fragment", "/mcp"} {
		if got, err := auth.CanonicalResource(bad); err == nil {
			t.Errorf("CanonicalResource(%q) = %q, want an error", bad, got)
		}
	}
}

// TestScopes: Config.Scopes for every request, MethodScopes per method,
// ToolScopes per tool, each refused with 403 insufficient_scope naming the
// scopes to step up to (needed ones plus those already granted), in both
// eras, before any session, handler or task exists.
func TestScopes(t *testing.T) {
	f := newFixture(t, streamhttp.Options{})
	check := func(name string, r reply, wantScope string) {
		t.Helper()
		if r.status != http.StatusForbidden {
			t.Errorf("%s: %d %s, want 403", name, r.status, r.body)
			return
		}
		ch := challenge(t, r.hdr)
		if ch["error"] != "insufficient_scope" || ch["scope"] != wantScope || ch["resource_metadata"] != metaURL || ch["error_description"] == "" {
			t.Errorf("%s: challenge %q, want scope %q", name, r.hdr.Get("WWW-Authenticate"), wantScope)
		}
	}
	check("base scope missing", do(t, "POST", f.url, "no-mcp-scope", nil, initBody), "mcp other")
	check("base scope missing on GET", do(t, "GET", f.url, "no-mcp-scope", legacyHdr("x"), ""), "mcp other")
	if f.h.Sessions() != 0 {
		t.Fatal("a 403 initialize created a session")
	}

	sid := f.initSession(t, "alice")
	check("legacy tool scope", do(t, "POST", f.url, "alice", legacyHdr(sid), callBody("write")), "mcp tools:write")
	check("legacy method scope", do(t, "POST", f.url, "alice", legacyHdr(sid),
		`{"jsonrpc":"2.0","id":3,"method":"resources/read","params":{"uri":"file:///x"}}`), "mcp resources:read")
	hdr, body := modernCall("write", modernMeta)
	check("modern tool scope", do(t, "POST", f.url, "alice", hdr, body), "mcp tools:write")
	// Granted scopes are kept in the step-up scope, but for offline_access,
	// which servers do not challenge for (2026-07-28, Refresh Tokens).
	check("granted offline_access left out", do(t, "POST", f.url, "alice-offline", hdr, body), "mcp tools:write")
	if n := f.calls.Load(); n != 0 {
		t.Fatalf("refused calls reached the handler %d times", n)
	}
	// Step-up: the same user with the wider token goes on in the same session.
	// The handler sees the identity of the request's own token, with its
	// wider scopes, not the initialize's.
	if r := do(t, "POST", f.url, "alice-tools", legacyHdr(sid), callBody("write")); r.status != 200 || !strings.Contains(r.body, "subject=alice scopes=mcp,tools:write") {
		t.Errorf("after step-up: %d %s", r.status, r.body)
	}
	if r := do(t, "POST", f.url, "alice-tools", hdr, body); r.status != 200 || !strings.Contains(r.body, "subject=alice") {
		t.Errorf("modern after step-up: %d %s", r.status, r.body)
	}
	if r := do(t, "POST", f.url, "alice", legacyHdr(sid), callBody("whoami")); r.status != 200 || !strings.Contains(r.body, "subject=alice") {
		t.Errorf("a tool without its own scope: %d %s", r.status, r.body)
	}
}

// TestSessionBinding: a legacy session belongs to the identity that
// initialized it; another identity naming its id gets exactly what an
// unknown id gets, for POST, GET and DELETE, and the session lives on.
func TestSessionBinding(t *testing.T) {
	f := newFixture(t, streamhttp.Options{})
	sid := f.initSession(t, "alice")
	unknown := do(t, "POST", f.url, "bob", legacyHdr("no-such-session"), callBody("whoami"))
	stolen := do(t, "POST", f.url, "bob", legacyHdr(sid), callBody("whoami"))
	if stolen.status != http.StatusNotFound || stolen.body != unknown.body || stolen.hdr.Get(streamhttp.HeaderSessionID) != "" {
		t.Errorf("another identity's POST: %d %q; unknown session: %d %q", stolen.status, stolen.body, unknown.status, unknown.body)
	}
	for _, m := range []string{"GET", "DELETE"} {
		u := do(t, m, f.url, "bob", legacyHdr("no-such-session"), "")
		s := do(t, m, f.url, "bob", legacyHdr(sid), "")
		if s.status != http.StatusNotFound || s.body != u.body {
			t.Errorf("another identity's %s: %d %q; unknown: %d %q", m, s.status, s.body, u.status, u.body)
		}
	}
	if f.h.Sessions() != 1 {
		t.Fatalf("sessions: %d, want alice's alone", f.h.Sessions())
	}
	if f.calls.Load() != 0 {
		t.Fatal("bob's call reached the handler")
	}
	if r := do(t, "POST", f.url, "alice", legacyHdr(sid), callBody("whoami")); r.status != 200 || !strings.Contains(r.body, "subject=alice") {
		t.Errorf("alice after bob's attempts: %d %s", r.status, r.body)
	}
	if r := do(t, "DELETE", f.url, "alice", legacyHdr(sid), ""); r.status != 200 {
		t.Errorf("alice's DELETE: %d %s", r.status, r.body)
	}
}

// TestIdentityInHandler: the verified identity reaches the MCP handler's
// ctx in both eras, through the generated client over HTTP.
func TestIdentityInHandler(t *testing.T) {
	f := newFixture(t, streamhttp.Options{})
	ctx := context.Background()
	hc := &http.Client{Transport: bearer{"alice"}}
	info := session.Implementation{Name: "t", Version: "0"}
	for _, era := range []streamhttp.Era{streamhttp.EraModern, streamhttp.EraLegacy} {
		tr := streamhttp.NewClientTransport(f.url, streamhttp.ClientOptions{HTTPClient: hc, Era: era, Revisions: []session.Revision{mcp.Revision(), mcp20251125.Revision()}})
		var res *mcp.CallToolResult
		var err error
		if era == streamhttp.EraModern {
			cs, cerr := mcp.Connect(ctx, tr, info, nil)
			if cerr != nil {
				t.Fatal(cerr)
			}
			res, err = cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "whoami"})
			cs.Close(ctx)
		} else {
			cs, cerr := mcp20251125.Connect(ctx, tr, info, nil)
			if cerr != nil {
				t.Fatal(cerr)
			}
			var lr *mcp20251125.CallToolResult
			lr, err = cs.CallTool(ctx, &mcp20251125.CallToolRequestParams{Name: "whoami"})
			if err == nil {
				res = mcp.TextResult(lr.Content[0].(*mcp20251125.TextContent).Text)
			}
			cs.Close(ctx)
		}
		if err != nil {
			t.Fatalf("%v: %v", era, err)
		}
		if got := res.Content[0].(*mcp.TextContent).Text; got != "subject=alice scopes=mcp" {
			t.Errorf("%v: handler saw %q", era, got)
		}
	}
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// TestTaskBinding: a 2026-07-28 task belongs to the identity that created
// it (tasks.Config.Owner = auth.TaskOwner): another identity gets the same
// error as for an unknown id; the task's work sees its creator's identity.
func TestTaskBinding(t *testing.T) {
	f := newFixture(t, streamhttp.Options{})
	hdr, body := modernCall("task", taskMeta)
	r := do(t, "POST", f.url, "alice", hdr, body)
	var created struct {
		Result struct {
			Task struct {
				TaskID string `json:"taskId"`
			} `json:"task"`
			TaskID string `json:"taskId"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(sseData(r.body)), &created); err != nil || r.status != 200 {
		t.Fatalf("create: %d %s (%v)", r.status, r.body, err)
	}
	id := created.Result.TaskID
	if id == "" {
		id = created.Result.Task.TaskID
	}
	if id == "" {
		t.Fatalf("no task id in %s", r.body)
	}
	if got := <-f.impl.subject; got != "alice" {
		t.Errorf("the task's work saw %q", got)
	}
	get := func(token, id string) string {
		h := map[string]string{streamhttp.HeaderProtocolVersion: "2026-07-28", streamhttp.HeaderMethod: "tasks/get", streamhttp.HeaderName: id}
		r := do(t, "POST", f.url, token, h, `{"jsonrpc":"2.0","id":9,"method":"tasks/get","params":{"taskId":"`+id+`",`+taskMeta+`}}`)
		return sseData(r.body)
	}
	own := get("alice", id)
	if !strings.Contains(own, `"result"`) {
		t.Fatalf("alice's tasks/get: %s", own)
	}
	stolen, unknown := get("bob", id), get("bob", "AAAAAAAAAAAAAAAAAAAAAAAA")
	if !strings.Contains(stolen, `"error"`) || strings.Replace(stolen, id, "ID", -1) != strings.Replace(unknown, "AAAAAAAAAAAAAAAAAAAAAAAA", "ID", -1) {
		t.Errorf("bob's tasks/get of alice's task: %s; of an unknown one: %s", stolen, unknown)
	}
}

// sseData returns the JSON of a plain JSON body or the last data line of an
// SSE body.
func sseData(body string) string {
	if !strings.HasPrefix(strings.TrimSpace(body), "{") {
		var last string
		for _, l := range strings.Split(body, "\n") {
			if d, ok := strings.CutPrefix(l, "data: "); ok {
				last = d
			}
		}
		return last
	}
	return body
}

// TestFailClosed: a handler given Apply's options but mounted without
// Middleware refuses every message (no Identity: 401), rather than serving
// it unauthenticated.
func TestFailClosed(t *testing.T) {
	rs, err := auth.New(auth.Config{Resource: resource, AuthorizationServers: []string{issuer}, Verifier: verifier, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	opts := streamhttp.Options{Logger: quiet()}
	rs.Apply(&opts)
	srv := mcp.NewServer(session.Implementation{Name: "t", Version: "0"}, struct{}{}, session.WithLegacy(mcp20251125.Revision()))
	h := streamhttp.NewHandler(srv, opts)
	ts := httptest.NewServer(h) // no Middleware
	defer func() {
		ts.Close()
		h.Close(context.Background())
	}()
	r := do(t, "POST", ts.URL, "alice", nil, initBody)
	if r.status != http.StatusUnauthorized || challenge(t, r.hdr)["resource_metadata"] != metaURL || h.Sessions() != 0 {
		t.Errorf("without Middleware: %d %q, %d sessions", r.status, r.hdr.Get("WWW-Authenticate"), h.Sessions())
	}
}

// TestLegacyTaskSeesItsRequestIdentity: in a legacy session initialized
// with alice's plain token, a task-augmented tools/call sent with her
// stepped-up token (tools:write) creates a task whose work, run after that
// POST has ended, sees the stepped-up identity, not the initialize's; a
// plain call in the session then sees the plain one again; bob cannot
// reach the task (the same answer as for an unknown id).
func TestLegacyTaskSeesItsRequestIdentity(t *testing.T) {
	f := newFixture(t, streamhttp.Options{})
	sid := f.initSession(t, "alice")
	r := do(t, "POST", f.url, "alice-tools", legacyHdr(sid), `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"gated","arguments":{},"task":{}}}`)
	var created struct {
		Result struct {
			Task struct {
				TaskID string `json:"taskId"`
			} `json:"task"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(sseData(r.body)), &created); err != nil || r.status != 200 || created.Result.Task.TaskID == "" {
		t.Fatalf("create: %d %s (%v)", r.status, r.body, err)
	}
	id := created.Result.Task.TaskID
	close(f.impl.gate) // the POST has ended: the work reads its identity now
	result := func(token, id string) string {
		return sseData(do(t, "POST", f.url, token, legacyHdr(sid), `{"jsonrpc":"2.0","id":4,"method":"tasks/result","params":{"taskId":"`+id+`"}}`).body)
	}
	if got := result("alice", id); !strings.Contains(got, `subject=alice scopes=mcp,tools:write`) {
		t.Errorf("the task's work saw: %s, want the stepped-up token's identity", got)
	}
	if r := do(t, "POST", f.url, "alice", legacyHdr(sid), callBody("whoami")); !strings.Contains(r.body, `subject=alice scopes=mcp"`) {
		t.Errorf("a plain call after it: %s", r.body)
	}
	// bob's own session: alice's task is as unknown there as a made-up id.
	bob := f.initSession(t, "bob")
	get := func(id string) string {
		r := do(t, "POST", f.url, "bob", legacyHdr(bob), `{"jsonrpc":"2.0","id":5,"method":"tasks/get","params":{"taskId":"`+id+`"}}`)
		return strings.Replace(sseData(r.body), id, "ID", -1)
	}
	if stolen, unknown := get(id), get("AAAAAAAAAAAAAAAAAAAAAAAA"); !strings.Contains(stolen, `"error"`) || stolen != unknown {
		t.Errorf("bob's tasks/get of alice's task: %s; of an unknown id: %s", stolen, unknown)
	}
}
