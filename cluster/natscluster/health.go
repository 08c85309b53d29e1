package natscluster

import (
	"context"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/nats-io/nats.go"
)

// Reachable is the readiness check of a replica on NATS
// (streamhttp.Handler.Probes): nc is connected and the server answers a
// round trip (a PING flushed within the probe's deadline). While it
// fails, the replica's session store, task store and bus cannot work, so
// a balancer should send its requests to a replica that can reach NATS.
// A replica cut off from NATS is not dead: Reachable belongs in the
// readiness probe only, never the liveness probe (a NATS outage would
// otherwise restart every replica at once).
func Reachable(nc *nats.Conn) streamhttp.ReadyCheck {
	return streamhttp.ReadyCheck{Name: "nats", Check: func(ctx context.Context) error {
		if st := nc.Status(); st != nats.CONNECTED {
			return fmt.Errorf("not connected (%s)", st)
		}
		if err := nc.FlushWithContext(ctx); err != nil {
			return fmt.Errorf("no round trip: %w", err)
		}
		return nil
	}}
}
