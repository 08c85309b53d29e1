package jsonrpc2

import (
	"context"
	"encoding/json"
	"testing"
)

func TestDecodeMessageKinds(t *testing.T) {
	cases := []struct {
		in   string
		kind MessageKind
		code int // 0: no error
		id   string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, KindRequest, 0, `1`},
		{`{"jsonrpc":"2.0","id":"1","method":"ping","params":{}}`, KindRequest, 0, `"1"`},
		{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, KindNotification, 0, `null`},
		{`{"jsonrpc":"2.0","id":3,"result":{}}`, KindResponse, 0, `3`},
		{`{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"x"}}`, KindErrorResponse, 0, `3`},
		{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`, KindErrorResponse, 0, `null`},
		{`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`, KindRequest, CodeInvalidRequest, `null`},
		{`{"jsonrpc":"2.0","id":true,"method":"ping"}`, KindRequest, CodeInvalidRequest, `null`},
		{`{"jsonrpc":"2.0","id":null,"method":"ping"}`, KindRequest, CodeInvalidRequest, `null`},
		{`{"jsonrpc":"2.0","id":{},"method":"ping"}`, KindRequest, CodeInvalidRequest, `null`},
		{`{"jsonrpc":"2.0","id":[1],"method":"ping"}`, KindRequest, CodeInvalidRequest, `null`},
		{`{"jsonrpc":"1.0","id":4,"method":"ping"}`, KindRequest, CodeInvalidRequest, `4`},
		{`{"id":4,"method":"ping"}`, KindRequest, CodeInvalidRequest, `4`},
		{`{"jsonrpc":"2.0","id":4,"method":5}`, KindRequest, CodeInvalidRequest, `4`},
		{`{"jsonrpc":"2.0","id":4,"method":"x","params":3}`, KindRequest, CodeInvalidRequest, `4`},
		{`{"jsonrpc":"2.0","ID":4,"method":"x"}`, KindNotification, 0, `null`}, // keys are case-sensitive
		{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, KindInvalid, CodeInvalidRequest, `null`},
		{`{"jsonrpc":"2.0"}`, KindInvalid, CodeInvalidRequest, `null`},
		{`{"jsonrpc":"2.0","result":{}}`, KindResponse, CodeInvalidRequest, `null`}, // found by FuzzDecodeMessage
		{`{"jsonrpc":"2.0","id":null,"result":{}}`, KindResponse, CodeInvalidRequest, `null`},
		{`{"jsonrpc":"2.0","error":{"code":-32700,"message":"x"}}`, KindErrorResponse, 0, `null`},
		{`{"jsonrpc":"2.0","id":1,"method":"ping"`, KindInvalid, CodeParseError, `null`},
		{`not json`, KindInvalid, CodeParseError, `null`},
	}
	for _, c := range cases {
		m, err := DecodeMessage([]byte(c.in))
		code := 0
		if err != nil {
			code = err.Code
		}
		if code != c.code {
			t.Errorf("%s: code %d, want %d (%v)", c.in, code, c.code, err)
			continue
		}
		kind, id := KindInvalid, RequestID{}
		if m != nil {
			kind, id = m.Kind, m.ID
		}
		if kind != c.kind || id.String() != c.id {
			t.Errorf("%s: kind %v id %s, want %v %s", c.in, kind, id, c.kind, c.id)
		}
	}
}

func TestMessageEncodingRoundTrip(t *testing.T) {
	msgs := []*Message{
		{Kind: KindRequest, ID: StringID("a\nb"), Method: "tools/call", Params: json.RawMessage(`{"x":"\u2028"}`)},
		{Kind: KindNotification, Method: "notifications/cancelled", Params: json.RawMessage(`{"requestId":1}`)},
		{Kind: KindResponse, ID: Int64ID(9), Result: json.RawMessage(`{"ok":true}`)},
		{Kind: KindErrorResponse, ID: Int64ID(9), Error: &Error{Code: -32601, Message: "no \"such\" method\n", Data: json.RawMessage(`[1]`)}},
	}
	for _, m := range msgs {
		b, err := m.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(b) {
			t.Fatalf("invalid JSON %s", b)
		}
		for _, c := range b {
			if c == '\n' {
				t.Fatalf("raw newline in %s", b)
			}
		}
		back, derr := DecodeMessage(b)
		if derr != nil {
			t.Fatalf("%s: %v", b, derr)
		}
		if back.Kind != m.Kind || back.ID != m.ID || back.Method != m.Method {
			t.Fatalf("round trip %s: got %+v", b, back)
		}
	}
}

func TestAppendJSONStringMatchesEncodingJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "q\"b\\s", "ctl\x00\x01\x1f\t\r\n", "é漢字", "bad\xffutf8", "\u2028"} {
		got := appendJSONString(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%q: %s: %v", s, got, err)
		}
		var want string
		wb, _ := json.Marshal(s)
		_ = json.Unmarshal(wb, &want)
		if back != want {
			t.Errorf("%q: decodes to %q, encoding/json gives %q", s, back, want)
		}
	}
}

func FuzzDecodeMessage(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":[1,"}"]}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":"x","result":{}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"n"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := DecodeMessage(data)
		if err != nil || m == nil {
			return
		}
		b, merr := m.MarshalJSON()
		if merr != nil {
			t.Fatal(merr)
		}
		back, derr := DecodeMessage(b)
		if derr != nil {
			t.Fatalf("re-encoded %s does not decode: %v", b, derr)
		}
		if back.Kind != m.Kind || back.ID != m.ID || back.Method != m.Method {
			t.Fatalf("round trip changed the message: %s -> %s", data, b)
		}
	})
}

// FuzzConnRoute feeds arbitrary input to a Conn's router, as if read from
// the transport: whatever arrives, the read loop must not panic, and the
// Conn must still shut down cleanly.
func FuzzConnRoute(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"echo","params":{}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0.5}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","result":{}}`))
	f.Add([]byte(`{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, b := NewPipe()
		c := NewConn(a, WithLogger(quietLogger()), WithPolicy(policy20251125(SideAny)))
		c.Handle("echo", func(ctx context.Context, req *Request) (any, error) { return req.Params, nil })
		c.Start()
		c.route(data)
		c.Close(context.Background())
		b.Close()
	})
}
