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
		for _, tr := range []TransportKind{Pipe, Mem} {
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

// TestCancelReachesHandler: with every peer, a cancelled call ends its
// handler's context.
func TestCancelReachesHandler(t *testing.T) {
	for _, p := range Peers {
		for _, tr := range []TransportKind{Pipe, Mem} {
			l := CancelLatency(p, tr, 3, 5*time.Second)
			if l.Err != nil || l.Never {
				t.Fatalf("%s %s: %+v", p.Name, tr, l)
			}
		}
	}
}

// TestHTTPPeersEcho: every HTTP peer answers echo in every mode, to its own
// client and to the raw one, and the raw client sees the response kind
// (JSON or SSE) the mode asks for.
func TestHTTPPeersEcho(t *testing.T) {
	for _, p := range HTTPPeers {
		for _, m := range HTTPModes {
			for _, c := range []HTTPClient{OwnClient, RawClient} {
				s, err := HTTPConnector(p, m, c)(nil)
				if err != nil {
					t.Fatalf("%s %s %s: connect: %v", p.Name, m, c, err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				got, err := s.Echo(ctx, "hello")
				cancel()
				s.Close()
				if err != nil || got != "hello" {
					t.Fatalf("%s %s %s: echo %q, %v", p.Name, m, c, got, err)
				}
			}
		}
	}
}

// TestHTTPCancel: a cancelled call returns to its caller in every mode;
// the modern raw abort reaches the handler of every peer.
func TestHTTPCancel(t *testing.T) {
	for _, p := range HTTPPeers {
		for _, m := range HTTPModes {
			for _, c := range []HTTPClient{OwnClient, RawClient} {
				l := HTTPCancelLatency(p, m, c, 2, 200*time.Millisecond)
				t.Logf("%s %s %s: %+v", p.Name, m, c, l)
				if l.Err != nil {
					t.Fatalf("%s %s %s: %v", p.Name, m, c, l.Err)
				}
				if m.Era == Modern && c == RawClient && l.Never {
					t.Errorf("%s %s: closing the stream did not cancel the handler", p.Name, m)
				}
			}
		}
	}
}
