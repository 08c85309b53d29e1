package jsonrpc2

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// selfEncoded appends its own JSON, as generated types do. Its MarshalJSON
// says something else, so a test can tell which one the runtime used.
type selfEncoded struct {
	Text string
	Fail bool
}

func (s selfEncoded) AppendJSON(buf []byte) ([]byte, error) {
	if s.Fail {
		return buf, errors.New("cannot encode")
	}
	buf = append(buf, `{"text":`...)
	buf = appendJSONString(buf, s.Text)
	return append(buf, '}'), nil
}

func (s selfEncoded) MarshalJSON() ([]byte, error) { return []byte(`{"via":"MarshalJSON"}`), nil }

// TestAppenderResultWrittenInPlace: a result with AppendJSON is written with
// it, exactly; a nil pointer to one is null (as encoding/json writes it,
// where calling the method would panic); an encoding error is -32603.
func TestAppenderResultWrittenInPlace(t *testing.T) {
	p := newRawPeer(t)
	p.conn.Handle("value", func(ctx context.Context, req *Request) (any, error) {
		return selfEncoded{Text: "a\"<b>\n"}, nil
	})
	p.conn.Handle("pointer", func(ctx context.Context, req *Request) (any, error) {
		return &selfEncoded{Text: "p"}, nil
	})
	p.conn.Handle("nil", func(ctx context.Context, req *Request) (any, error) {
		return (*selfEncoded)(nil), nil
	})
	p.conn.Handle("fail", func(ctx context.Context, req *Request) (any, error) {
		return selfEncoded{Fail: true}, nil
	})
	for _, c := range []struct{ method, want string }{
		{"value", `{"jsonrpc":"2.0","id":1,"result":{"text":"a\"<b>\n"}}`},
		{"pointer", `{"jsonrpc":"2.0","id":1,"result":{"text":"p"}}`},
		{"nil", `{"jsonrpc":"2.0","id":1,"result":null}`},
	} {
		p.send(`{"jsonrpc":"2.0","id":1,"method":"` + c.method + `"}`)
		if got := p.next(); got != c.want {
			t.Errorf("%s: wrote %s, want %s", c.method, got, c.want)
		}
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"fail"}`)
	got := p.next()
	if !strings.Contains(got, `"code":-32603`) || !strings.Contains(got, "cannot encode") {
		t.Errorf("failing encoder: wrote %s, want a -32603 error naming the cause", got)
	}
}

// TestAppenderParamsWrittenInPlace: Call and Notify write params that have
// AppendJSON with it, and an encoding error fails the call before anything
// is written.
func TestAppenderParamsWrittenInPlace(t *testing.T) {
	p := newRawPeer(t)
	res := make(chan error, 1)
	go func() {
		var out json.RawMessage
		res <- p.conn.Call(context.Background(), "m", selfEncoded{Text: "x"}, &out)
	}()
	if got, want := p.next(), `{"jsonrpc":"2.0","id":1,"method":"m","params":{"text":"x"}}`; got != want {
		t.Errorf("Call wrote %s, want %s", got, want)
	}
	p.send(`{"jsonrpc":"2.0","id":1,"result":{}}`)
	if err := <-res; err != nil {
		t.Fatal(err)
	}
	if err := p.conn.Notify(context.Background(), "n", &selfEncoded{Text: "y"}); err != nil {
		t.Fatal(err)
	}
	if got, want := p.next(), `{"jsonrpc":"2.0","method":"n","params":{"text":"y"}}`; got != want {
		t.Errorf("Notify wrote %s, want %s", got, want)
	}
	if err := p.conn.Call(context.Background(), "m", selfEncoded{Fail: true}, nil); err == nil || !strings.Contains(err.Error(), "cannot encode") {
		t.Errorf("Call with failing params = %v", err)
	}
	if err := p.conn.Notify(context.Background(), "n", selfEncoded{Fail: true}); err == nil || !strings.Contains(err.Error(), "cannot encode") {
		t.Errorf("Notify with failing params = %v", err)
	}
	// With progress requested the token is injected into the params, so
	// they go through the encoder that yields them as a value.
	go func() {
		res <- p.conn.Call(context.Background(), "m", map[string]int{"a": 1}, nil, WithProgress(func(ProgressParams) {}))
	}()
	m := p.nextJSON()
	id := m["id"].(json.Number).String()
	if meta, _ := m["params"].(map[string]any)["_meta"].(map[string]any); meta == nil || meta["progressToken"].(json.Number).String() != id {
		t.Errorf("Call with progress wrote %v, want progressToken %s", m, id)
	}
	p.send(`{"jsonrpc":"2.0","id":` + id + `,"result":{}}`)
	if err := <-res; err != nil {
		t.Fatal(err)
	}
}
