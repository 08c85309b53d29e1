package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Issue 11, must-show 6: a soak test. Several clients at once, each with its
// own examples/stdio-server over pipes, send sleep calls with numeric,
// string and odd ids (lone surrogates, invalid UTF-8), cancel some at
// random, reuse ids, send malformed lines, read slowly, and some close
// abruptly. For every request sent once: exactly one outcome, a response or
// an applied cancellation (seen in the server's JSON cancellation log),
// never both; every malformed line gets one -32700; RSS stays under 256 MB;
// and once a client's work has settled, the server's goroutines, heap and
// RSS come back to their post-initialize baseline (the server is built with
// the mcpgen_debugstats tag, which adds the mcpgen/debug/stats method, so
// the numbers are the server process's, not the test's; serverstats_test.go).
// Short by default (a few seconds); -hostile.long runs 30 s.
func TestHostileSoak(t *testing.T) {
	bin := debugStatsServer(t)
	clients, dur := 4, 2*time.Second
	if *soakLong {
		clients, dur = 8, 30*time.Second
	}
	var wg sync.WaitGroup
	for k := 0; k < clients; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			t.Run(fmt.Sprintf("client%d", k), func(t *testing.T) { soakClient(t, bin, int64(k), dur, k%4 == 3) })
		}(k)
	}
	wg.Wait()
}

func soakClient(t *testing.T, bin string, seed int64, dur time.Duration, abrupt bool) {
	rng := rand.New(rand.NewSource(seed))
	var mu sync.Mutex
	changed := make(chan struct{}, 1)  // an answer or a log record arrived
	stats := make(chan serverStats, 1) // from mcpgen/debug/stats
	initDone := make(chan struct{})
	applied := map[string]int{} // id JSON text -> applied cancellations
	dropped := false
	c := startChildLogs(t, func(l string) {
		var rec struct {
			Msg   string          `json:"msg"`
			Event string          `json:"event"`
			Dir   string          `json:"direction"`
			ID    json.RawMessage `json:"id"`
		}
		if json.Unmarshal([]byte(l), &rec) != nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		switch {
		case rec.Msg == "cancellation" && rec.Event == "applied" && rec.Dir == "incoming":
			applied[string(rec.ID)]++
		case rec.Msg == "log records dropped" || strings.HasPrefix(rec.Msg, "runtime dropped"):
			dropped = true
		}
		signal(changed)
	}, bin, "--log-format", "json")

	answers := map[string]int{}
	nullErrors := 0
	readDone := make(chan error, 1)
	go func() { // a slow reader: pauses now and then
		br := bufio.NewReaderSize(c.out, 64<<10)
		rr := rand.New(rand.NewSource(seed + 100))
		for {
			line, err := br.ReadBytes('\n')
			if err != nil {
				readDone <- nil
				return
			}
			var m struct {
				ID     json.RawMessage `json:"id"`
				Result serverStats     `json:"result"`
			}
			if json.Unmarshal(line, &m) != nil {
				readDone <- fmt.Errorf("not JSON: %.200s", line)
				return
			}
			if strings.HasPrefix(string(m.ID), `"mcpgen-stats`) {
				stats <- m.Result
				continue
			}
			if string(m.ID) == `"init"` {
				close(initDone)
			}
			mu.Lock()
			if string(m.ID) == "null" {
				nullErrors++
			} else {
				answers[string(m.ID)]++
			}
			mu.Unlock()
			signal(changed)
			if rr.Intn(200) == 0 {
				time.Sleep(time.Duration(rr.Intn(20)) * time.Millisecond)
			}
		}
	}()

	sent := map[string]int{}
	var pending []string
	malformed := 0
	w := bufio.NewWriter(c.in)
	w.WriteString(initLine)
	sent[`"init"`] = 1
	if err := w.Flush(); err != nil {
		t.Fatalf("write: %v", err)
	}
	select {
	case <-initDone:
	case <-time.After(guard):
		t.Fatal("no answer to initialize")
	}
	// The baseline: after initialize, the session's and transport's
	// goroutines are all up (the stdio writer starts with the first reply).
	baseline := queryGoroutines(t, w, stats)
	deadline := time.Now().Add(dur)
	for i := 0; time.Now().Before(deadline); i++ {
		var id string
		switch rng.Intn(4) {
		case 0:
			id = fmt.Sprint(i)
		case 1:
			id = fmt.Sprintf(`"s%d"`, i)
		case 2:
			id = fmt.Sprintf(`"\ud800-%d"`, i) // lone surrogate: must stay exact
		default:
			id = fmt.Sprintf("\"\xff%d\"", i) // invalid UTF-8
		}
		switch op := rng.Intn(20); {
		case op < 12 || len(pending) == 0:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":%d}}}`+"\n", id, rng.Intn(30))
			sent[id]++
			pending = append(pending, id)
		case op < 16:
			victim := pending[rng.Intn(len(pending))]
			fmt.Fprintf(w, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%s,"reason":"soak"}}`+"\n", victim)
		case op < 17:
			dup := pending[rng.Intn(len(pending))] // a reused id: in flight or answered
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"method":"tools/call","params":{"name":"sleep","arguments":{"ms":1}}}`+"\n", dup)
			sent[dup]++
		case op < 19:
			w.WriteString([]string{"garbage", "{", `{"jsonrpc":"2.0","id":1.5,"method":"x"}`, "[]"}[rng.Intn(4)] + "\n")
			malformed++
		default:
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":"p%d","method":"ping"}`+"\n", i)
			sent[fmt.Sprintf(`"p%d"`, i)]++
		}
		if len(pending) > 64 {
			pending = pending[32:]
		}
		if rng.Intn(16) == 0 {
			if err := w.Flush(); err != nil {
				t.Fatalf("write: %v", err)
			}
			time.Sleep(time.Millisecond) // pace: a soak, not a flood
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatalf("write: %v", err)
	}
	if abrupt {
		// Close both directions at once: the server must still exit.
		c.in.Close()
		c.out.Close()
		select {
		case <-c.exited:
		case <-time.After(10 * time.Second):
			t.Fatal("server did not exit after an abrupt close")
		}
		<-readDone
		return
	}
	// Settled: every request sent has an outcome (a response, or an applied
	// cancellation in the log; a reused id at least one). Unless the log
	// dropped records, when only the goroutine count can say.
	settled := func() bool {
		mu.Lock()
		defer mu.Unlock()
		if dropped {
			return true
		}
		for id, n := range sent {
			if o := answers[id] + applied[id]; o < 1 || (n == 1 && o != 1) {
				return false
			}
		}
		return true
	}
	for deadline := time.After(guard); !settled(); {
		select {
		case <-changed:
		case <-deadline:
			t.Fatal("requests still without an outcome")
		}
	}
	// Parked handler goroutines outlive their request by up to a second
	// (runtime/workers.go), so poll until the count is back, bounded; the
	// assertion is that it comes back, not how fast. Polls are spaced by
	// more than that second: each stats request is served by a parked
	// worker, and frequent polls would keep the parked ones alive.
	after := queryGoroutines(t, w, stats)
	final := after
	tick := time.NewTicker(1200 * time.Millisecond)
	for deadline := time.After(6 * time.Second); !atBaseline(final, baseline); {
		select {
		case <-tick.C:
			final = queryGoroutines(t, w, stats)
		case <-deadline:
			t.Fatalf("server: %v after initialize, %v when settled, still %v after 6 s", baseline, after, final)
		}
	}
	tick.Stop()
	// The peak so far (VmHWM; rusage's maxrss would count the test binary
	// the child was forked from).
	peak := c.peakRSS(t)
	c.in.Close() // EOF: everything already read is answered or cancelled
	if err := <-readDone; err != nil {
		t.Fatal(err)
	}
	select {
	case <-c.exited:
	case <-time.After(10 * time.Second):
		t.Fatal("server did not exit after EOF")
	}
	c.errWG.Wait()
	if peak > 256<<20 {
		t.Errorf("peak RSS %d MB, want < 256 MB", peak>>20)
	}
	mu.Lock()
	defer mu.Unlock()
	if dropped {
		t.Skip("the server dropped log records; cancellation outcomes cannot be counted")
	}
	requests, both := 0, 0
	for id, n := range sent {
		a, ap := answers[id], applied[id]
		requests += n
		if n == 1 {
			if a+ap != 1 {
				t.Errorf("id %s sent once: %d responses, %d applied cancellations", id, a, ap)
			}
			continue
		}
		// A reused id may be dropped as a duplicate while the first is in
		// flight; never more outcomes than requests, never none.
		if a+ap < 1 || a+ap > n {
			t.Errorf("id %s sent %d times: %d responses, %d applied cancellations", id, n, a, ap)
		}
		if ap > 0 && a > 0 {
			both++
		}
	}
	for id := range answers {
		if sent[id] == 0 {
			t.Errorf("response to id %s, which was never sent", id)
		}
	}
	if nullErrors != malformed {
		t.Errorf("%d malformed lines, %d error responses with id null", malformed, nullErrors)
	}
	napplied := 0
	for _, n := range applied {
		napplied += n
	}
	t.Logf("%d requests, %d distinct ids, %d cancellations applied, %d malformed lines, %d ids answered after an applied cancel of a reuse; peak RSS %d MB; server %v after initialize, %v when settled, %v at the end",
		requests, len(sent), napplied, malformed, both, peak>>20, baseline, after, final)
}

// goroutineSlack is how far above its post-initialize baseline the server's
// goroutine count may end: both counts include the worker answering the
// stats request, and the stdio transport's reader and writer are up in
// both; the slack covers a worker parked from the previous stats request
// that has not yet been handed the next one.
const goroutineSlack = 2

var statsSeq atomic.Int64

// queryGoroutines asks the server for its numbers (goroutines, heap, RSS).
// The reader goroutine routes the answer to stats.
func queryGoroutines(t *testing.T, w *bufio.Writer, stats <-chan serverStats) serverStats {
	t.Helper()
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":"mcpgen-stats-%d","method":"mcpgen/debug/stats"}`+"\n", statsSeq.Add(1))
	if err := w.Flush(); err != nil {
		t.Fatalf("write: %v", err)
	}
	select {
	case s := <-stats:
		return s
	case <-time.After(guard):
		t.Fatal("no answer to mcpgen/debug/stats")
	}
	return serverStats{}
}

// signal wakes a waiter on ch without blocking.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

var (
	debugOnce sync.Once
	debugBin  string
	debugErr  error
)

// debugStatsServer builds examples/stdio-server with the mcpgen_debugstats
// tag (and without -race, like plainServer), once.
func debugStatsServer(t *testing.T) string {
	t.Helper()
	plainServer(t) // skips without /proc
	debugOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mcpgen-soak-")
		if err != nil {
			debugErr = err
			return
		}
		debugBin = filepath.Join(dir, "stdio-server")
		cmd := exec.Command("go", "build", "-tags", "mcpgen_debugstats", "-o", debugBin, "github.com/mcpgen/mcpgen/examples/stdio-server")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		debugErr = cmd.Run()
	})
	if debugErr != nil {
		t.Fatalf("building the server with mcpgen_debugstats: %v", debugErr)
	}
	return debugBin
}
