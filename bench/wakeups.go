package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/trace"

	xtrace "golang.org/x/exp/trace"
)

// Wakeups is what one sequential echo round trip costs the Go scheduler,
// client and server together, counted from the runtime's execution trace:
// a figure that does not depend on the machine. Each wake-up readies a
// goroutine that was blocked (on a channel, a lock, the network poller);
// on a quiet multi-core machine it is usually a hand-off to another core
// (an idle processor is woken to run it), which is where the round trips
// of this module differ most between the 2-core host and a quiet machine.
type Wakeups struct {
	// Wakes is the goroutines made runnable from blocked, per round trip.
	Wakes float64
	// Created is the goroutines started, per round trip.
	Created float64
	// Revision is the protocol revision the session negotiated.
	Revision string
	Err      error
}

// EchoWakeups traces n sequential echo round trips over one session of
// connect's (after a warm-up of n/4, outside the trace) and counts them.
func EchoWakeups(connect Connector, n int) Wakeups {
	s, err := connect(nil)
	if err != nil {
		return Wakeups{Err: err}
	}
	defer s.Close()
	ctx := context.Background()
	echo := func(k int) error {
		for i := 0; i < k; i++ {
			if got, err := s.Echo(ctx, "hello"); err != nil || got != "hello" {
				return fmt.Errorf("echo: %q, %v", got, err)
			}
		}
		return nil
	}
	if err := echo(n/4 + 1); err != nil {
		return Wakeups{Err: err}
	}
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		return Wakeups{Err: fmt.Errorf("starting the trace: %w", err)}
	}
	err = echo(n)
	trace.Stop()
	if err != nil {
		return Wakeups{Err: err}
	}
	wakes, created, err := countWakeups(&buf)
	if err != nil {
		return Wakeups{Err: err}
	}
	return Wakeups{Wakes: float64(wakes) / float64(n), Created: float64(created) / float64(n), Revision: s.Revision}
}

// HTTPWakeups is EchoWakeups over Streamable HTTP.
func HTTPWakeups(p HTTPPeer, m HTTPMode, c HTTPClient, n int) Wakeups {
	return EchoWakeups(HTTPConnector(p, m, c), n)
}

// StdioWakeups is EchoWakeups over a transport of the stdio tables.
func StdioWakeups(p Peer, t TransportKind, rev string, n int) Wakeups {
	return EchoWakeups(p.over(t, rev), n)
}

// countWakeups counts a trace's goroutine transitions from waiting to
// runnable (wake-ups) and from not existing to runnable (goroutines
// started).
func countWakeups(r io.Reader) (wakes, created int, err error) {
	tr, err := xtrace.NewReader(r)
	if err != nil {
		return 0, 0, fmt.Errorf("reading the trace: %w", err)
	}
	for {
		ev, err := tr.ReadEvent()
		if errors.Is(err, io.EOF) {
			return wakes, created, nil
		}
		if err != nil {
			return 0, 0, fmt.Errorf("reading the trace: %w", err)
		}
		if ev.Kind() != xtrace.EventStateTransition {
			continue
		}
		st := ev.StateTransition()
		if st.Resource.Kind != xtrace.ResourceGoroutine {
			continue
		}
		switch from, to := st.Goroutine(); {
		case from == xtrace.GoWaiting && to == xtrace.GoRunnable:
			wakes++
		case from == xtrace.GoNotExist && to == xtrace.GoRunnable:
			created++
		}
	}
}
