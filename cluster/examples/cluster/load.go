package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/cluster/examples/cluster/tools"
	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// Load is steady traffic from both eras through one URL (the proxy), as
// users' clients send it: each client is streamhttp.Dial with its era and
// the generated mcp.Connect (a 2025-11-25 session through initialize, or
// 2026-07-28 requests), calling the slow tool through the typed
// tools.Caller in a loop. The rolling-restart test and "cluster bench"
// drive it.
type Load struct {
	URL            string
	Legacy, Modern int // clients of each era
	CallMs         int // what each steady call asks the slow tool for
	// Pause between a client's calls (0: none, as fast as they go).
	Pause time.Duration

	clients []*loadClient
	stop    chan struct{}
	wg      sync.WaitGroup
	Stats   LoadStats
}

// LoadStats counts the outcomes of the calls of a Load: answered, ended
// by a drain's grace (a JSON-RPC error whose message names the drain:
// the call ran on a replica past its grace), and failed otherwise.
type LoadStats struct {
	OK, PastGrace, Failed atomic.Int64
	mu                    sync.Mutex
	failures              []string // the first few other failures
	reasons               []string // the first few past-grace errors
}

// Failures returns the first failures (not past the grace) seen, with why.
func (s *LoadStats) Failures() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.failures...)
}

// Reasons returns the first past-grace errors seen, as the clients read them.
func (s *LoadStats) Reasons() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.reasons...)
}

func (s *LoadStats) record(what string, err error) {
	switch {
	case err == nil:
		s.OK.Add(1)
	case strings.Contains(err.Error(), "drain grace"):
		s.PastGrace.Add(1)
		s.mu.Lock()
		if len(s.reasons) < 8 {
			s.reasons = append(s.reasons, what+": "+err.Error())
		}
		s.mu.Unlock()
	default:
		s.Failed.Add(1)
		s.mu.Lock()
		if len(s.failures) < 8 {
			s.failures = append(s.failures, what+": "+err.Error())
		}
		s.mu.Unlock()
	}
}

type loadClient struct {
	name string
	sess *mcp.ClientSession
	call *tools.Caller
}

// Connect connects the clients (each through the URL: their sessions land
// on the replicas round robin).
func (l *Load) Connect(ctx context.Context) error {
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	info := session.Implementation{Name: "cluster-load", Version: "0.1.0"}
	legacy := []session.Revision{mcp20251125.Revision()}
	revisions := append([]session.Revision{mcp.Revision()}, legacy...)
	for i := range l.Legacy + l.Modern {
		era, name := streamhttp.EraModern, fmt.Sprintf("modern-%d", i-l.Legacy)
		if i < l.Legacy {
			era, name = streamhttp.EraLegacy, fmt.Sprintf("legacy-%d", i)
		}
		tr, err := streamhttp.Dial(ctx, l.URL, streamhttp.ClientOptions{Era: era, Revisions: revisions, ClientInfo: info, Logger: quiet})
		if err != nil {
			return fmt.Errorf("%s: dial: %w", name, err)
		}
		sess, err := mcp.Connect(ctx, tr, info, nil, session.WithClientLegacy(legacy...), session.WithClientLogger(quiet))
		if err != nil {
			_ = tr.Close()
			return fmt.Errorf("%s: connect: %w", name, err)
		}
		l.clients = append(l.clients, &loadClient{name: name, sess: sess, call: tools.NewCaller(sess)})
	}
	return nil
}

// Start runs every client's loop of steady calls until Stop.
func (l *Load) Start() {
	l.stop = make(chan struct{})
	for _, c := range l.clients {
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			for {
				select {
				case <-l.stop:
					return
				default:
				}
				l.Stats.record(c.name, c.slow(l.CallMs))
				if l.Pause > 0 {
					select {
					case <-l.stop:
						return
					case <-time.After(l.Pause):
					}
				}
			}
		}()
	}
}

// Long sends n calls of ms each, tagged tag-0 … tag-(n-1) (the replica
// logs "slow started" with the tag), from the clients in turn, beside the
// steady ones, and returns at once; Stop waits for them too.
func (l *Load) Long(n, ms int, tag string) {
	for i := range n {
		c := l.clients[i%len(l.clients)]
		tag := fmt.Sprintf("%s-%d", tag, i)
		l.wg.Add(1)
		go func() {
			defer l.wg.Done()
			l.Stats.record(c.name+" ("+tag+")", c.slowTagged(ms, &tag))
		}()
	}
}

// slow is one call: it is never cancelled by the client (a bound only
// against a hang), so every failure is the cluster's.
func (c *loadClient) slow(ms int) error { return c.slowTagged(ms, nil) }

func (c *loadClient) slowTagged(ms int, tag *string) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(ms)*time.Millisecond+30*time.Second)
	defer cancel()
	_, err := c.call.Slow(ctx, &tools.SlowArgs{Ms: int64(ms), Tag: tag})
	return err
}

// Stop ends the loops, waits for the calls in flight and closes the
// clients (a legacy session is DELETEd).
func (l *Load) Stop() {
	if l.stop != nil {
		close(l.stop)
	}
	l.wg.Wait()
	l.Close()
}

// Close closes the clients.
func (l *Load) Close() {
	for _, c := range l.clients {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = c.sess.Close(ctx)
		cancel()
	}
	l.clients = nil
}
