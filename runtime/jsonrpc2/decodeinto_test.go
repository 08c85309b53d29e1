package jsonrpc2

import (
	"reflect"
	"testing"
)

// TestDecodeMessageIntoMatchesDecodeMessage checks that DecodeMessageInto
// fills the caller's Message exactly as DecodeMessage returns it, errors
// included, and leaves it empty where DecodeMessage returns none.
func TestDecodeMessageIntoMatchesDecodeMessage(t *testing.T) {
	for _, in := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo"}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}`,
		`{"jsonrpc":"2.0","id":"a","result":{"x":1}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"bad"}}`,
		`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`not json`,
	} {
		want, wantErr := DecodeMessage([]byte(in))
		m := Message{Kind: KindResponse, Method: "left over"}
		err := DecodeMessageInto([]byte(in), &m)
		if !reflect.DeepEqual(err, wantErr) {
			t.Errorf("%s: error %v, want %v", in, err, wantErr)
		}
		if want == nil {
			want = &Message{}
		}
		if !reflect.DeepEqual(&m, want) {
			t.Errorf("%s: got %+v, want %+v", in, m, *want)
		}
	}
	data := []byte(`{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{}}`)
	var m Message
	if n := testing.AllocsPerRun(10, func() { _ = DecodeMessageInto(data, &m) }); n != 0 {
		t.Errorf("DecodeMessageInto: %v allocations, want 0", n)
	}
}
