package streamhttp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The policies of the two eras, as the generated packages define them
// (mcp20251125.Policy, mcp20260728.Policy); written out here so the runtime
// package's tests do not depend on generated code, but for the cancellation
// decoders, which only generated code has (export_test.go).
func legacyPolicy(side jsonrpc2.Side) jsonrpc2.Policy {
	p := jsonrpc2.DefaultPolicy()
	p.Side = side
	p.Cancelled = legacyDecoder
	return p
}

func modernPolicy(side jsonrpc2.Side) jsonrpc2.Policy {
	return jsonrpc2.Policy{
		Side:                     side,
		CancelledMethod:          "notifications/cancelled",
		ProgressMethod:           "notifications/progress",
		ClientCancels:            jsonrpc2.CancelScope{OwnRequests: jsonrpc2.MethodSet{All: true}},
		ServerCancels:            jsonrpc2.CancelScope{PeerRequests: jsonrpc2.MethodSet{Methods: []string{"subscriptions/listen"}}},
		DisconnectIsCancellation: true,
		Cancelled:                modernDecoder,
	}
}

func quiet() *slog.Logger {
	return slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelError}))
}

// ended is what a handler saw when its context ended.
type ended struct {
	id    string
	cause error
	// notifyErr is the error of a notification the handler tried to send
	// after its context ended: it must fail (nothing is written after).
	notifyErr error
}

// fixture is a Handler with test handlers and channels reporting what they
// saw, so tests wait on events instead of sleeping.
type fixture struct {
	h       *Handler
	srv     *httptest.Server
	url     string
	started chan string          // id of each sleep handler as it starts
	ctxs    chan context.Context // the ctx of each sleep handler as it starts
	ended   chan ended
	events  chan jsonrpc2.Event
	logs    chan string
	conns   chan *jsonrpc2.Conn // every Conn the factory built
	answers chan error          // ask: the outcome of the server's own call
	late    *lateWrites
	// connOpts are added to every Conn's options (set before the first
	// request).
	connOpts []jsonrpc2.Option
}

func newFixture(t *testing.T, opts Options) *fixture {
	t.Helper()
	return newFixtureAuth(t, opts, false)
}

// newFixtureState returns a fixture with its channels made, and opts with
// the fixtures' defaults (a quiet logger, the test revisions), for a
// constructor that then serves it.
func newFixtureState(opts Options) (*fixture, Options) {
	f := &fixture{
		started: make(chan string, 64),
		ctxs:    make(chan context.Context, 64),
		ended:   make(chan ended, 64),
		events:  make(chan jsonrpc2.Event, 256),
		logs:    make(chan string, 256),
		conns:   make(chan *jsonrpc2.Conn, 256),
		answers: make(chan error, 16),
	}
	if opts.Logger == nil {
		opts.Logger = quiet()
	}
	if opts.Revisions == nil {
		opts.Revisions = testRevs()
	}
	return f, opts
}

// newFixtureAuth is newFixture, behind runtime/auth's resource server when
// withAuth (authmode_test.go): post and postAsync then send a valid token.
func newFixtureAuth(t *testing.T, opts Options, withAuth bool) *fixture {
	t.Helper()
	f, opts := newFixtureState(opts)
	f.srv = httptest.NewUnstartedServer(nil)
	f.url = "http://" + f.srv.Listener.Addr().String() + "/mcp"
	front := func(h http.Handler) http.Handler { return h }
	if withAuth {
		front = behindAuth(t, f.url, &opts)
	}
	f.h = newHandler(f.newConn, opts)
	f.late = &lateWrites{next: f.h}
	f.srv.Config.Handler = front(f.late)
	f.srv.Start()
	if withAuth {
		checkAuthFront(t, f)
	}
	t.Cleanup(func() {
		f.srv.CloseClientConnections()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := f.h.Close(ctx); err != nil {
			t.Errorf("Handler.Close: %v", err)
		}
		f.srv.Close()
		if n := f.late.count(); n > 0 {
			t.Errorf("%d writes after ServeHTTP returned", n)
		}
	})
	return f
}

func (f *fixture) newConn(values context.Context, t jsonrpc2.Transport, era Era) *jsonrpc2.Conn {
	pol := legacyPolicy(jsonrpc2.SideServer)
	if era == EraModern {
		pol = modernPolicy(jsonrpc2.SideServer)
	}
	opts := append([]jsonrpc2.Option{jsonrpc2.WithBaseContext(values), jsonrpc2.WithPolicy(pol),
		jsonrpc2.WithLogger(slog.New(&chanHandler{ch: f.logs})),
		jsonrpc2.WithObserver(func(e jsonrpc2.Event) {
			select {
			case f.events <- e:
			default:
			}
		})}, f.connOpts...)
	conn := jsonrpc2.NewConn(t, opts...)
	conn.Handle("initialize", func(ctx context.Context, r *jsonrpc2.Request) (any, error) {
		return map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "serverInfo": map[string]string{"name": "t", "version": "0"}}, nil
	})
	// server/discover, which every modern server implements and by which
	// Detect tells a modern server from a legacy one.
	conn.Handle("server/discover", func(ctx context.Context, r *jsonrpc2.Request) (any, error) {
		return map[string]any{"supportedVersions": []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"}, "capabilities": map[string]any{}}, nil
	})
	conn.Handle("echo", func(ctx context.Context, r *jsonrpc2.Request) (any, error) {
		return map[string]json.RawMessage{"params": r.Params}, nil
	})
	conn.Handle("tools/call", func(ctx context.Context, r *jsonrpc2.Request) (any, error) {
		return map[string]any{"content": []any{}}, nil
	})
	conn.Handle("progress", func(ctx context.Context, r *jsonrpc2.Request) (any, error) {
		if err := conn.Notify(ctx, "notifications/progress", map[string]any{"progressToken": 1, "progress": 1}); err != nil {
			return nil, err
		}
		return map[string]string{"done": "yes"}, nil
	})
	// burst sends n progress notifications (progress 1..n, each with pad
	// bytes of message), then answers: a long stream to cut mid-way.
	conn.Handle("burst", func(ctx context.Context, r *jsonrpc2.Request) (any, error) {
		var p struct{ N, Pad int }
		_ = json.Unmarshal(r.Params, &p)
		pad := strings.Repeat("x", p.Pad)
		for i := 1; i <= p.N; i++ {
			if err := conn.Notify(ctx, "notifications/progress", map[string]any{"progressToken": r.ID.String(), "progress": i, "message": pad}); err != nil {
				return nil, err
			}
		}
		return map[string]int{"n": p.N}, nil
	})
	sleep := func(ctx context.Context, r *jsonrpc2.Request) (any, error) {
		select {
		case f.ctxs <- ctx:
		default:
		}
		f.started <- r.ID.String()
		<-ctx.Done()
		// Try to write after the cancellation: must not reach the wire.
		err := conn.Notify(ctx, "notifications/progress", map[string]any{"progressToken": 1, "progress": 2})
		f.ended <- ended{id: r.ID.String(), cause: context.Cause(ctx), notifyErr: err}
		return map[string]string{"late": "result"}, nil
	}
	conn.Handle("sleep", sleep)
	conn.Handle("subscriptions/listen", func(ctx context.Context, r *jsonrpc2.Request) (any, error) {
		if err := conn.Notify(ctx, "notifications/tools/list_changed", map[string]any{}); err != nil {
			return nil, err
		}
		return sleep(ctx, r)
	})
	conn.Handle("ask", func(ctx context.Context, r *jsonrpc2.Request) (any, error) {
		var p struct {
			TimeoutMS int `json:"timeoutMs"`
		}
		_ = json.Unmarshal(r.Params, &p)
		var opts []jsonrpc2.CallOption
		if p.TimeoutMS > 0 {
			opts = append(opts, jsonrpc2.WithTimeout(time.Duration(p.TimeoutMS)*time.Millisecond))
		}
		var res json.RawMessage
		err := conn.Call(ctx, "sampling/createMessage", map[string]any{"q": 1}, &res, opts...)
		f.answers <- err
		if err != nil {
			return nil, err
		}
		return map[string]json.RawMessage{"answer": res}, nil
	})
	f.conns <- conn
	return conn
}

// chanHandler is a slog.Handler that sends each record's message and
// attributes as one line, so tests can wait for a log line.
type chanHandler struct {
	ch chan string
}

func (h *chanHandler) Enabled(context.Context, slog.Level) bool { return true }
func (h *chanHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool { b.WriteString(" " + a.String()); return true })
	select {
	case h.ch <- b.String():
	default:
	}
	return nil
}
func (h *chanHandler) WithAttrs(a []slog.Attr) slog.Handler { return h }
func (h *chanHandler) WithGroup(string) slog.Handler        { return h }

// lateWrites counts writes to a ResponseWriter after ServeHTTP returned:
// every one would be a message sent after its stream ended.
type lateWrites struct {
	next http.Handler
	mu   sync.Mutex
	n    int
	reqs []string // "METHOD body" of every request, for wire assertions
}

func (l *lateWrites) requests() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.reqs)
}

func (l *lateWrites) count() int { l.mu.Lock(); defer l.mu.Unlock(); return l.n }

func (l *lateWrites) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	l.mu.Lock()
	l.reqs = append(l.reqs, r.Method+" "+string(body))
	l.mu.Unlock()
	lw := &lateWriter{ResponseWriter: w, l: l}
	l.next.ServeHTTP(lw, r)
	lw.mu.Lock()
	lw.returned = true
	lw.mu.Unlock()
}

type lateWriter struct {
	http.ResponseWriter
	l        *lateWrites
	mu       sync.Mutex
	returned bool
}

func (w *lateWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.returned {
		w.l.mu.Lock()
		w.l.n++
		w.l.mu.Unlock()
		return 0, errors.New("write after return")
	}
	return w.ResponseWriter.Write(b)
}

func (w *lateWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// postAsync sends a POST on a goroutine; the channel gets the response, or
// nil when the request failed (e.g. the test cut the connection).
func postAsync(ctx context.Context, url string, hdr map[string]string, body string) <-chan *http.Response {
	ch := make(chan *http.Response, 1)
	go func() {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		addAuth(req)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			resp = nil
		}
		ch <- resp
	}()
	return ch
}

// post sends one raw POST and returns the response.
func post(t *testing.T, ctx context.Context, url string, hdr map[string]string, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	addAuth(req)
	for k, v := range hdr {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST: %v", err)
	}
	return resp
}

func readAll(t *testing.T, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// initSession initializes a legacy session and returns its id.
func (f *fixture) initSession(t *testing.T) string {
	t.Helper()
	resp := post(t, context.Background(), f.url, nil,
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	body := readAll(t, resp)
	if resp.StatusCode != 200 || !strings.Contains(body, `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	sid := resp.Header.Get(HeaderSessionID)
	if sid == "" {
		t.Fatal("initialize response has no Mcp-Session-Id")
	}
	resp = post(t, context.Background(), f.url, map[string]string{HeaderSessionID: sid, HeaderProtocolVersion: "2025-11-25"},
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if b := readAll(t, resp); resp.StatusCode != 202 || b != "" {
		t.Fatalf("initialized: %d %q", resp.StatusCode, b)
	}
	return sid
}

func legacyHdr(sid string) map[string]string {
	return map[string]string{HeaderSessionID: sid, HeaderProtocolVersion: "2025-11-25"}
}

const modernMeta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}`

func modernHdr(method string) map[string]string {
	return map[string]string{HeaderProtocolVersion: "2026-07-28", HeaderMethod: method}
}

// sseReader reads events from a response body one at a time.
type sseReader struct {
	ch  chan []byte
	err chan error
}

func newSSE(body io.Reader) *sseReader {
	s := &sseReader{ch: make(chan []byte, 16), err: make(chan error, 1)}
	go func() {
		s.err <- readEvents(body, 1<<20, func(d []byte) error { s.ch <- bytes.Clone(d); return nil })
		close(s.ch)
	}()
	return s
}

func (s *sseReader) next(t *testing.T) string {
	t.Helper()
	select {
	case d, ok := <-s.ch:
		if !ok {
			t.Fatalf("stream ended: %v", <-s.err)
		}
		return string(d)
	case <-time.After(10 * time.Second):
		t.Fatal("timed out waiting for an SSE event")
	}
	return ""
}

func waitFor[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
	var zero T
	return zero
}

// waitLog waits for a log line containing s.
func (f *fixture) waitLog(t *testing.T, s string) {
	t.Helper()
	for {
		if l := waitFor(t, f.logs, "log line "+s); strings.Contains(l, s) {
			return
		}
	}
}

// waitEvent waits for an observer event matching ok.
func (f *fixture) waitEvent(t *testing.T, ok func(jsonrpc2.Event) bool) jsonrpc2.Event {
	t.Helper()
	for {
		if e := waitFor(t, f.events, "observer event"); ok(e) {
			return e
		}
	}
}

var _ = bufio.NewReader
