package jsonrpc2

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
)

// The request admitted past a full house is the Policy's LivenessMethod,
// not a name the runtime knows: with LivenessMethod "alive" that request
// gets through while ping, now an ordinary request, is refused as busy.
func TestLivenessMethodIsPolicyData(t *testing.T) {
	pol := DefaultPolicy()
	pol.LivenessMethod = "alive"
	p := newRawPeer(t, WithPolicy(pol), WithMaxInFlight(1), WithMaxConcurrentHandlers(1))
	release := make(chan struct{})
	defer close(release)
	started := make(chan struct{}, 1)
	p.conn.Handle("hold", func(ctx context.Context, req *Request) (any, error) {
		started <- struct{}{}
		<-release
		return "ok", nil
	})
	answer := func(ctx context.Context, req *Request) (any, error) { return "up", nil }
	p.conn.Handle("alive", answer)
	p.conn.Handle("ping", answer)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"hold"}`)
	<-started
	p.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	m := p.nextJSON()
	if e, _ := m["error"].(map[string]any); m["id"] != json.Number("2") || e == nil || e["code"] != json.Number(fmt.Sprint(CodeServerBusy)) {
		t.Fatalf("ping with LivenessMethod %q and every slot busy: %v, want busy", pol.LivenessMethod, m)
	}
	p.send(`{"jsonrpc":"2.0","id":3,"method":"alive"}`)
	if l := p.next(); l != `{"jsonrpc":"2.0","id":3,"result":"up"}` {
		t.Fatalf("the LivenessMethod with every slot busy answered with %s", l)
	}
}
