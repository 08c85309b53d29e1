package main

import (
	"context"

	"github.com/mcpgen/mcpgen/runtime/cluster"
	"github.com/nats-io/nats.go"
)

// natsBus is cluster.Bus on core NATS subjects: at most once, which is all
// the task messages need (leases and polling cover a lost one).
type natsBus struct{ nc *nats.Conn }

func (b natsBus) Publish(_ context.Context, subject string, data []byte) error {
	return b.nc.Publish(subject, data)
}

func (b natsBus) Subscribe(pattern string, fn func(subject string, data []byte)) (cluster.Subscription, error) {
	return b.nc.Subscribe(pattern, func(m *nats.Msg) { fn(m.Subject, m.Data) })
}
