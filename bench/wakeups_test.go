package bench

import (
	"context"
	"math"
	"testing"
)

// TestEchoWakeups: the counter sees exactly the hand-offs a round trip
// makes. An echo that asks a parked goroutine and waits for its answer
// wakes two goroutines (the helper, then the caller) and starts none; one
// that starts a goroutine per call and waits for it starts one and wakes
// one (the caller).
func TestEchoWakeups(t *testing.T) {
	const n = 2000
	parked := func(*Hooks) (*Client, error) {
		ask, answer := make(chan string), make(chan string)
		done := make(chan struct{})
		go func() {
			for {
				select {
				case s := <-ask:
					answer <- s
				case <-done:
					return
				}
			}
		}()
		return &Client{
			Echo: func(_ context.Context, s string) (string, error) {
				ask <- s
				return <-answer, nil
			},
			Close: func() { close(done) },
		}, nil
	}
	started := func(*Hooks) (*Client, error) {
		return &Client{
			Echo: func(_ context.Context, s string) (string, error) {
				answer := make(chan string)
				go func() { answer <- s }()
				return <-answer, nil
			},
			Close: func() {},
		}, nil
	}
	for _, c := range []struct {
		name           string
		connect        Connector
		wakes, created float64
	}{
		{"parked helper", parked, 2, 0},
		{"goroutine per call", started, 1, 1},
	} {
		w := EchoWakeups(c.connect, n)
		if w.Err != nil {
			t.Fatalf("%s: %v", c.name, w.Err)
		}
		// The runtime's own goroutines (GC workers, the trace's) add a
		// little; a hand-off more or less per call is a whole unit.
		if math.Abs(w.Wakes-c.wakes) > 0.25 || math.Abs(w.Created-c.created) > 0.25 {
			t.Errorf("%s: %.2f wake-ups, %.2f started per round trip; want %.0f and %.0f", c.name, w.Wakes, w.Created, c.wakes, c.created)
		}
	}
}
