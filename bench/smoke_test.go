package bench

import (
	"context"
	"testing"
	"time"
)

// TestPeersEcho: every peer connects over both transports and echoes, so
// the comparison runs the same tool on each.
func TestPeersEcho(t *testing.T) {
	for _, p := range Peers {
		for _, tr := range []Transport{Pipe, Mem} {
			s, err := p.Connect(tr, nil)
			if err != nil {
				t.Fatalf("%s %s: %v", p.Name, tr, err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			got, err := s.Echo(ctx, "hello")
			cancel()
			s.Close()
			if err != nil || got != "hello" {
				t.Fatalf("%s %s: echo %q, %v", p.Name, tr, got, err)
			}
		}
	}
}

// TestCancelReachesHandler: for the peers that cancel, a cancelled call
// ends its handler's context.
func TestCancelReachesHandler(t *testing.T) {
	for _, p := range Peers {
		if !p.Cancels {
			continue
		}
		for _, tr := range []Transport{Pipe, Mem} {
			l := CancelLatency(p, tr, 3, 5*time.Second)
			if l.Err != nil {
				t.Fatalf("%s %s: %v", p.Name, tr, l.Err)
			}
		}
	}
}
