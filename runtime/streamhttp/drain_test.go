package streamhttp

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/cluster"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// drainFixture is two replicas sharing a MemorySessionStore and a
// MemoryBus. Their tools/call answers "echo" at once; "hold" reports its
// start and answers once release is closed; "block" reports its start and
// waits for its ctx, then reports the cause.
type drainFixture struct {
	reps    []*lifecycleFixture
	store   *cluster.MemorySessionStore
	release chan struct{}
	started chan string
	causes  chan error
	drained chan struct{} // closed when r0 logs that draining began
}

func newDrainFixture(t *testing.T) *drainFixture {
	t.Helper()
	d := &drainFixture{store: cluster.NewMemorySessionStore(), release: make(chan struct{}),
		started: make(chan string, 16), causes: make(chan error, 16), drained: make(chan struct{})}
	bus := cluster.NewMemoryBus()
	t.Cleanup(func() { _ = bus.Close() })
	for i := range 2 {
		register := func(c *jsonrpc2.Conn) []string {
			if c == nil {
				return []string{"tools/call"}
			}
			c.Handle("tools/call", func(ctx context.Context, r *jsonrpc2.Request) (any, error) {
				var p struct {
					Name string `json:"name"`
				}
				_ = json.Unmarshal(r.Params, &p)
				switch p.Name {
				case "hold":
					d.started <- "hold"
					select {
					case <-d.release:
					case <-ctx.Done():
						return nil, context.Cause(ctx)
					}
				case "block":
					d.started <- "block"
					<-ctx.Done()
					d.causes <- context.Cause(ctx)
					return nil, context.Cause(ctx)
				}
				return map[string]any{"content": []any{map[string]string{"type": "text", "text": "done " + p.Name}}}, nil
			})
			return []string{"tools/call"}
		}
		srv := session.NewServer(session.Implementation{Name: "drain-test", Version: "0"}, modernRevision(), register,
			session.WithLegacy(legacyRevision()), session.WithLogger(quiet()),
			session.WithCapability("tools", json.RawMessage(`{"listChanged":true}`)))
		opts := Options{Sessions: d.store, Bus: bus, Replica: "r" + string(rune('0'+i))}
		if i == 0 {
			opts.Logger = slog.New(&drainSignal{ch: d.drained})
		}
		d.reps = append(d.reps, (&lifecycleFixture{srv: srv}).serve(t, srv, opts))
	}
	return d
}

// drainSignal is a slog.Handler that closes ch at the record that says
// draining began: the event the test waits for instead of polling.
type drainSignal struct {
	ch   chan struct{}
	once sync.Once
}

func (h *drainSignal) Enabled(context.Context, slog.Level) bool { return true }
func (h *drainSignal) Handle(_ context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, "draining:") {
		h.once.Do(func() { close(h.ch) })
	}
	return nil
}
func (h *drainSignal) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *drainSignal) WithGroup(string) slog.Handler      { return h }

func modernCallHdr(name string) map[string]string {
	h := modernHdr("tools/call")
	h[HeaderName] = name
	return h
}

func modernCall(name string) string {
	return `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"` + name + `","arguments":{},` + modernMeta + `}}`
}

// TestDrain is must-show 2 of issue 35 at the Handler: once Drain begins,
// readiness fails and new work of both eras is refused with 503 and
// Retry-After while a notifications/cancelled is still taken; running
// requests that finish within the grace are answered; those still running
// at its end get an error naming the drain (and their handlers' ctx ends);
// the legacy session's record stays, and another replica continues the
// session without a new initialize.
func TestDrain(t *testing.T) {
	d := newDrainFixture(t)
	r0, r1 := d.reps[0], d.reps[1]
	probes := httptest.NewServer(r0.h.Probes())
	defer probes.Close()
	sid := initAt(t, r0.url, r0.url, nil)

	ctx := bounded(t)
	holdLegacy := postAsync(ctx, r0.url, legacyHdr(sid), callBody("2", "hold"))
	holdModern := postAsync(ctx, r0.url, modernCallHdr("hold"), modernCall("hold"))
	blockLegacy := postAsync(ctx, r0.url, legacyHdr(sid), callBody("3", "block"))
	blockModern := postAsync(ctx, r0.url, modernCallHdr("block"), modernCall("block"))
	cancelled := postAsync(ctx, r0.url, legacyHdr(sid), callBody("4", "block"))
	for range 5 {
		waitFor(t, d.started, "a call's start")
	}

	const grace = 1500 * time.Millisecond
	drained := make(chan error, 1)
	start := time.Now()
	go func() { drained <- r0.h.Drain(context.Background(), grace) }()
	waitFor(t, d.drained, "draining to begin")

	// Readiness fails at once; liveness does not.
	for path, want := range map[string]string{PathReadiness: "503 not ready: draining", PathLiveness: "200 ok"} {
		resp, err := http.Get(probes.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		if got := resp.Status[:3] + " " + strings.TrimSpace(readAll(t, resp)); got != want {
			t.Errorf("%s: %q, want %q", path, got, want)
		}
	}
	// New work of either era is refused, to be sent elsewhere.
	for what, c := range map[string]struct {
		hdr  map[string]string
		body string
	}{
		"modern call":  {modernCallHdr("echo"), modernCall("echo")},
		"initialize":   {nil, initBody},
		"legacy call":  {legacyHdr(sid), callBody("5", "echo")},
		"unknown sess": {legacyHdr("elsewhere"), `{"jsonrpc":"2.0","method":"notifications/initialized"}`},
	} {
		resp := post(t, ctx, r0.url, c.hdr, c.body)
		body := readAll(t, resp)
		if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "1" || !resp.Close || !strings.Contains(body, "draining") {
			t.Errorf("%s while draining: %d Retry-After %q Connection: close %v %s", what, resp.StatusCode, resp.Header.Get("Retry-After"), resp.Close, body)
		}
	}
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, r0.url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(HeaderSessionID, sid)
	addAuth(req)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != 503 {
		t.Errorf("GET stream while draining: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	// What ends running work is still taken: the client's cancel reaches
	// its handler with the client's reason, no answer.
	resp := post(t, ctx, r0.url, legacyHdr(sid), cancelBody("4", "user gave up"))
	if b := readAll(t, resp); resp.StatusCode != 202 {
		t.Errorf("cancel while draining: %d %s", resp.StatusCode, b)
	}
	if cause := waitFor(t, d.causes, "the cancelled call's end"); !strings.Contains(cause.Error(), "user gave up") {
		t.Errorf("cancelled call's cause: %v", cause)
	}
	if resp := <-cancelled; resp != nil {
		if b := readAll(t, resp); strings.Contains(b, `"result"`) || strings.Contains(b, "draining") {
			t.Errorf("the cancelled call was answered: %s", b)
		}
	}

	// Calls that finish within the grace are answered as usual.
	close(d.release)
	for what, ch := range map[string]<-chan *http.Response{"legacy": holdLegacy, "modern": holdModern} {
		resp := <-ch
		if resp == nil {
			t.Fatalf("%s hold: no response", what)
		}
		if b, m := rpcBody(t, resp); resp.StatusCode != 200 || m["result"] == nil {
			t.Errorf("%s hold finishing within the grace: %d %s", what, resp.StatusCode, b)
		}
	}

	// Those still running at its end are answered with the reason.
	for what, ch := range map[string]<-chan *http.Response{"legacy": blockLegacy, "modern": blockModern} {
		resp := <-ch
		if resp == nil {
			t.Fatalf("%s block: no response", what)
		}
		b, m := rpcBody(t, resp)
		if resp.StatusCode != 200 || m["error"] == nil || !strings.Contains(b, "ran past the drain grace") {
			t.Errorf("%s block past the grace: %d %s", what, resp.StatusCode, b)
		}
	}
	if err := waitFor(t, drained, "Drain to return"); err != nil {
		t.Fatalf("Drain: %v", err)
	}
	if took := time.Since(start); took < grace || took > grace+3*time.Second {
		t.Errorf("Drain returned after %v; the grace was %v, with calls running past it", took, grace)
	}
	for range 2 {
		// The modern one by the dispatcher's Close, the legacy one
		// abandoned with the drain's reason.
		var ce *jsonrpc2.CancelError
		if cause := waitFor(t, d.causes, "a blocked handler's end"); !errors.As(cause, &ce) ||
			(ce.Source != jsonrpc2.SourceClose && !(ce.Source == jsonrpc2.SourceLocal && strings.Contains(ce.Reason, "drain grace"))) {
			t.Errorf("blocked handler's cause: %v", cause)
		}
	}

	// The session's record stays; the other replica continues it.
	if r0.h.Sessions() != 0 {
		t.Errorf("drained replica holds %d sessions", r0.h.Sessions())
	}
	if _, err := d.store.Get(context.Background(), sid); err != nil {
		t.Fatalf("record after drain: %v", err)
	}
	resp = post(t, ctx, r1.url, legacyHdr(sid), callBody("6", "echo"))
	if b, m := rpcBody(t, resp); resp.StatusCode != 200 || m["result"] == nil {
		t.Fatalf("the session on the other replica: %d %s", resp.StatusCode, b)
	}
}

// TestDrainEndsListen: a subscriptions/listen is not waited for (it would
// hold every drain for its whole grace): Drain returns at once, and the
// stream ends with an error that tells its client to listen again.
func TestDrainEndsListen(t *testing.T) {
	d := newDrainFixture(t)
	r0 := d.reps[0]
	ctx := bounded(t)
	resp := post(t, ctx, r0.url, modernHdr("subscriptions/listen"),
		`{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},`+modernMeta+`}}`)
	if resp.StatusCode != 200 {
		t.Fatalf("listen: %d %s", resp.StatusCode, readAll(t, resp))
	}
	defer resp.Body.Close()
	s := newSSE(resp.Body)
	if ack := nextMessage(t, s); !strings.Contains(ack, "notifications/subscriptions/acknowledged") {
		t.Fatalf("listen: %s", ack)
	}
	start := time.Now()
	if err := r0.h.Drain(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("Drain waited %v for a listen stream", took)
	}
	if m := nextMessage(t, s); !strings.Contains(m, `"id":"L"`) || !strings.Contains(m, "subscription ended: server draining; listen again") {
		t.Fatalf("the listen stream ended with %s", m)
	}
}

// TestProbes: liveness is 200 whatever happens; readiness reflects its
// checks and the Handler's state; Drain with nothing running returns at
// once, not after its grace.
func TestProbes(t *testing.T) {
	f := newLifecycleFixture(t, Options{})
	var mu sync.Mutex
	down := errors.New("no route to nats")
	var failing error
	probes := httptest.NewServer(f.h.Probes(ReadyCheck{Name: "nats", Check: func(context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		return failing
	}}))
	defer probes.Close()
	get := func(path string) string {
		t.Helper()
		resp, err := http.Get(probes.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		return resp.Status[:3] + " " + strings.TrimSpace(readAll(t, resp))
	}
	if got := get(PathReadiness); got != "200 ready" {
		t.Fatalf("readiness: %q", got)
	}
	mu.Lock()
	failing = down
	mu.Unlock()
	if got := get(PathReadiness); got != "503 not ready: nats: no route to nats" {
		t.Fatalf("readiness with NATS down: %q", got)
	}
	if got := get(PathLiveness); got != "200 ok" {
		t.Fatalf("liveness with NATS down: %q", got)
	}
	if got := get("/other"); !strings.HasPrefix(got, "404") {
		t.Fatalf("other path: %q", got)
	}
	start := time.Now()
	if err := f.h.Drain(context.Background(), time.Minute); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("idle Drain took %v", took)
	}
	if got := get(PathReadiness); got != "503 not ready: closed" {
		t.Fatalf("readiness after drain: %q", got)
	}
	if got := get(PathLiveness); got != "200 ok" {
		t.Fatalf("liveness after drain: %q", got)
	}
}
