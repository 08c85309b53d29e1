package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// Issue 25, must-show 5: the hostile tests check the server process itself,
// not only the test process (goleak): after each hostile client's work has
// been answered, the server's goroutines and its memory come back to what
// they were after initialize. The numbers come from the server, through
// the mcpgen/debug/stats method of examples/stdio-server built with the
// mcpgen_debugstats tag (debugStatsServer), measured there after a
// collection and after freed memory went back to the OS, so they show what
// the process still holds.

// serverStats is mcpgen/debug/stats' result (examples/stdio-server/debugstats.go).
type serverStats struct {
	Goroutines int    `json:"goroutines"`
	HeapInuse  uint64 `json:"heapInuse"`
	RSS        int64  `json:"rss"`
}

func (s serverStats) String() string {
	return fmt.Sprintf("%d goroutines, heap %.1f MB, RSS %.1f MB", s.Goroutines, float64(s.HeapInuse)/(1<<20), float64(s.RSS)/(1<<20))
}

// Back at baseline means: goroutines within goroutineSlack, and memory
// within these bounds of the post-initialize figures. They are what a
// process that kept anything per request after 100,000 requests (a table
// entry, a buffer, a parked goroutine each) could not meet, and wide enough
// for what the Go runtime keeps for itself (RSS counts pages it has not yet
// given back, and the grown buffers of the stdio transport).
const (
	heapSlack = 4 << 20
	rssSlack  = 12 << 20
)

// reader is the child's stdout, buffered once for all the test's reads.
func (c *child) reader() *bufio.Reader {
	if c.br == nil {
		c.br = bufio.NewReaderSize(c.out, 1<<20)
	}
	return c.br
}

// initialize sends initialize and waits for its answer.
func (c *child) initialize(t *testing.T) {
	t.Helper()
	if _, err := c.in.Write([]byte(initLine)); err != nil {
		t.Fatal(err)
	}
	line, err := c.reader().ReadBytes('\n')
	if err != nil || !strings.Contains(string(line), `"id":"init","result"`) {
		t.Fatalf("initialize answered with %q, %v", line, err)
	}
}

// stats asks the server for its numbers and reads the answer; nothing else
// may be unread on its stdout.
func (c *child) stats(t *testing.T) serverStats {
	t.Helper()
	id := fmt.Sprintf("mcpgen-stats-%d", statsSeq.Add(1))
	if _, err := fmt.Fprintf(c.in, `{"jsonrpc":"2.0","id":%q,"method":"mcpgen/debug/stats"}`+"\n", id); err != nil {
		t.Fatal(err)
	}
	line, err := c.reader().ReadBytes('\n')
	if err != nil {
		t.Fatalf("reading the stats answer: %v", err)
	}
	var m struct {
		ID     string      `json:"id"`
		Result serverStats `json:"result"`
	}
	if err := json.Unmarshal(line, &m); err != nil || m.ID != id {
		t.Fatalf("stats answered with %.300s (%v)", line, err)
	}
	return m.Result
}

// backToBaseline polls the server's numbers until they are back within the
// slack of base, and fails after 6 s. Polls are spaced by more than a
// second, the time a parked handler goroutine outlives its request
// (runtime/jsonrpc2/workers.go): each stats request is served by a parked
// worker, and frequent polls would keep the parked ones alive.
func (c *child) backToBaseline(t *testing.T, base serverStats) serverStats {
	t.Helper()
	s := c.stats(t)
	tick := time.NewTicker(1200 * time.Millisecond)
	defer tick.Stop()
	for deadline := time.After(6 * time.Second); !atBaseline(s, base); {
		select {
		case <-tick.C:
			s = c.stats(t)
		case <-deadline:
			t.Fatalf("server not back to its baseline: after initialize %v; 6 s after the work settled %v", base, s)
		}
	}
	return s
}

func atBaseline(s, base serverStats) bool {
	return s.Goroutines <= base.Goroutines+goroutineSlack &&
		s.HeapInuse <= base.HeapInuse+heapSlack &&
		(base.RSS == 0 || s.RSS <= base.RSS+rssSlack)
}
