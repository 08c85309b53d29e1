package jsonrpc2

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// TestWireNestedCancelBeforeResponse: a handler whose own call to the peer
// times out answers after that call's notifications/cancelled is on the
// wire, never before, even where the transport cannot take the
// notification at once (the raw peer's io.Pipe is no pipe tryWrite can
// write, so every cancellation goes to the sender queue while the response
// is written on the handler's goroutine). Many rounds, since the wrong
// order is a race between two goroutines.
func TestWireNestedCancelBeforeResponse(t *testing.T) {
	p := newRawPeer(t)
	p.conn.Handle("outer", func(ctx context.Context, r *Request) (any, error) {
		err := p.conn.Call(ctx, "inner", nil, nil, WithTimeout(time.Millisecond))
		return map[string]string{"inner": fmt.Sprint(err)}, nil
	})
	for i := range 100 {
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":"o%d","method":"outer"}`, i))
		inner := p.nextJSON()
		if inner["method"] != "inner" {
			t.Fatalf("round %d: want the inner request, got %v", i, inner)
		}
		// Not answered: the call times out.
		first, second := p.nextJSON(), p.nextJSON()
		params, _ := first["params"].(map[string]any)
		if first["method"] != "notifications/cancelled" || fmt.Sprint(params["requestId"]) != fmt.Sprint(inner["id"]) {
			b1, _ := json.Marshal(first)
			b2, _ := json.Marshal(second)
			t.Fatalf("round %d: the response overtook the inner call's cancellation:\n first  %s\n second %s", i, b1, b2)
		}
		if second["id"] != fmt.Sprintf("o%d", i) || second["result"] == nil {
			t.Fatalf("round %d: want the outer response after the cancellation, got %v", i, second)
		}
	}
}
