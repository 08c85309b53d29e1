package jsonrpc2

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
)

func TestCallRoundTrip(t *testing.T) {
	server, client := pair(t, nil, nil)
	server.Handle("echo", func(ctx context.Context, req *Request) (any, error) {
		return json.RawMessage(req.Params), nil
	})
	server.Start()
	client.Start()
	var out map[string]int
	if err := client.Call(context.Background(), "echo", map[string]int{"a": 1}, &out); err != nil {
		t.Fatal(err)
	}
	if out["a"] != 1 {
		t.Fatalf("got %v", out)
	}
	err := client.Call(context.Background(), "nope", nil, nil)
	var rpcErr *Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != CodeMethodNotFound {
		t.Fatalf("got %v, want -32601", err)
	}
}
