package jsonrpc2

import "testing"

// BenchmarkDecodeMessage measures the decoder every incoming message goes
// through (validation, then picking out the members JSON-RPC defines),
// on the shapes a session sees most.
func BenchmarkDecodeMessage(b *testing.B) {
	for _, c := range []struct{ name, msg string }{
		{"request", `{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, world","n":[1,2,3]},"_meta":{"progressToken":"p-42"}}}`},
		{"response", `{"jsonrpc":"2.0","id":"abc-123","result":{"content":[{"type":"text","text":"hello, world"}],"isError":false}}`},
		{"notification", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":42,"reason":"user pressed stop"}}`},
	} {
		data := []byte(c.msg)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				if _, err := DecodeMessage(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecodeProgressToken measures finding params._meta.progressToken,
// which the peer does for each incoming request.
func BenchmarkDecodeProgressToken(b *testing.B) {
	params := []byte(`{"name":"echo","arguments":{"text":"hello, world","n":[1,2,3]},"_meta":{"progressToken":"p-42"}}`)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, ok, err := progressTokenOf(params); !ok || err != nil {
			b.Fatal(ok, err)
		}
	}
}
