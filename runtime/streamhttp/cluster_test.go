package streamhttp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/cluster"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// These tests run three replicas (each its own session.Server behind
// NewHandler) sharing a MemorySessionStore and a MemoryBus, behind
// a round-robin httputil.ReverseProxy, and send raw HTTP to the proxy or to
// a chosen replica.

// clusterFixture is the replicas and the proxy in front of them.
type clusterFixture struct {
	store   *cluster.MemorySessionStore
	bus     *cluster.MemoryBus
	gate    *gateBus   // what the replicas' Handlers publish through
	sgate   *gateStore // what the replicas' Handlers read the store through
	reps    []*lifecycleFixture
	proxy   string
	started chan string // "<replica>:<id>" of each block handler as it starts
	causes  chan string // "<replica>:<cause>" as each block handler ends
}

func newClusterFixture(t *testing.T, n int, opts Options) *clusterFixture {
	return newClusterFixtureOf(t, n, opts, false)
}

// newClusterFixtureOf is newClusterFixture; legacyBase serves a 2025-11-25
// server (with resources/subscribe) instead of the dual-era one.
func newClusterFixtureOf(t *testing.T, n int, opts Options, legacyBase bool) *clusterFixture {
	t.Helper()
	c := &clusterFixture{store: cluster.NewMemorySessionStore(), bus: cluster.NewMemoryBus(),
		started: make(chan string, 64), causes: make(chan string, 64)}
	c.gate = &gateBus{Bus: c.bus}
	c.sgate = &gateStore{SessionStore: c.store}
	t.Cleanup(func() { _ = c.bus.Close() }) // after the replicas' cleanups (LIFO)
	var targets []*url.URL
	for i := range n {
		name := "r" + string(rune('0'+i))
		register := func(conn *jsonrpc2.Conn) []string {
			methods := []string{"tools/call", "resources/subscribe", "resources/unsubscribe"}
			if conn == nil {
				return methods
			}
			conn.Handle("tools/call", func(ctx context.Context, r *jsonrpc2.Request) (any, error) {
				var p struct {
					Name string `json:"name"`
				}
				_ = json.Unmarshal(r.Params, &p)
				if p.Name == "block" {
					c.started <- name + ":" + r.ID.String()
					<-ctx.Done()
					c.causes <- name + ":" + context.Cause(ctx).Error()
					return nil, context.Cause(ctx)
				}
				return map[string]any{"content": []any{map[string]string{"type": "text", "text": name + " echoed " + p.Name}}}, nil
			})
			for _, m := range []string{"resources/subscribe", "resources/unsubscribe"} {
				conn.Handle(m, func(context.Context, *jsonrpc2.Request) (any, error) { return json.RawMessage(`{}`), nil })
			}
			return methods
		}
		base, more := modernRevision(), []session.ServerOption{session.WithLegacy(legacyRevision())}
		if legacyBase {
			base, more = legacyRevision(), nil
			base.ServerMethods = map[string]string{"tools/call": "CallTool", "resources/subscribe": "Subscribe", "resources/unsubscribe": "Unsubscribe"}
		}
		srv := session.NewServer(session.Implementation{Name: "cluster-test", Version: "0"}, base, register,
			append(more, session.WithLogger(quiet()), session.WithBus(c.bus),
				session.WithCapability("tools", json.RawMessage(`{"listChanged":true}`)),
				session.WithCapability("prompts", json.RawMessage(`{"listChanged":true}`)))...)
		o := opts
		o.Sessions, o.Bus, o.Replica = c.sgate, c.gate, name
		f := (&lifecycleFixture{srv: srv}).serve(t, srv, o)
		c.reps = append(c.reps, f)
		u, _ := url.Parse(f.url)
		targets = append(targets, u)
	}
	var next atomic.Uint64
	proxy := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			u := targets[(next.Add(1)-1)%uint64(len(targets))]
			r.SetURL(&url.URL{Scheme: u.Scheme, Host: u.Host})
			r.Out.URL.Path = u.Path
		},
		FlushInterval: -1,
		ErrorLog:      nil,
	}
	ps := httptest.NewServer(proxy)
	t.Cleanup(ps.Close)
	c.proxy = ps.URL + "/mcp"
	return c
}

const initBody = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"t","version":"0"}}}`

// initAt initializes a legacy session at url (with extra headers) and sends
// notifications/initialized to then; it returns the session id.
func initAt(t *testing.T, url, then string, hdr map[string]string) string {
	t.Helper()
	resp := post(t, bounded(t), url, hdr, initBody)
	body := readAll(t, resp)
	sid := resp.Header.Get(HeaderSessionID)
	if resp.StatusCode != 200 || sid == "" || !strings.Contains(body, `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize: %d %q %s", resp.StatusCode, sid, body)
	}
	h := legacyHdr(sid)
	for k, v := range hdr {
		h[k] = v
	}
	resp = post(t, bounded(t), then, h, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if b := readAll(t, resp); resp.StatusCode != 202 {
		t.Fatalf("initialized: %d %q", resp.StatusCode, b)
	}
	return sid
}

func callBody(id, name string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + name + `","arguments":{}}}`
}

func cancelBody(id, reason string) string {
	return `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + id + `,"reason":"` + reason + `"}}`
}

func TestClusterAnyReplicaServesTheSession(t *testing.T) {
	c := newClusterFixture(t, 3, Options{})
	sid := initAt(t, c.proxy, c.proxy, nil) // initialize on r0, initialized on r1
	rec, err := c.store.Get(context.Background(), sid)
	if err != nil || rec.Revision != "2025-11-25" || !rec.Initialized || string(rec.ClientCapabilities) != `{"roots":{}}` || rec.Replica != "r0" {
		t.Fatalf("record %+v, %v", rec, err)
	}
	seen := map[string]bool{}
	for i := range 6 {
		resp := post(t, bounded(t), c.proxy, legacyHdr(sid), callBody(string(rune('1'+i)), "echo"))
		body, m := rpcBody(t, resp)
		if resp.StatusCode != 200 || m["result"] == nil {
			t.Fatalf("call %d: %d %s", i, resp.StatusCode, body)
		}
		seen[body[strings.Index(body, `"text":"`)+8:][:2]] = true
	}
	if len(seen) != 3 {
		t.Fatalf("answered by %v, want all three replicas", seen)
	}
	for i, r := range c.reps {
		if r.h.Sessions() != 1 {
			t.Errorf("replica %d holds %d sessions, want its copy", i, r.h.Sessions())
		}
	}
	// logging/setLevel on one replica reaches the record.
	resp := post(t, bounded(t), c.reps[2].url, legacyHdr(sid), `{"jsonrpc":"2.0","id":20,"method":"logging/setLevel","params":{"level":"debug"}}`)
	if body := readAll(t, resp); resp.StatusCode != 200 || !strings.Contains(body, `"result"`) {
		t.Fatalf("setLevel: %d %s", resp.StatusCode, body)
	}
	if rec, _ := c.store.Get(context.Background(), sid); rec.LogLevel != "debug" {
		t.Fatalf("log level in the record %q", rec.LogLevel)
	}
	// An unknown id is 404 on every replica.
	resp = post(t, bounded(t), c.proxy, legacyHdr("nope"), callBody("30", "echo"))
	if readAll(t, resp); resp.StatusCode != 404 {
		t.Fatalf("unknown session: %d", resp.StatusCode)
	}
	// Answered requests are no longer tracked for cancellation routing.
	for i, r := range c.reps {
		rp := r.h.share.(*replicas)
		rp.cmu.Lock()
		n := len(rp.live)
		rp.cmu.Unlock()
		if n != 0 {
			t.Errorf("replica %d still tracks %d answered requests", i, n)
		}
	}
}

// waitCause waits for a block handler's end and returns replica and cause.
func waitCause(t *testing.T, c *clusterFixture) (string, string) {
	t.Helper()
	rep, cause, _ := strings.Cut(waitFor(t, c.causes, "a handler's end"), ":")
	return rep, cause
}

func TestClusterCancellationForwarded(t *testing.T) {
	c := newClusterFixture(t, 3, Options{})
	sid := initAt(t, c.reps[0].url, c.reps[0].url, nil)
	ctx := bounded(t)
	done := postAsync(ctx, c.reps[1].url, legacyHdr(sid), callBody("5", "block"))
	if s := waitFor(t, c.started, "block on r1"); s != "r1:5" {
		t.Fatalf("started %s", s)
	}
	resp := post(t, ctx, c.reps[2].url, legacyHdr(sid), cancelBody("5", "user stop"))
	if b := readAll(t, resp); resp.StatusCode != 202 {
		t.Fatalf("cancel on r2: %d %s", resp.StatusCode, b)
	}
	rep, cause := waitCause(t, c)
	if rep != "r1" || !strings.Contains(cause, "user stop") {
		t.Fatalf("handler on %s ended with %q, want r1 with the client's reason", rep, cause)
	}
	r := waitFor(t, done, "the cancelled request's POST")
	if r == nil {
		t.Fatal("the cancelled request's POST failed")
	}
	if body := readAll(t, r); strings.Contains(body, `"id":5`) {
		t.Fatalf("a response was sent for the cancelled request: %s", body)
	}
	// A duplicate delivery (the bus may redeliver; a client may retry) is
	// harmless: nothing more ends, the session serves on.
	dup, _ := json.Marshal(busMsg{Origin: "r2", Session: sid, Params: json.RawMessage(`{"requestId":5,"reason":"user stop"}`)})
	_ = c.bus.Publish(ctx, SubjectCancel+cluster.SubjectToken(sid), dup)
	resp = post(t, ctx, c.reps[2].url, legacyHdr(sid), cancelBody("5", "user stop"))
	readAll(t, resp)
	resp = post(t, ctx, c.reps[1].url, legacyHdr(sid), callBody("6", "echo"))
	if body, m := rpcBody(t, resp); m["result"] == nil {
		t.Fatalf("after the duplicates: %s", body)
	}
	select {
	case s := <-c.causes:
		t.Fatalf("a handler ended again: %s", s)
	default:
	}
}

func TestClusterCancelBeforeItsRequest(t *testing.T) {
	c := newClusterFixture(t, 3, Options{})
	sid := initAt(t, c.reps[0].url, c.reps[0].url, nil)
	ctx := bounded(t)
	// The cancel reaches r2 before the request reaches r1: r1 keeps it for
	// CancelWindow and cancels the request on arrival.
	resp := post(t, ctx, c.reps[2].url, legacyHdr(sid), cancelBody(`"late"`, "changed my mind"))
	if readAll(t, resp); resp.StatusCode != 202 {
		t.Fatalf("cancel: %d", resp.StatusCode)
	}
	resp = post(t, ctx, c.reps[1].url, legacyHdr(sid), callBody(`"late"`, "block"))
	if body := readAll(t, resp); strings.Contains(body, `"late"`) {
		t.Fatalf("the request cancelled before it arrived was answered: %s", body)
	}
	// The handler may or may not have started; if it did, its ctx ended
	// with the client's reason.
	select {
	case <-c.started:
		if rep, cause := waitCause(t, c); rep != "r1" || !strings.Contains(cause, "changed my mind") {
			t.Fatalf("handler on %s ended with %q", rep, cause)
		}
	default:
	}
}

func TestClusterOwnerChecked(t *testing.T) {
	c := newClusterFixture(t, 2, Options{SessionOwner: func(r *http.Request) string { return r.Header.Get("X-Owner") }})
	sid := initAt(t, c.reps[0].url, c.reps[0].url, map[string]string{"X-Owner": "alice"})
	hdr := legacyHdr(sid)
	hdr["X-Owner"] = "mallory"
	resp := post(t, bounded(t), c.reps[1].url, hdr, callBody("1", "echo"))
	if readAll(t, resp); resp.StatusCode != 404 {
		t.Fatalf("another owner on another replica: %d, want 404", resp.StatusCode)
	}
	if c.reps[1].h.Sessions() != 0 {
		t.Fatal("a copy was made for another owner")
	}
	hdr["X-Owner"] = "alice"
	resp = post(t, bounded(t), c.reps[1].url, hdr, callBody("2", "echo"))
	if body, m := rpcBody(t, resp); m["result"] == nil {
		t.Fatalf("the owner on another replica: %s", body)
	}
}

func TestClusterDeleteOnAnotherReplica(t *testing.T) {
	c := newClusterFixture(t, 3, Options{})
	sid := initAt(t, c.reps[0].url, c.reps[1].url, nil)
	ctx := bounded(t)
	done := postAsync(ctx, c.reps[1].url, legacyHdr(sid), callBody("9", "block"))
	waitFor(t, c.started, "block on r1")
	req, _ := http.NewRequestWithContext(ctx, http.MethodDelete, c.reps[2].url, nil)
	req.Header.Set(HeaderSessionID, sid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("DELETE on r2: %v %v", resp, err)
	}
	resp.Body.Close()
	if rep, cause := waitCause(t, c); rep != "r1" || cause == "" {
		t.Fatalf("the running handler on %s: %q", rep, cause)
	}
	if r := waitFor(t, done, "the request's POST"); r != nil {
		r.Body.Close()
	}
	if _, err := c.store.Get(ctx, sid); !errors.Is(err, cluster.ErrSessionNotFound) {
		t.Fatalf("record after DELETE: %v", err)
	}
	for i, r := range c.reps {
		resp := post(t, ctx, r.url, legacyHdr(sid), callBody("10", "echo"))
		if readAll(t, resp); resp.StatusCode != 404 {
			t.Errorf("replica %d after DELETE: %d", i, resp.StatusCode)
		}
		if n := r.h.Sessions(); n != 0 {
			t.Errorf("replica %d still holds %d sessions", i, n)
		}
	}
}

// openClusterGet opens the standalone GET stream of a session.
func openClusterGet(t *testing.T, ctx context.Context, url, sid string) *sseReader {
	t.Helper()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(HeaderSessionID, sid)
	req.Header.Set(HeaderProtocolVersion, "2025-11-25")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET: %v %v", resp, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return newSSE(resp.Body)
}

// nextMessage is the next non-empty event's data (priming events skipped).
func nextMessage(t *testing.T, s *sseReader) string {
	t.Helper()
	for {
		if d := s.next(t); strings.TrimSpace(d) != "" {
			return d
		}
	}
}

func TestClusterFanOut(t *testing.T) {
	c := newClusterFixture(t, 3, Options{})
	ctx, cancel := context.WithCancel(bounded(t))
	defer cancel()
	var streams []*sseReader
	for i, r := range c.reps {
		sid := initAt(t, c.reps[(i+1)%3].url, r.url, nil)
		streams = append(streams, openClusterGet(t, ctx, r.url, sid))
	}
	for i, r := range c.reps {
		resp := post(t, ctx, r.url, modernHdr("subscriptions/listen"),
			`{"jsonrpc":"2.0","id":"L`+string(rune('0'+i))+`","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true,"promptsListChanged":true},`+modernMeta+`}}`)
		if resp.StatusCode != 200 {
			t.Fatalf("listen on r%d: %d %s", i, resp.StatusCode, readAll(t, resp))
		}
		t.Cleanup(func() { resp.Body.Close() })
		s := newSSE(resp.Body)
		if ack := nextMessage(t, s); !strings.Contains(ack, "notifications/subscriptions/acknowledged") {
			t.Fatalf("listen on r%d: %s", i, ack)
		}
		streams = append(streams, s)
	}
	// Raised on r1, then on r2: every stream on every replica gets each
	// once, in order (a duplicate would come before the second).
	// (Best effort: the copies of sessions without a GET stream on the
	// replica that raises it report their dropped notification.)
	_ = c.reps[1].srv.NotifyListChanged("tools")
	_ = c.reps[2].srv.NotifyListChanged("prompts")
	for i, s := range streams {
		if m := nextMessage(t, s); !strings.Contains(m, "notifications/tools/list_changed") {
			t.Fatalf("stream %d first got %s", i, m)
		}
		if m := nextMessage(t, s); !strings.Contains(m, "notifications/prompts/list_changed") {
			t.Fatalf("stream %d then got %s, want prompts (once each)", i, m)
		}
	}
}

// TestClusterModernCancellationIsLocal: in 2026-07-28 the cancellation is
// the closed response stream, which the proxy passes on to the replica
// holding it, the one running the request: nothing goes over the bus.
func TestClusterModernCancellationIsLocal(t *testing.T) {
	c := newClusterFixture(t, 3, Options{})
	var published atomic.Int32
	sub, _ := c.bus.Subscribe(SubjectCancel+">", func(string, []byte) { published.Add(1) })
	defer sub.Unsubscribe()
	hdr := modernHdr("tools/call")
	hdr[HeaderName] = "block"
	ctx, cancel := context.WithCancel(bounded(t))
	done := postAsync(ctx, c.proxy, hdr, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"block","arguments":{},`+modernMeta+`}}`)
	rep, _, _ := strings.Cut(waitFor(t, c.started, "block"), ":")
	cancel()
	r, cause := waitCause(t, c)
	if r != rep || !strings.Contains(cause, "stream") {
		t.Fatalf("handler on %s (started on %s) ended with %q, want its stream's close", r, rep, cause)
	}
	if resp := waitFor(t, done, "the POST"); resp != nil {
		resp.Body.Close()
	}
	if n := published.Load(); n != 0 {
		t.Fatalf("%d cancellations published for a modern request", n)
	}
}

// TestClusterLegacyResourceSubscription: a resources/subscribe accepted on
// one replica reaches the record and the copy on the replica holding the
// GET stream, so resources/updated raised on a third replica arrives there,
// once; unsubscribe stops it.
func TestClusterLegacyResourceSubscription(t *testing.T) {
	c := newClusterFixtureOf(t, 3, Options{}, true)
	sid := initAt(t, c.reps[0].url, c.reps[0].url, nil)
	ctx, cancel := context.WithCancel(bounded(t))
	defer cancel()
	get := openClusterGet(t, ctx, c.reps[2].url, sid) // r2 adopts the session first
	resp := post(t, ctx, c.reps[0].url, legacyHdr(sid), `{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"file:///a"}}`)
	if body := readAll(t, resp); !strings.Contains(body, `"result"`) {
		t.Fatalf("subscribe: %s", body)
	}
	if rec, _ := c.store.Get(ctx, sid); len(rec.ResourceSubscriptions) != 1 || rec.ResourceSubscriptions[0] != "file:///a" {
		t.Fatalf("record subscriptions %v", rec.ResourceSubscriptions)
	}
	// r1 raises it before it ever saw the session.
	_ = c.reps[1].srv.NotifyResourceUpdated("file:///a")
	if m := nextMessage(t, get); !strings.Contains(m, `"uri":"file:///a"`) {
		t.Fatalf("GET on r2 got %s", m)
	}
	resp = post(t, ctx, c.reps[1].url, legacyHdr(sid), `{"jsonrpc":"2.0","id":2,"method":"resources/unsubscribe","params":{"uri":"file:///a"}}`)
	if body := readAll(t, resp); !strings.Contains(body, `"result"`) {
		t.Fatalf("unsubscribe: %s", body)
	}
	_ = c.reps[0].srv.NotifyResourceUpdated("file:///a")
	_ = c.reps[0].srv.NotifyListChanged("tools") // a marker: anything before it is a stray
	if m := nextMessage(t, get); !strings.Contains(m, "notifications/tools/list_changed") {
		t.Fatalf("GET on r2 got %s after unsubscribe (or a duplicate)", m)
	}
}

// eventually polls cond until it holds (the janitor has no event to wait
// on) or fails after 10 s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestClusterIdleAndHandshake: a replica that saw only initialize does not
// end the session for its handshake (notifications/initialized went to
// another replica), and drops only its idle local copy while the session
// is used elsewhere; once idle everywhere the record goes too.
func TestClusterIdleAndHandshake(t *testing.T) {
	c := newClusterFixture(t, 2, Options{HandshakeTimeout: 100 * time.Millisecond,
		SessionIdleTimeout: 300 * time.Millisecond, ActiveInterval: 30 * time.Millisecond})
	sid := initAt(t, c.reps[0].url, c.reps[1].url, nil)
	ctx := bounded(t)
	for i := 0; c.reps[0].h.Sessions() != 0; i++ {
		if i > 1000 {
			t.Fatal("r0 kept its idle copy")
		}
		resp := post(t, ctx, c.reps[1].url, legacyHdr(sid), callBody("1", "echo"))
		if body := readAll(t, resp); resp.StatusCode != 200 {
			t.Fatalf("call %d on r1: %d %s (the session was ended)", i, resp.StatusCode, body)
		}
		time.Sleep(20 * time.Millisecond) // a client using the session now and then
	}
	if _, err := c.store.Get(ctx, sid); err != nil {
		t.Fatalf("the record went with r0's idle copy: %v", err)
	}
	resp := post(t, ctx, c.reps[0].url, legacyHdr(sid), callBody("2", "echo"))
	if body := readAll(t, resp); resp.StatusCode != 200 {
		t.Fatalf("r0 after dropping its copy: %d %s", resp.StatusCode, body)
	}
	eventually(t, "the record of the idle session to go", func() bool {
		_, err := c.store.Get(ctx, sid)
		return errors.Is(err, cluster.ErrSessionNotFound)
	})
}

// TestClusterCancelRacesItsRequest: requests POSTed to r1 with their
// cancels POSTed to r2 at once, in either order of arrival: every one ends
// unanswered, none hangs.
func TestClusterCancelRacesItsRequest(t *testing.T) {
	c := newClusterFixture(t, 3, Options{})
	sid := initAt(t, c.reps[0].url, c.reps[0].url, nil)
	ctx := bounded(t)
	const n = 12
	var dones []<-chan *http.Response
	for i := range n {
		id := string(rune('a' + i))
		dones = append(dones, postAsync(ctx, c.reps[1].url, legacyHdr(sid), callBody(`"`+id+`"`, "block")))
		cancelled := postAsync(ctx, c.reps[2].url, legacyHdr(sid), cancelBody(`"`+id+`"`, "race"))
		if r := waitFor(t, cancelled, "the cancel's 202"); r == nil || r.StatusCode != 202 {
			t.Fatalf("cancel %s: %v", id, r)
		} else {
			r.Body.Close()
		}
	}
	for i, done := range dones {
		r := waitFor(t, done, "a cancelled request's POST")
		if r == nil {
			t.Fatalf("request %d failed", i)
		}
		if body := readAll(t, r); strings.Contains(body, `"result"`) || strings.Contains(body, `"error"`) {
			t.Fatalf("request %d was answered: %s", i, body)
		}
	}
}

// gateBus is a Bus whose Publish of forwarded cancellations can be made to
// fail, as natscluster's durable bus fails when its stream does not
// acknowledge (a NATS server down past the publish timeout).
type gateBus struct {
	cluster.Bus
	down atomic.Bool
}

func (g *gateBus) Publish(ctx context.Context, subject string, data []byte) error {
	if g.down.Load() && strings.HasPrefix(subject, SubjectCancel) {
		return errors.New("stream did not acknowledge")
	}
	return g.Bus.Publish(ctx, subject, data)
}

// TestClusterCancelRefusedWhenBusDown: a cancel POST whose forwarding the
// bus does not accept is answered 503 (not 202: it may reach no replica),
// the request runs on; sent again once the bus is back, it is accepted
// and cancels the request, which is never answered.
func TestClusterCancelRefusedWhenBusDown(t *testing.T) {
	c := newClusterFixture(t, 3, Options{})
	sid := initAt(t, c.reps[0].url, c.reps[0].url, nil)
	ctx := bounded(t)
	done := postAsync(ctx, c.reps[1].url, legacyHdr(sid), callBody("8", "block"))
	if s := waitFor(t, c.started, "block on r1"); s != "r1:8" {
		t.Fatalf("started %s", s)
	}
	c.gate.down.Store(true)
	resp := post(t, ctx, c.reps[2].url, legacyHdr(sid), cancelBody("8", "first try"))
	if b := readAll(t, resp); resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" || !strings.Contains(b, "send it again") {
		t.Fatalf("cancel with the bus down: %d %q %s, want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"), b)
	}
	select {
	case s := <-c.causes:
		t.Fatalf("a refused cancellation ended a handler: %s", s)
	default:
	}
	c.gate.down.Store(false)
	resp = post(t, ctx, c.reps[2].url, legacyHdr(sid), cancelBody("8", "second try"))
	if b := readAll(t, resp); resp.StatusCode != 202 {
		t.Fatalf("cancel with the bus back: %d %s", resp.StatusCode, b)
	}
	rep, cause := waitCause(t, c)
	if rep != "r1" || !strings.Contains(cause, "second try") {
		t.Fatalf("handler on %s ended with %q, want r1 with the retried reason", rep, cause)
	}
	r := waitFor(t, done, "the cancelled request's POST")
	if r == nil {
		t.Fatal("the cancelled request's POST failed")
	}
	if body := readAll(t, r); strings.Contains(body, `"id":8`) {
		t.Fatalf("a response was sent for the cancelled request: %s", body)
	}
}

// gateStore is a SessionStore whose reads can be made to fail, as
// natscluster's fails while the NATS server is down.
type gateStore struct {
	cluster.SessionStore
	down atomic.Bool
}

func (g *gateStore) Get(ctx context.Context, id string) (cluster.SessionRecord, error) {
	if g.down.Load() {
		return cluster.SessionRecord{}, errors.New("store unreachable")
	}
	return g.SessionStore.Get(ctx, id)
}

// TestClusterStoreDownIsNotUnknownSession: a replica that does not hold a
// session and cannot read the store answers 503 (try again), not 404
// (which tells a client its session is gone); once the store is back, the
// same POST is served.
func TestClusterStoreDownIsNotUnknownSession(t *testing.T) {
	c := newClusterFixture(t, 3, Options{})
	sid := initAt(t, c.reps[0].url, c.reps[0].url, nil)
	ctx := bounded(t)
	c.sgate.down.Store(true)
	resp := post(t, ctx, c.reps[1].url, legacyHdr(sid), callBody("1", "echo"))
	if b := readAll(t, resp); resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("store down: %d %s, want 503 with Retry-After", resp.StatusCode, b)
	}
	c.sgate.down.Store(false)
	resp = post(t, ctx, c.reps[1].url, legacyHdr(sid), callBody("2", "echo"))
	if body, m := rpcBody(t, resp); m["result"] == nil {
		t.Fatalf("store back: %s", body)
	}
}
