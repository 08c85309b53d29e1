package natscluster

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/cluster/natstest"
	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	"github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/cluster"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
)

// The streamhttp cluster scenarios again, on NATS: three replicas, each with
// its own NATS connection (as separate processes would have), serving the
// generated server (mcp20260728.NewServer with legacy 2025-11-25) behind a
// round-robin httputil.ReverseProxy.

// tools is the implementation: "echo" answers with the replica's name,
// "block" waits for its ctx and reports the cause.
type tools struct {
	name    string
	started chan<- string
	causes  chan<- string
}

func (x *tools) CallTool(ctx context.Context, p *mcp20260728.CallToolRequestParams) (*mcp20260728.CallToolResult, error) {
	if p.Name == "block" {
		x.started <- x.name
		<-ctx.Done()
		x.causes <- x.name + ":" + context.Cause(ctx).Error()
		return nil, context.Cause(ctx)
	}
	return &mcp20260728.CallToolResult{Content: []mcp20260728.ContentBlock{&mcp20260728.TextContent{Text: x.name + " echoed"}}}, nil
}

type replica struct {
	url string
	h   *streamhttp.Handler
	srv *mcp20260728.Server
}

type natsCluster struct {
	reps    []replica
	re      []<-chan struct{} // each replica's reconnections
	proxy   string
	store   *SessionStore
	started chan string
	causes  chan string
}

func newNATSCluster(t *testing.T) *natsCluster {
	t.Helper()
	return newNATSClusterOn(t, natstest.Start(t, natstest.Options{}))
}

func newNATSClusterOn(t *testing.T, s *server.Server) *natsCluster {
	t.Helper()
	c := &natsCluster{started: make(chan string, 8), causes: make(chan string, 8)}
	var targets []*url.URL
	for i := range 3 {
		name := "r" + string(rune('0'+i))
		nc, re := connect(t, s)
		c.re = append(c.re, re)
		js, err := jetstream.New(nc)
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		store, err := NewSessionStore(ctx, js, SessionStoreConfig{TTL: time.Hour})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if c.store == nil {
			c.store = store
		}
		bus := NewBus(nc, WithSubjectPrefix("test"))
		srv := mcp20260728.NewServer(session.Implementation{Name: "nats-cluster", Version: "0"},
			&tools{name: name, started: c.started, causes: c.causes},
			session.WithLegacy(mcp20251125.Revision()), session.WithBus(bus),
			session.WithCapability("tools", []byte(`{"listChanged":true}`)))
		h := streamhttp.NewHandler(srv, streamhttp.Options{Sessions: store, Bus: bus, Replica: name})
		hs := httptest.NewServer(h)
		t.Cleanup(func() {
			hs.CloseClientConnections()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = h.Close(ctx)
			hs.Close()
		})
		c.reps = append(c.reps, replica{url: hs.URL + "/mcp", h: h, srv: srv})
		u, _ := url.Parse(hs.URL)
		targets = append(targets, u)
	}
	var next atomic.Uint64
	ps := httptest.NewServer(&httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetURL(targets[(next.Add(1)-1)%uint64(len(targets))])
		},
		FlushInterval: -1,
	})
	t.Cleanup(ps.Close)
	c.proxy = ps.URL + "/mcp"
	return c
}

func do(t *testing.T, ctx context.Context, method, url, sid, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, method, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set(streamhttp.HeaderSessionID, sid)
		req.Header.Set(streamhttp.HeaderProtocolVersion, "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	if method == http.MethodGet {
		return resp, ""
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	return resp, string(b)
}

func waitOn(t *testing.T, ch <-chan string, what string) string {
	t.Helper()
	select {
	case s := <-ch:
		return s
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
	return ""
}

func TestReplicasOverNATS(t *testing.T) {
	c := newNATSCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	// initialize on r0, initialized on r1, calls on every replica.
	resp, body := do(t, ctx, http.MethodPost, c.proxy, "",
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	sid := resp.Header.Get(streamhttp.HeaderSessionID)
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	if resp, body := do(t, ctx, http.MethodPost, c.proxy, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != 202 {
		t.Fatalf("initialized: %d %s", resp.StatusCode, body)
	}
	seen := map[string]bool{}
	for i := range 3 {
		_, body := do(t, ctx, http.MethodPost, c.proxy, sid, `{"jsonrpc":"2.0","id":`+string(rune('1'+i))+`,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
		if i := strings.Index(body, ` echoed`); i >= 2 {
			seen[body[i-2:i]] = true
		}
	}
	if len(seen) != 3 {
		t.Fatalf("echo answered by %v, want r0, r1 and r2", seen)
	}
	if rec, err := c.store.Get(ctx, sid); err != nil || !rec.Initialized || rec.Revision != "2025-11-25" {
		t.Fatalf("record %+v %v", rec, err)
	}

	// GET streams on every replica (the session's copies), then a change
	// raised on r1 reaches each once.
	var streams []*bufio.Reader
	for _, r := range c.reps {
		resp, _ := do(t, ctx, http.MethodGet, r.url, sid, "")
		if resp.StatusCode != 200 {
			t.Fatalf("GET: %d", resp.StatusCode)
		}
		defer resp.Body.Close()
		streams = append(streams, bufio.NewReader(resp.Body))
	}
	// And a modern subscriptions/listen stream on r2.
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.reps[2].url, strings.NewReader(
		`{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(streamhttp.HeaderProtocolVersion, "2026-07-28")
	req.Header.Set(streamhttp.HeaderMethod, "subscriptions/listen")
	lresp, err := http.DefaultClient.Do(req)
	if err != nil || lresp.StatusCode != 200 {
		t.Fatalf("listen: %v %v", lresp, err)
	}
	defer lresp.Body.Close()
	listen := bufio.NewReader(lresp.Body)
	if m := nextData(t, listen); !strings.Contains(m, "acknowledged") {
		t.Fatalf("listen: %s", m)
	}
	streams = append(streams, listen)
	_ = c.reps[1].srv.NotifyListChanged("tools")
	for i, s := range streams {
		if m := nextData(t, s); !strings.Contains(m, "notifications/tools/list_changed") {
			t.Fatalf("stream %d got %q", i, m)
		}
	}

	// A request on r1 cancelled through r2: the handler ends with the
	// client's reason, no response, once.
	done := make(chan string, 1)
	go func() {
		_, body := do(t, ctx, http.MethodPost, c.reps[1].url, sid, `{"jsonrpc":"2.0","id":"b","method":"tools/call","params":{"name":"block","arguments":{}}}`)
		done <- body
	}()
	if r := waitOn(t, c.started, "block"); r != "r1" {
		t.Fatalf("block started on %s", r)
	}
	for range 2 { // the second is a duplicate: harmless
		if resp, body := do(t, ctx, http.MethodPost, c.reps[2].url, sid, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"b","reason":"over NATS"}}`); resp.StatusCode != 202 {
			t.Fatalf("cancel: %d %s", resp.StatusCode, body)
		}
	}
	if cause := waitOn(t, c.causes, "the handler's end"); !strings.HasPrefix(cause, "r1:") || !strings.Contains(cause, "over NATS") {
		t.Fatalf("cause %q", cause)
	}
	if body := waitOn(t, done, "the cancelled POST"); strings.Contains(body, `"id":"b"`) {
		t.Fatalf("response sent for the cancelled request: %s", body)
	}

	// DELETE on r0: every replica answers 404 afterwards.
	if resp, _ := do(t, ctx, http.MethodDelete, c.reps[0].url, sid, ""); resp.StatusCode != 200 {
		t.Fatalf("DELETE: %d", resp.StatusCode)
	}
	if _, err := c.store.Get(ctx, sid); !errors.Is(err, cluster.ErrSessionNotFound) {
		t.Fatalf("record after DELETE: %v", err)
	}
	for i, r := range c.reps {
		if resp, _ := do(t, ctx, http.MethodPost, r.url, sid, `{"jsonrpc":"2.0","id":99,"method":"ping"}`); resp.StatusCode != 404 {
			t.Errorf("r%d after DELETE: %d", i, resp.StatusCode)
		}
	}
	select {
	case c := <-c.causes:
		t.Fatalf("a handler ended twice: %s", c)
	default:
	}
}

// nextData is the next non-empty SSE data line.
func nextData(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		for {
			l, err := r.ReadString('\n')
			if err != nil {
				got <- "error: " + err.Error()
				return
			}
			if d, ok := strings.CutPrefix(strings.TrimSpace(l), "data:"); ok && strings.TrimSpace(d) != "" {
				got <- d
				return
			}
		}
	}()
	return waitOn(t, got, "an SSE message")
}

// TestReplicasSurviveNATSRestart: a NATS server restart (same store
// directory) loses no session: a replica that never saw the session adopts
// it from the bucket afterwards, and cancellations are forwarded again.
func TestReplicasSurviveNATSRestart(t *testing.T) {
	dir := t.TempDir()
	s := natstest.Start(t, natstest.Options{StoreDir: dir})
	c := newNATSClusterOn(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, body := do(t, ctx, http.MethodPost, c.reps[0].url, "",
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	sid := resp.Header.Get(streamhttp.HeaderSessionID)
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	if resp, body := do(t, ctx, http.MethodPost, c.reps[0].url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != 202 {
		t.Fatalf("initialized: %d %s", resp.StatusCode, body)
	}
	restart(t, s, dir)
	for i, re := range c.re {
		within(t, re, "replica "+string(rune('0'+i))+" reconnecting")
	}
	if _, body := do(t, ctx, http.MethodPost, c.reps[2].url, sid, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`); !strings.Contains(body, "r2 echoed") {
		t.Fatalf("r2 after the restart: %s", body)
	}
	done := make(chan string, 1)
	go func() {
		_, body := do(t, ctx, http.MethodPost, c.reps[1].url, sid, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"block","arguments":{}}}`)
		done <- body
	}()
	waitOn(t, c.started, "block")
	if resp, _ := do(t, ctx, http.MethodPost, c.reps[2].url, sid, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"after restart"}}`); resp.StatusCode != 202 {
		t.Fatalf("cancel: %d", resp.StatusCode)
	}
	if cause := waitOn(t, c.causes, "the handler's end"); !strings.Contains(cause, "after restart") {
		t.Fatalf("cause %q", cause)
	}
	if body := waitOn(t, done, "the cancelled POST"); strings.Contains(body, `"id":2`) {
		t.Fatalf("answered: %s", body)
	}
}
