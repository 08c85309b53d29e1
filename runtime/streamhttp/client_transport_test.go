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

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// clientOn starts a modern client Conn on c, closed with the test.
func clientOn(t *testing.T, c *ClientTransport) *jsonrpc2.Conn {
	t.Helper()
	conn := jsonrpc2.NewConn(c, jsonrpc2.WithPolicy(modernPolicy(jsonrpc2.SideClient)), jsonrpc2.WithLogger(quiet()))
	conn.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		conn.Close(ctx)
	})
	return conn
}

func clientConn(t *testing.T, f *fixture, era Era) (*jsonrpc2.Conn, *ClientTransport) {
	t.Helper()
	c, err := Dial(context.Background(), f.url, ClientOptions{Revisions: testRevs(), Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	if c.Era() != era {
		t.Fatalf("detected %v, want %v", c.Era(), era)
	}
	pol := legacyPolicy(jsonrpc2.SideClient)
	if era == EraModern {
		pol = modernPolicy(jsonrpc2.SideClient)
	}
	conn := jsonrpc2.NewConn(c, jsonrpc2.WithPolicy(pol), jsonrpc2.WithLogger(quiet()))
	conn.Handle("sampling/createMessage", func(ctx context.Context, r *jsonrpc2.Request) (any, error) {
		return map[string]string{"from": "client"}, nil
	})
	conn.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		conn.Close(ctx)
	})
	return conn, c
}

// A server that answers server/discover is modern; one that answers it
// with -32601 (even with the 404 a modern server gives removed methods) is
// not, since every modern server implements it.
func TestDetect(t *testing.T) {
	f := newFixture(t, Options{})
	d, err := Detect(context.Background(), f.url, ClientOptions{Revisions: testRevs()})
	if err != nil || d.Era != EraModern || d.Version != "2026-07-28" || d.Status != 200 || len(d.Supported) != 4 {
		t.Fatalf("dual-era: %+v %v", d, err)
	}
	unknown := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"jsonrpc":"2.0","id":"mcpgen-era-probe","error":{"code":-32601,"message":"method not found"}}`))
	}))
	defer unknown.Close()
	d, err = Detect(context.Background(), unknown.URL, ClientOptions{Revisions: testRevs()})
	if err != nil || d.Era != EraLegacy {
		t.Fatalf("server/discover unknown: %+v %v", d, err)
	}
	// A server/discover that lists only legacy versions (go-sdk v1.8's
	// sessionful handler) is a server to speak legacy to.
	legacyList := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"jsonrpc":"2.0","id":"mcpgen-era-probe","result":{"supportedVersions":["2025-11-25","2025-06-18"]}}`))
	}))
	defer legacyList.Close()
	d, err = Detect(context.Background(), legacyList.URL, ClientOptions{Revisions: testRevs()})
	if err != nil || d.Era != EraLegacy {
		t.Fatalf("discover listing legacy versions: %+v %v", d, err)
	}
	g := newFixture(t, Options{ModernVersions: []string{}})
	d, err = Detect(context.Background(), g.url, ClientOptions{Revisions: testRevs()})
	if err != nil || d.Era != EraLegacy {
		t.Fatalf("legacy-only: %+v %v", d, err)
	}
	// A modern server that does not speak our modern version, but a legacy
	// one: its 400 -32022 lists what it supports and the client goes legacy.
	h := newFixture(t, Options{ModernVersions: []string{"2027-01-01"}})
	d, err = Detect(context.Background(), h.url, ClientOptions{Revisions: testRevs()})
	if err != nil || d.Era != EraLegacy || len(d.Supported) == 0 {
		t.Fatalf("future-only modern: %+v %v", d, err)
	}
}

// Modern client: cancelling the caller's ctx closes the request's stream
// (the server's handler sees the disconnect) and nothing else is POSTed.
func TestClientModernCancelClosesStream(t *testing.T) {
	f := newFixture(t, Options{})
	conn, _ := clientConn(t, f, EraModern)
	var out json.RawMessage
	if err := conn.Call(context.Background(), "echo", map[string]int{"x": 1}, &out); err != nil || !strings.Contains(string(out), `"x":1`) {
		t.Fatalf("echo: %s %v", out, err)
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- conn.Call(ctx, "sleep", map[string]any{}, nil) }()
	waitFor(t, f.started, "sleep start")
	cancel(errors.New("user pressed stop"))
	if err := waitFor(t, errc, "call return"); !errors.Is(err, context.Canceled) {
		t.Fatalf("call: %v", err)
	}
	e := waitFor(t, f.ended, "handler end")
	var ce *jsonrpc2.CancelError
	if !errors.As(e.cause, &ce) || ce.Source != jsonrpc2.SourceStreamClosed {
		t.Fatalf("server cause %v", e.cause)
	}
	// A timeout does the same.
	err := conn.Call(context.Background(), "sleep", map[string]any{}, nil, jsonrpc2.WithTimeout(30*time.Millisecond))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("timeout: %v", err)
	}
	waitFor(t, f.ended, "handler end after timeout")
	for _, r := range f.late.requests() {
		if strings.Contains(r, "notifications/cancelled") {
			t.Errorf("modern client sent %s", r)
		}
		if !strings.HasPrefix(r, "POST ") {
			t.Errorf("modern client sent %s", r)
		}
	}
}

// Legacy client: cancelling POSTs notifications/cancelled exactly once with
// the reason, even when Close follows at once; Close DELETEs the session.
func TestClientLegacyCancelOnceAndDelete(t *testing.T) {
	f := newFixture(t, Options{ModernVersions: []string{}})
	conn, c := clientConn(t, f, EraLegacy)
	var init json.RawMessage
	if err := conn.Call(context.Background(), "initialize", map[string]any{"protocolVersion": "2025-11-25"}, &init); err != nil {
		t.Fatal(err)
	}
	if err := conn.Notify(context.Background(), "notifications/initialized", nil); err != nil {
		t.Fatal(err)
	}
	if c.SessionID() == "" {
		t.Fatal("no session id")
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- conn.Call(ctx, "sleep", map[string]any{}, nil) }()
	waitFor(t, f.started, "sleep start")
	cancel(errors.New("user pressed stop"))
	<-errc
	cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer ccancel()
	if err := conn.Close(cctx); err != nil {
		t.Fatal(err)
	}
	e := waitFor(t, f.ended, "handler end")
	var ce *jsonrpc2.CancelError
	if !errors.As(e.cause, &ce) || ce.Source != jsonrpc2.SourcePeer || ce.Reason != "user pressed stop" {
		t.Fatalf("server cause %v", e.cause)
	}
	cancels, deletes := 0, 0
	for _, r := range f.late.requests() {
		if strings.Contains(r, "notifications/cancelled") {
			cancels++
		}
		if strings.HasPrefix(r, "DELETE") {
			deletes++
		}
	}
	if cancels != 1 || deletes != 1 {
		t.Fatalf("%d cancellations, %d DELETEs; want 1 and 1", cancels, deletes)
	}
	if f.h.Sessions() != 0 {
		t.Fatal("session still alive after Close")
	}
}

// The legacy client answers a server request that arrives on a response
// stream, so a server-to-client call completes.
func TestClientLegacyServerRequest(t *testing.T) {
	f := newFixture(t, Options{ModernVersions: []string{}})
	conn, _ := clientConn(t, f, EraLegacy)
	if err := conn.Call(context.Background(), "initialize", map[string]any{}, nil); err != nil {
		t.Fatal(err)
	}
	var out json.RawMessage
	if err := conn.Call(context.Background(), "ask", map[string]any{}, &out); err != nil || string(out) != `{"answer":{"from":"client"}}` {
		t.Fatalf("ask: %s %v", out, err)
	}
}

var _ = slog.Default

// SSE responses reach the caller: the progress notification first, then
// the result, in both eras.
func TestClientSSEResponse(t *testing.T) {
	for _, era := range []Era{EraLegacy, EraModern} {
		t.Run(era.String(), func(t *testing.T) {
			opts := Options{}
			if era == EraLegacy {
				opts.ModernVersions = []string{}
			}
			f := newFixture(t, opts)
			conn, _ := clientConn(t, f, era)
			if era == EraLegacy {
				if err := conn.Call(context.Background(), "initialize", map[string]any{}, nil); err != nil {
					t.Fatal(err)
				}
			}
			got := make(chan struct{}, 1)
			conn.HandleNotification("notifications/progress", func(context.Context, *jsonrpc2.Notification) { got <- struct{}{} })
			var out json.RawMessage
			if err := conn.Call(context.Background(), "progress", map[string]any{}, &out); err != nil || string(out) != `{"done":"yes"}` {
				t.Fatalf("progress: %s %v", out, err)
			}
			waitFor(t, got, "progress notification")
		})
	}
}

// A legacy session the server has ended answers 404; the call fails at
// once instead of waiting for a response that cannot come.
func TestClientLegacySessionGone(t *testing.T) {
	f := newFixture(t, Options{ModernVersions: []string{}})
	conn, c := clientConn(t, f, EraLegacy)
	if err := conn.Call(context.Background(), "initialize", map[string]any{}, nil); err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodDelete, f.url, nil)
	req.Header.Set(HeaderSessionID, c.SessionID())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = conn.Call(ctx, "echo", map[string]any{}, nil)
	var re *jsonrpc2.Error
	if !errors.As(err, &re) || !strings.Contains(re.Message, "session not found") {
		t.Fatalf("call on an ended session: %v", err)
	}
}

// A legacy client's notifications/initialized returns only once the GET
// stream is open, so that a server request sent on it right after (the
// TypeScript SDK's server drops one when no GET stream exists yet) is not
// lost.
func TestClientInitializedWaitsForGetStream(t *testing.T) {
	f := newFixture(t, Options{ModernVersions: []string{}})
	gate, arrived := make(chan struct{}), make(chan struct{})
	var once sync.Once
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			once.Do(func() { close(arrived) })
			<-gate
		}
		f.h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	defer f.h.Close(context.Background())
	opened := false
	defer func() {
		if !opened {
			close(gate)
		}
	}()
	c, err := Dial(context.Background(), srv.URL+"/mcp", ClientOptions{Revisions: testRevs(), Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	conn := jsonrpc2.NewConn(c, jsonrpc2.WithPolicy(legacyPolicy(jsonrpc2.SideClient)), jsonrpc2.WithLogger(quiet()))
	conn.Start()
	defer conn.Close(context.Background())
	if err := conn.Call(context.Background(), "initialize", map[string]any{}, nil); err != nil {
		t.Fatal(err)
	}
	notified := make(chan error, 1)
	go func() { notified <- conn.Notify(context.Background(), "notifications/initialized", nil) }()
	waitFor(t, arrived, "GET stream request")
	select {
	case err := <-notified:
		t.Fatalf("notifications/initialized returned (%v) before the GET stream was open", err)
	default:
	}
	opened = true
	close(gate)
	if err := waitFor(t, notified, "notifications/initialized"); err != nil {
		t.Fatal(err)
	}
}

// An HTTP-level rejection the server answers with id null (here a refused
// Origin) reaches the call it rejects: the transport gives the error the
// request's id, on the message it decoded for the Conn.
func TestClientRejectionWithNullID(t *testing.T) {
	f := newFixture(t, Options{})
	c := NewClientTransport(f.url, ClientOptions{Revisions: testRevs(), Era: EraModern, Logger: quiet(), Header: http.Header{"Origin": {"https://elsewhere.example"}}})
	conn := clientOn(t, c)
	err := conn.Call(context.Background(), "echo", map[string]int{"x": 1}, nil)
	var e *jsonrpc2.Error
	if !errors.As(err, &e) || e.Code != jsonrpc2.CodeInvalidRequest || !strings.Contains(e.Message, "origin not allowed") {
		t.Fatalf("call: %v, want the server's -32600 origin refusal", err)
	}
}
