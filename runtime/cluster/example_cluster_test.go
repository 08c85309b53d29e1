package cluster_test

import (
	"context"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/cluster"
)

// The Bus carries cancellations and notifications between the replicas of
// one server. MemoryBus is the one-process implementation (for tests and a
// single replica); cluster/natscluster's Bus is the one for replicas on
// NATS, behind the same interface. A pattern matches subjects token by
// token, "*" one token and ">" the rest.
func Example() {
	var bus cluster.Bus = cluster.NewMemoryBus()
	sub, err := bus.Subscribe("cancel.*", func(subject string, data []byte) {
		fmt.Printf("%s: %s\n", subject, data)
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sub.Unsubscribe()
	ctx := context.Background()
	_ = bus.Publish(ctx, "cancel.req-1", []byte(`{"reason":"client went away"}`))
	_ = bus.Publish(ctx, "notify.req-1", []byte(`ignored: no subscriber`))
	// Output:
	// cancel.req-1: {"reason":"client went away"}
}
