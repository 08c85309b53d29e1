package session

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// writesTransport records what is written to it.
type writesTransport struct {
	mu        sync.Mutex
	msgs      [][]byte
	closed    chan struct{}
	closeOnce sync.Once
}

func newWritesTransport() *writesTransport { return &writesTransport{closed: make(chan struct{})} }

func (w *writesTransport) Read(ctx context.Context) ([]byte, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-w.closed:
		return nil, jsonrpc2.ErrTransportClosed
	}
}

func (w *writesTransport) Write(_ context.Context, msg []byte) error {
	w.mu.Lock()
	w.msgs = append(w.msgs, msg)
	w.mu.Unlock()
	return nil
}

func (w *writesTransport) Close() error {
	w.closeOnce.Do(func() { close(w.closed) })
	return nil
}

func (w *writesTransport) last(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	var m map[string]json.RawMessage
	if len(w.msgs) == 0 || json.Unmarshal(w.msgs[len(w.msgs)-1], &m) != nil {
		t.Fatalf("nothing written, or not JSON: %q", w.msgs)
	}
	return m
}

// TestClientWritesFromDescription: the session's client transport rewrites
// a request from the params the Conn described (OutMessage.Params) and
// knows a cancellation by the id the description names, without decoding
// what the Conn encoded: here Data is not even JSON, and what goes out is
// built from the description alone.
func TestClientWritesFromDescription(t *testing.T) {
	ctx := context.Background()
	for _, modern := range []bool{true, false} {
		inner := newWritesTransport()
		ct := newClientTransport(inner, Revision{Version: "2026-07-28", Modern: true, CacheableResults: map[string]bool{"tools/list": true}},
			Implementation{Name: "c", Version: "1"}, json.RawMessage(`{}`))
		ct.setMode(modern, map[bool]string{true: "2026-07-28", false: "2025-11-25"}[modern])
		ct.conn = jsonrpc2.NewConn(nil, jsonrpc2.WithPolicy(jsonrpc2.Policy{Side: jsonrpc2.SideClient, CancelledMethod: "notifications/cancelled"}))

		id := jsonrpc2.Int64ID(7)
		err := ct.WriteMessage(ctx, &jsonrpc2.OutMessage{Kind: jsonrpc2.KindRequest, ID: id, Method: "tools/list",
			Data: []byte("not what the Conn would encode"), Params: []byte(`{"_meta":{"io.modelcontextprotocol/protocolVersion":""},"cursor":"c"}`)})
		if err != nil {
			t.Fatal(err)
		}
		got := inner.last(t)
		var params map[string]json.RawMessage
		_ = json.Unmarshal(got["params"], &params)
		if string(got["id"]) != "7" || string(got["method"]) != `"tools/list"` || string(params["cursor"]) != `"c"` {
			t.Errorf("modern %v: wrote %s", modern, inner.msgs[len(inner.msgs)-1])
		}
		ct.mu.Lock()
		_, called := ct.calls[id]
		_, cached := ct.legacy[id]
		ct.mu.Unlock()
		if modern {
			if !json.Valid(params["_meta"]) || len(params["_meta"]) < len(`{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`) || !called {
				t.Errorf("modern request: _meta %s, round trip recorded %v", params["_meta"], called)
			}
		} else if params["_meta"] != nil || !cached {
			t.Errorf("legacy request: _meta %s (want none), cacheable recorded %v", params["_meta"], cached)
		}

		// The cancellation names request 7 in its description, while its
		// bytes name another: the description is what counts.
		err = ct.WriteMessage(ctx, &jsonrpc2.OutMessage{Kind: jsonrpc2.KindNotification, ID: id, Method: "notifications/cancelled",
			Data: []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`)})
		if err != nil {
			t.Fatal(err)
		}
		ct.mu.Lock()
		_, called = ct.calls[id]
		_, cached = ct.legacy[id]
		ct.mu.Unlock()
		if called || cached {
			t.Errorf("modern %v: the cancellation of 7 left its record (round trip %v, cache %v)", modern, called, cached)
		}
		if string(inner.last(t)["method"]) != `"notifications/cancelled"` {
			t.Errorf("the cancellation was not written: %s", inner.msgs[len(inner.msgs)-1])
		}
	}
}

// TestConnDescribesRequestParams: the Conn tells a MessageWriter where a
// request's params lie in its message, on both of its encoding paths
// (a params value that appends itself, and one it marshals).
func TestConnDescribesRequestParams(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &describedTransport{writesTransport: newWritesTransport(), got: make(chan jsonrpc2.OutMessage, 4)}
	conn := jsonrpc2.NewConn(w)
	conn.Start()
	var calls sync.WaitGroup
	defer func() {
		cancel()
		calls.Wait()
		conn.Close(context.Background())
	}()
	for _, params := range []any{json.RawMessage(`{"a": 1}`), map[string]int{"b": 2}} {
		calls.Add(1)
		go func() {
			defer calls.Done()
			_ = conn.Call(ctx, "m", params, nil)
		}()
		m := <-w.got
		var env struct {
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(m.Data, &env); err != nil || m.Kind != jsonrpc2.KindRequest || m.Method != "m" ||
			string(m.Params) != string(env.Params) || len(m.Params) == 0 {
			t.Errorf("%T: described params %q, message %s (%v)", params, m.Params, m.Data, err)
		}
	}
}

// describedTransport is a MessageWriter that passes on what it is given.
type describedTransport struct {
	*writesTransport
	got chan jsonrpc2.OutMessage
}

func (d *describedTransport) WriteMessage(_ context.Context, m *jsonrpc2.OutMessage) error {
	d.got <- *m
	return nil
}

// linesTransport reads the messages queued on it.
type linesTransport struct {
	*writesTransport
	lines chan []byte
}

func (l *linesTransport) Read(ctx context.Context) ([]byte, error) {
	select {
	case b := <-l.lines:
		return b, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// TestClientReadsDecodedOnce: the session's client layer is the Conn's
// MessageReader: it decodes each message once, maps an MRTR retry's
// answer back to the Conn's id on the decoded message, and hands that to
// the Conn, which does not decode the bytes again; every read reuses one
// Message (the Conn keeps none), so reading decoded costs no allocation.
func TestClientReadsDecodedOnce(t *testing.T) {
	ctx := context.Background()
	inner := &linesTransport{writesTransport: newWritesTransport(), lines: make(chan []byte, 2)}
	ct := newClientTransport(inner, Revision{Version: "2026-07-28", Modern: true}, Implementation{Name: "c", Version: "1"}, json.RawMessage(`{}`))
	ct.setMode(true, "2026-07-28")
	var _ jsonrpc2.MessageReader = ct
	orig, retry := jsonrpc2.Int64ID(3), jsonrpc2.StringID("mrtr-1")
	ct.calls[orig] = &roundTrip{method: "tools/call", current: retry}
	ct.retries[retry] = orig
	inner.lines <- []byte(`{"jsonrpc":"2.0","id":"mrtr-1","result":{"content":[]}}`)
	inner.lines <- []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`)
	first, err := ct.ReadMessage(ctx)
	if err != nil || first.ID != orig || string(first.Result) != `{"content":[]}` {
		t.Fatalf("retry's answer: %+v, %v; want it under id 3", first, err)
	}
	second, err := ct.ReadMessage(ctx)
	if err != nil || second.Method != "notifications/message" || second != first {
		t.Fatalf("notification: %+v, %v (same Message reused: %v)", second, err, second == first)
	}
	line := []byte(`{"jsonrpc":"2.0","id":9,"result":{}}`)
	if n := testing.AllocsPerRun(10, func() {
		inner.lines <- line
		if _, err := ct.ReadMessage(ctx); err != nil {
			t.Fatal(err)
		}
	}); n > 0 {
		t.Errorf("reading a decoded message allocates %v times", n)
	}
}
