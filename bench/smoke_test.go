package bench

import (
	"context"
	"testing"
	"time"
)

// TestPeersEcho: every peer connects over every transport at every
// revision, negotiates exactly that revision, and echoes, so the
// comparison runs the same tool at the same revision on each.
func TestPeersEcho(t *testing.T) {
	for _, p := range Peers {
		for _, tr := range []TransportKind{Pipe, WrappedPipe, Mem} {
			for _, rev := range Revisions {
				s, err := p.Connect(tr, rev, nil)
				if err != nil {
					t.Fatalf("%s %s %s: %v", p.Name, tr, rev, err)
				}
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
				got, err := s.Echo(ctx, "hello")
				cancel()
				s.Close()
				if err != nil || got != "hello" {
					t.Fatalf("%s %s %s: echo %q, %v", p.Name, tr, rev, got, err)
				}
				if s.Revision != rev {
					t.Errorf("%s %s: pinned %s, negotiated %q", p.Name, tr, rev, s.Revision)
				}
			}
		}
	}
}

// TestCancelReachesHandler: with every peer, a cancelled call ends its
// handler's context.
func TestCancelReachesHandler(t *testing.T) {
	for _, p := range Peers {
		for _, tr := range []TransportKind{Pipe, WrappedPipe, Mem} {
			for _, rev := range Revisions {
				l := CancelLatency(p, tr, rev, 3, 5*time.Second)
				if l.Err != nil || l.Never {
					t.Fatalf("%s %s %s: %+v", p.Name, tr, rev, l)
				}
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
				if s.Revision != m.Revision() {
					t.Errorf("%s %s %s: negotiated %q", p.Name, m, c, s.Revision)
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
				// mcpgen's own client, through mcp.Connect, must cancel
				// in both eras (by notification, or by closing the
				// stream at 2026-07-28).
				if p.Name == "mcpgen" && c == OwnClient && l.Never {
					t.Errorf("mcpgen %s, own client: the cancelled call never reached the handler", m)
				}
			}
		}
	}
}
