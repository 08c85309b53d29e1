package natscluster

import (
	"context"
	"errors"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/cluster"
	"github.com/nats-io/nats.go"
)

// Bus is a cluster.Bus on core NATS subjects: at-most-once delivery to the
// subscribers connected now, which is what cancellations and change
// notifications need (a replica that is down has nothing to cancel and no
// stream to notify). Reconnection is the nats.Conn's: subscriptions are
// re-established by the client library after a reconnect, and messages
// published while disconnected are buffered by it (nats.ReconnectBufSize).
type Bus struct {
	nc     *nats.Conn
	prefix string
}

// BusOption configures NewBus.
type BusOption func(*Bus)

// WithSubjectPrefix puts every subject of the bus under prefix (for example
// "app1"), so several clusters can share one NATS account. The prefix is
// dot-separated tokens without wildcards; it is added on Publish and
// Subscribe and removed from the subject the callback sees.
func WithSubjectPrefix(prefix string) BusOption {
	return func(b *Bus) { b.prefix = strings.TrimSuffix(prefix, ".") }
}

// NewBus returns a Bus on nc. The caller keeps nc and closes it; closing it
// ends every subscription of the bus.
func NewBus(nc *nats.Conn, opts ...BusOption) *Bus {
	b := &Bus{nc: nc}
	for _, o := range opts {
		o(b)
	}
	return b
}

var _ cluster.Bus = (*Bus)(nil)

func (b *Bus) full(subject string) string {
	if b.prefix == "" {
		return subject
	}
	return b.prefix + "." + subject
}

// Publish sends data on subject. It returns once the client library has
// taken the message (buffered while reconnecting), not once delivered.
func (b *Bus) Publish(ctx context.Context, subject string, data []byte) error {
	if !cluster.ValidSubject(subject) {
		return errors.New("natscluster: invalid subject " + subject)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return b.nc.Publish(b.full(subject), data)
}

// Subscribe calls fn, on the subscription's own goroutine (messages of one
// subscription in order), for every message on a subject matching pattern.
func (b *Bus) Subscribe(pattern string, fn func(subject string, data []byte)) (cluster.Subscription, error) {
	if pattern == "" || strings.ContainsAny(pattern, " \t\r\n") {
		return nil, errors.New("natscluster: invalid subscription subject " + pattern)
	}
	cut := 0
	if b.prefix != "" {
		cut = len(b.prefix) + 1
	}
	sub, err := b.nc.Subscribe(b.full(pattern), func(m *nats.Msg) {
		fn(m.Subject[cut:], m.Data)
	})
	if err != nil {
		return nil, err
	}
	// Unlimited pending: fn must not block (cluster.Bus), and a slow
	// consumer dropping a cancellation would be worse than memory.
	_ = sub.SetPendingLimits(-1, -1)
	return sub, nil
}
