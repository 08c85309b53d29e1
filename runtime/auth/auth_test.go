package auth_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/auth"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/tasks"
)

const (
	resource = "https://mcp.example.com/mcp"
	issuer   = "https://as.example.com"
	metaURL  = "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
)

// tokens is the test's token table: what a real verifier (JWT, introspection)
// would say about each.
func tokens() map[string]*auth.Identity {
	id := func(sub string, scopes ...string) *auth.Identity {
		return &auth.Identity{Subject: sub, Issuer: issuer, Scopes: scopes, Audience: []string{resource},
			Expiry: time.Now().Add(time.Hour)}
	}
	m := map[string]*auth.Identity{
		"alice":         id("alice", "mcp"),
		"alice-tools":   id("alice", "mcp", "tools:write"),
		"bob":           id("bob", "mcp", "tools:write"),
		"alice-offline": id("alice", "mcp", "offline_access"),
		"no-mcp-scope":  id("carol", "other"),
	}
	m["expired"] = id("alice", "mcp")
	m["expired"].Expiry = time.Now().Add(-time.Minute)
	m["wrong-aud"] = id("alice", "mcp")
	m["wrong-aud"].Audience = []string{"https://other.example.com/mcp"}
	m["upper-aud"] = id("alice", "mcp")
	m["upper-aud"].Audience = []string{"HTTPS://MCP.Example.COM/mcp/"}
	m["no-aud"] = id("alice", "mcp")
	m["no-aud"].Audience = nil
	return m
}

var verifier = auth.VerifierFunc(func(ctx context.Context, tok string) (*auth.Identity, error) {
	if tok == "down" {
		return nil, errors.New("jwks: " + auth.ErrVerifierUnavailable.Error()) // not wrapped: treated as invalid
	}
	if tok == "outage" {
		return nil, errors.Join(auth.ErrVerifierUnavailable, errors.New("connection refused"))
	}
	if id, ok := tokens()[tok]; ok {
		return id, nil
	}
	return nil, auth.ErrInvalidToken
})

// impl is the MCP server: its tools say whose request they serve.
type impl struct {
	calls   *atomic.Int64
	subject chan string // the identity each task's work saw
	// gate holds the tool "gated" until the test closes it (after the
	// request's POST has ended).
	gate chan struct{}
}

func (s impl) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	s.calls.Add(1)
	if p.Name == "gated" {
		<-s.gate
	}
	id, ok := auth.IdentityFrom(ctx)
	if !ok {
		return nil, errors.New("no identity in the handler's ctx")
	}
	if p.Name == "task" {
		s.subject <- id.Subject
	}
	return mcp.TextResult("subject=" + id.Subject + " scopes=" + strings.Join(id.Scopes, ",")), nil
}

func (s impl) ReadResource(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
	s.calls.Add(1)
	return &mcp.ReadResourceResult{}, nil
}

type fixture struct {
	url   string // the endpoint
	base  string
	h     *streamhttp.Handler
	calls *atomic.Int64
	impl  impl
	conns *atomic.Int64 // Conns built (sessions and modern requests)
	tasks *atomic.Int64 // tasks created
}

func newFixture(t *testing.T, opts streamhttp.Options) *fixture {
	t.Helper()
	rs, err := auth.New(auth.Config{
		Resource:             resource,
		AuthorizationServers: []string{issuer},
		Verifier:             verifier,
		Scopes:               []string{"mcp"},
		MethodScopes:         map[string][]string{"resources/read": {"resources:read"}},
		ToolScopes:           map[string][]string{"write": {"tools:write"}},
		ScopesSupported:      []string{"mcp", "tools:write", "resources:read"},
		ResourceName:         "test server",
		Logger:               quiet(),
	})
	if err != nil {
		t.Fatal(err)
	}
	store := &countingStore{Store: tasks.NewMemoryStore()}
	tm := tasks.NewManager(tasks.Config{Methods: []string{mcp.MethodCallTool}, Owner: auth.TaskOwner, Store: store,
		ToolSupport: func(tool string) tasks.Support { return tasks.Optional }, Logger: quiet()})
	t.Cleanup(func() { tm.Close(context.Background()) })
	im := impl{calls: &atomic.Int64{}, subject: make(chan string, 4), gate: make(chan struct{})}
	srv := mcp.NewServer(session.Implementation{Name: "auth-test", Version: "0"}, im,
		tasks.WithTasks(tm), session.WithLegacy(mcp20251125.Revision()))
	opts.Logger = quiet()
	rs.Apply(&opts)
	conns := &countingLifecycle{Server: srv, srv: srv}
	h := streamhttp.NewHandler(conns, opts)
	mux := http.NewServeMux()
	rs.Mount(mux, h)
	ts := httptest.NewServer(mux)
	t.Cleanup(func() {
		ts.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		h.Close(ctx)
	})
	return &fixture{url: ts.URL + "/mcp", base: ts.URL, h: h, calls: im.calls, impl: im, conns: &conns.n, tasks: &store.created}
}

// countingLifecycle counts the Conns the server builds: one per legacy
// session, and the one that serves every modern request.
type countingLifecycle struct {
	*session.Server // Adopt, RefreshLegacy and Revisions as they are
	srv             *session.Server
	n               atomic.Int64
}

func (c *countingLifecycle) Accept(ctx context.Context, t jsonrpc2.Transport) (*jsonrpc2.Conn, error) {
	c.n.Add(1)
	return c.srv.Accept(ctx, t)
}

func (c *countingLifecycle) Dispatcher(t jsonrpc2.Transport) (*jsonrpc2.Conn, error) {
	c.n.Add(1)
	return c.srv.Dispatcher(t)
}

// countingStore counts the tasks created.
type countingStore struct {
	tasks.Store
	created atomic.Int64
}

func (s *countingStore) Create(ctx context.Context, r tasks.Record) error {
	s.created.Add(1)
	return s.Store.Create(ctx, r)
}

func quiet() *slog.Logger {
	return slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelError}))
}

// client bounds each exchange, so that a broken rule (a GET stream
// opened where a 404 was due) fails the test instead of hanging it.
var client = &http.Client{Timeout: 10 * time.Second}

type reply struct {
	status int
	hdr    http.Header
	body   string
}

func do(t *testing.T, method, url, token string, hdr map[string]string, body string) reply {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{resp.StatusCode, resp.Header, string(b)}
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`

// initSession initializes a legacy session as token's owner.
func (f *fixture) initSession(t *testing.T, token string) string {
	t.Helper()
	r := do(t, "POST", f.url, token, nil, initBody)
	sid := r.hdr.Get(streamhttp.HeaderSessionID)
	if r.status != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", r.status, r.body)
	}
	if r := do(t, "POST", f.url, token, legacyHdr(sid), `{"jsonrpc":"2.0","method":"notifications/initialized"}`); r.status != 202 {
		t.Fatalf("initialized: %d %s", r.status, r.body)
	}
	return sid
}

func legacyHdr(sid string) map[string]string {
	return map[string]string{streamhttp.HeaderSessionID: sid, streamhttp.HeaderProtocolVersion: "2025-11-25"}
}

func callBody(tool string) string {
	return `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}`

// taskMeta is modernMeta with the Tasks extension declared.
const taskMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"0"},"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`

func modernCall(tool string, meta string) (map[string]string, string) {
	return map[string]string{streamhttp.HeaderProtocolVersion: "2026-07-28", streamhttp.HeaderMethod: "tools/call", streamhttp.HeaderName: tool},
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + tool + `","arguments":{},` + meta + `}}`
}

// challenge parses a Bearer WWW-Authenticate header into its parameters.
func challenge(t *testing.T, h http.Header) map[string]string {
	t.Helper()
	v := h.Get("WWW-Authenticate")
	rest, ok := strings.CutPrefix(v, "Bearer ")
	if !ok {
		t.Fatalf("WWW-Authenticate %q is not a Bearer challenge", v)
	}
	out := map[string]string{}
	for rest != "" {
		k, after, ok := strings.Cut(rest, `="`)
		if !ok {
			t.Fatalf("WWW-Authenticate %q: bad parameter at %q", v, rest)
		}
		end := strings.Index(after, `"`)
		out[strings.TrimSpace(k)] = after[:end]
		rest = strings.TrimPrefix(strings.TrimSpace(after[end+1:]), ",")
		rest = strings.TrimSpace(rest)
	}
	return out
}
