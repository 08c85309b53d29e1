package session_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// TestListenContributor: a WithListenContributor makes the session answer
// subscriptions/listen even with no list-changed capability; the members
// it accepts join the acknowledgement, what it sends follows the
// acknowledgement on the same stream (tagged with the subscription id),
// its stop runs when the stream ends, and its error answers the request
// instead.
func TestListenContributor(t *testing.T) {
	sends := make(chan func(string, any) error, 1)
	stopped := make(chan struct{})
	contributor := func(ctx context.Context, params json.RawMessage, send func(string, any) error) (map[string]any, func(), error) {
		var p struct {
			Notifications struct {
				Widgets []string `json:"widgets"`
			} `json:"notifications"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, nil, err
		}
		if len(p.Notifications.Widgets) == 0 {
			return nil, nil, &jsonrpc2.Error{Code: -32021, Message: "no widgets"}
		}
		sends <- send
		return map[string]any{"widgets": p.Notifications.Widgets}, func() { close(stopped) }, nil
	}
	srv := mcp.NewServer(session.Implementation{Name: "t", Version: "1"}, plainResults{}, session.WithListenContributor(contributor))
	p := serve(t, srv)
	p.send(`{"jsonrpc":"2.0","id":"bad","method":"subscriptions/listen","params":{%s,"notifications":{}}}`, modernMeta)
	if got := str(p.recv()); !strings.Contains(got, `"code":-32021`) || !strings.Contains(got, `"id":"bad"`) {
		t.Fatalf("contributor's error: %s", got)
	}
	p.send(`{"jsonrpc":"2.0","id":"sub","method":"subscriptions/listen","params":{%s,"notifications":{"widgets":["w1"],"toolsListChanged":true}}}`, modernMeta)
	if got := str(p.recv()); got != `{"jsonrpc":"2.0","method":"notifications/subscriptions/acknowledged","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"sub"},"notifications":{"widgets":["w1"]}}}` {
		t.Fatalf("acknowledgement: %s", got)
	}
	send := <-sends
	if err := send("notifications/widgets", map[string]string{"widget": "w1"}); err != nil {
		t.Fatal(err)
	}
	if got := str(p.recv()); got != `{"jsonrpc":"2.0","method":"notifications/widgets","params":{"_meta":{"io.modelcontextprotocol/subscriptionId":"sub"},"widget":"w1"}}` {
		t.Fatalf("contributed notification: %s", got)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"sub"}}`)
	select {
	case <-stopped:
	case <-time.After(10 * time.Second):
		t.Fatal("the contributor's stop did not run when the stream ended")
	}
}
