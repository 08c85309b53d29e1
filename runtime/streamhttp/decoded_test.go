package streamhttp

import (
	"context"
	"errors"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// rawReadCounter wraps a Handler transport and counts the reads that ask
// for bytes: the lifecycle layer and the Conn must take the message the
// Handler decoded (jsonrpc2.MessageReader), not decode it again.
type rawReadCounter struct {
	t        jsonrpc2.Transport
	rawReads *atomic.Int32
}

// WriteMessage forwards the Conn's described messages; Write counts the
// ones written as bytes (which the session would have to decode).
func (r rawReadCounter) WriteMessage(ctx context.Context, m *jsonrpc2.OutMessage) error {
	return r.t.(jsonrpc2.MessageWriter).WriteMessage(ctx, m)
}

func (r rawReadCounter) ReadMessage(ctx context.Context) (*jsonrpc2.Message, error) {
	return r.t.(jsonrpc2.MessageReader).ReadMessage(ctx)
}

func (r rawReadCounter) Read(ctx context.Context) ([]byte, error) {
	r.rawReads.Add(1)
	return r.t.Read(ctx)
}

func (r rawReadCounter) Write(ctx context.Context, msg []byte) error {
	r.rawReads.Add(1)
	return r.t.Write(ctx, msg)
}
func (r rawReadCounter) Close() error { return r.t.Close() }

// countingLifecycle hands its Lifecycle each transport through a
// rawReadCounter.
type countingLifecycle struct {
	Lifecycle
	rawReads *atomic.Int32
}

func (c countingLifecycle) Accept(ctx context.Context, t jsonrpc2.Transport) (*jsonrpc2.Conn, error) {
	return c.Lifecycle.Accept(ctx, rawReadCounter{t, c.rawReads})
}

// Both eras, through a real session.Server: session.Accept and the Conn
// read the message the Handler decoded (no raw read at all), and the
// answers are the lifecycle's and the handler's as before; a closed modern
// stream still cancels.
func TestLifecycleReadsDecodedMessages(t *testing.T) {
	var rawReads atomic.Int32
	base := newLifecycleFixture(t, Options{})
	f := (&lifecycleFixture{started: base.started, causes: base.causes}).serve(t, countingLifecycle{base.srv, &rawReads}, Options{})
	ctx := bounded(t)

	sid := ""
	resp := post(t, ctx, f.url, nil,
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	if body := readAll(t, resp); resp.StatusCode != 200 || !strings.Contains(body, `"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	sid = resp.Header.Get(HeaderSessionID)
	resp = post(t, ctx, f.url, legacyHdr(sid), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if b := readAll(t, resp); resp.StatusCode != 202 {
		t.Fatalf("initialized: %d %q", resp.StatusCode, b)
	}
	resp = post(t, ctx, f.url, legacyHdr(sid), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	if body := readAll(t, resp); resp.StatusCode != 200 || !strings.Contains(body, `"echoed echo"`) {
		t.Fatalf("legacy tools/call: %d %s", resp.StatusCode, body)
	}

	hdr := modernHdr("tools/call")
	hdr[HeaderName] = "echo"
	resp = post(t, ctx, f.url, hdr, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{},`+modernMeta+`}}`)
	if body := readAll(t, resp); resp.StatusCode != 200 || !strings.Contains(body, `"echoed echo"`) {
		t.Fatalf("modern tools/call: %d %s", resp.StatusCode, body)
	}
	hdr[HeaderName] = "block"
	cctx, cancel := context.WithCancel(ctx)
	done := postAsync(cctx, f.url, hdr, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"block","arguments":{},`+modernMeta+`}}`)
	waitFor(t, f.started, "block to start")
	cancel()
	var ce *jsonrpc2.CancelError
	if cause := waitFor(t, f.causes, "block's cause"); !errors.As(cause, &ce) || ce.Source != jsonrpc2.SourceStreamClosed {
		t.Fatalf("cause %v, want the stream's disconnect", cause)
	}
	if r := waitFor(t, done, "the aborted POST"); r != nil {
		r.Body.Close()
	}
	if n := rawReads.Load(); n != 0 {
		t.Errorf("%d reads or writes of bytes: a message the Handler decoded was decoded again, or one the Conn encoded was not described", n)
	}
}

// A modern request whose stream closes at once, before its handler has
// started, is still cancelled with the stream-closed source: Deliver
// admits it synchronously, so the disconnect always finds it.
func TestModernDisconnectBeforeRouting(t *testing.T) {
	body := `{"jsonrpc":"2.0","id":5,"method":"sleep","params":{` + modernMeta + `}}`
	m, derr := jsonrpc2.DecodeMessage([]byte(body))
	if derr != nil {
		t.Fatal(derr)
	}
	st := newStream(httptest.NewRecorder(), true, 0)
	st.abort() // the client is gone
	events := make(chan jsonrpc2.Event, 16)
	conn := jsonrpc2.NewConn(jsonrpc2.NoTransport(), jsonrpc2.WithPolicy(modernPolicy(jsonrpc2.SideServer)), jsonrpc2.WithLogger(quiet()),
		jsonrpc2.WithObserver(func(e jsonrpc2.Event) { events <- e }))
	release := make(chan struct{})
	conn.Handle("sleep", func(ctx context.Context, _ *jsonrpc2.Request) (any, error) {
		<-release
		<-ctx.Done()
		return nil, nil
	})
	conn.Start()
	defer conn.Close(context.Background())
	d := conn.Deliver(context.Background(), m, &modernWriter{st: st})
	d.StreamClosed() // before the handler runs
	close(release)
	e := waitFor(t, events, "the disconnect's event")
	if e.Kind != jsonrpc2.EventApplied || e.Source != jsonrpc2.SourceStreamClosed || e.ID != jsonrpc2.Int64ID(5) {
		t.Fatalf("event %+v, want the stream-closed cancellation of id 5 applied", e)
	}
	if !strings.Contains(e.Reason, "closed the request's stream") {
		t.Errorf("reason %q does not say the stream closed", e.Reason)
	}
}
