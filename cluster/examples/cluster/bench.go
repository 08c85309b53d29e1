package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcpgen/mcpgen/cluster/internal/mdsection"
)

// runBench is "cluster bench": calls per second through the proxy with
// 1, 2 and 3 replicas, and the failed calls of a rolling restart under
// load, written between the <!-- replicas:begin --> and
// <!-- replicas:end --> markers of -write (bench/BENCHMARKS.md; printed
// when empty):
//
//	cd cluster && go run ./examples/cluster bench -write ../bench/BENCHMARKS.md
//
// The processes are the example's own (a NATS process, replica processes,
// the proxy in this process), and the load is Load: generated clients of
// both eras calling the typed slow tool.
func runBench(args []string) error {
	fs := flag.NewFlagSet("bench", flag.ExitOnError)
	write := fs.String("write", "", "BENCHMARKS.md to update (its replicas section); empty prints the section")
	dur := fs.Duration("d", 5*time.Second, "measuring time per replica count")
	clients := fs.Int("clients", 8, "clients of each era")
	grace := fs.Duration("grace", 2*time.Second, "the replicas' drain grace in the rolling restart")
	fs.Parse(args)
	bin, err := os.Executable()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "mcp-cluster-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	c := &Cluster{Bin: bin, Dir: filepath.Join(dir, "nats"), Lease: 5 * time.Second, Grace: *grace, Linger: 300 * time.Millisecond}
	defer c.Stop()
	if err := c.StartNATS(); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## Replicas behind the proxy: scaling and rolling restarts (issue 35)\n\n")
	fmt.Fprintf(&b, "Regenerate with `cd cluster && go run ./examples/cluster bench -write ../bench/BENCHMARKS.md` (about a minute). This run: %s/%s, %d cores (GOMAXPROCS %d), %s, %s. "+
		"Everything is the cluster example's: a NATS process, replica processes, the round-robin proxy (which probes `/readyz` every 100 ms and retries a 503 with Retry-After on the next replica); "+
		"the load is %d 2025-11-25 sessions and %d 2026-07-28 clients (`streamhttp.Dial` + the generated `mcp.Connect`, the typed `tools.Caller`), each calling `slow` in a loop. "+
		"**No quiet multi-core machine was available**: the clients, the proxy, NATS and every replica share this host's cores (and other work ran beside them), so the replica count cannot show scaling here; the column is what this host gives, not what replicas on their own hosts would.\n\n",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(), time.Now().UTC().Format("2006-01-02 15:04 UTC"), *clients, *clients)
	fmt.Fprintf(&b, "**Calls per second through the proxy** (`slow` with ms 0: a round trip through proxy and replica; %v per row after 1 s of warm-up), and the CPU time each call cost, by process (from /proc and getrusage over the same window): the replicas', NATS's, and this process's (the clients and the proxy). "+
		"Does it scale? Not measurably here: on this host the clients and the proxy take more CPU per call than the replica serving it, and everything shares two cores, so the rate stays flat. "+
		"What the replicas need is in their column: a modern call touches no shared state, and a legacy one reads the session store only when a replica first adopts the session and writes LastActive at most every ActiveInterval, so on hosts of their own N replicas should serve about N times the last column until the proxy or NATS binds (an estimate from CPU time, not a measurement). "+
		"The replicas' CPU per call grows with their number on this host: each process sees fewer calls per wakeup (less batching in its network poller and scheduler) and more processes contend for the same two cores:\n\n", *dur)
	fmt.Fprintf(&b, "| replicas | calls/s | failed | replica CPU per call | NATS CPU per call | clients + proxy CPU per call | one replica on a core of its own (estimate) |\n|---:|---:|---:|---:|---:|---:|---:|\n")
	var reps []*Replica
	for n := 1; n <= 3; n++ {
		r, err := c.StartReplica("r" + strconv.Itoa(n))
		if err != nil {
			return err
		}
		reps = append(reps, r)
		m, err := throughput(c, reps, *clients, *dur)
		if err != nil {
			return err
		}
		per := func(d time.Duration) string {
			return (d / time.Duration(max(m.calls, 1))).Round(time.Microsecond / 10).String()
		}
		ceiling := "-"
		if m.replicaCPU > 0 {
			ceiling = fmt.Sprintf("%.0f calls/s", float64(m.calls)/m.replicaCPU.Seconds())
		}
		fmt.Fprintf(&b, "| %d | %.0f | %d | %s | %s | %s | %s |\n", n, m.rate, m.failed, per(m.replicaCPU), per(m.natsCPU), per(m.selfCPU), ceiling)
	}
	st, took, err := rolling(c, reps, *clients, *grace)
	if err != nil {
		return err
	}
	fmt.Fprintf(&b, "\n**Rolling restart** of the three replicas (each: SIGTERM, drain with a %v grace, exit, a new process on its address, ready) under the same load with `slow` at 20 ms, and before each restart three calls of %v (one lands on the replica restarted, and runs past its grace):\n\n", *grace, 2**grace)
	fmt.Fprintf(&b, "| restart took | calls answered | ended by a drain's grace, with its reason | failed |\n|---:|---:|---:|---:|\n")
	fmt.Fprintf(&b, "| %v | %d | %d | %d |\n", took.Round(100*time.Millisecond), st.OK.Load(), st.PastGrace.Load(), st.Failed.Load())
	if r := st.Reasons(); len(r) > 0 {
		fmt.Fprintf(&b, "\nWhat a call past the grace reads: `%s`.\n", r[0])
	}
	if f := st.Failures(); len(f) > 0 {
		fmt.Fprintf(&b, "\nFailures: `%s`.\n", strings.Join(f, "`, `"))
	}
	b.WriteString("\n")
	if *write == "" {
		fmt.Print(b.String())
		return nil
	}
	return mdsection.Replace(*write, "<!-- replicas:begin -->", "<!-- replicas:end -->", b.String())
}

// serveProxy serves a Proxy over reps (watching their readiness) until
// the returned stop.
func serveProxy(reps []*Replica) (url string, stop func(), err error) {
	var backends []string
	for _, r := range reps {
		backends = append(backends, r.URL)
	}
	p, err := NewProxy(backends)
	if err != nil {
		return "", nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	go p.Watch(ctx, 100*time.Millisecond)
	mux := http.NewServeMux()
	mux.Handle("/mcp", p)
	srv := httptest.NewServer(mux)
	return srv.URL + "/mcp", func() { srv.Close(); cancel() }, nil
}

// measure is one throughput row.
type measure struct {
	rate                         float64
	calls, failed                int64
	replicaCPU, natsCPU, selfCPU time.Duration // over the window, summed over processes
}

// throughput is calls per second through a proxy over reps, and the CPU
// each process spent meanwhile.
func throughput(c *Cluster, reps []*Replica, clients int, d time.Duration) (measure, error) {
	url, stop, err := serveProxy(reps)
	if err != nil {
		return measure{}, err
	}
	defer stop()
	load := &Load{URL: url, Legacy: clients, Modern: clients, CallMs: 0}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := load.Connect(ctx); err != nil {
		return measure{}, err
	}
	load.Start()
	time.Sleep(time.Second) // warm-up
	cpu := func() (replicas, nats, self time.Duration) {
		for _, r := range reps {
			replicas += procCPU(r.Cmd.Process.Pid)
		}
		if c.nats != nil {
			nats = procCPU(c.nats.Process.Pid)
		}
		return replicas, nats, selfCPU()
	}
	r0, n0c, s0 := cpu()
	n0, t0 := load.Stats.OK.Load(), time.Now()
	time.Sleep(d)
	n1, t1 := load.Stats.OK.Load(), time.Now()
	r1, n1c, s1 := cpu()
	load.Stop()
	return measure{rate: float64(n1-n0) / t1.Sub(t0).Seconds(), calls: n1 - n0,
		failed:     load.Stats.Failed.Load() + load.Stats.PastGrace.Load(),
		replicaCPU: r1 - r0, natsCPU: n1c - n0c, selfCPU: s1 - s0}, nil
}

// procCPU is the user + system CPU time of process pid so far (Linux
// /proc; 0 elsewhere).
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The fields after the command (in parentheses, which may hold
	// spaces): utime and stime are the 12th and 13th, in clock ticks
	// (100 a second on Linux).
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0
	}
	u, _ := strconv.ParseInt(f[11], 10, 64)
	k, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+k) * 10 * time.Millisecond
}

// selfCPU is this process's user + system CPU time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// rolling restarts every replica of reps in turn under load.
func rolling(c *Cluster, reps []*Replica, clients int, grace time.Duration) (*LoadStats, time.Duration, error) {
	url, stop, err := serveProxy(reps)
	if err != nil {
		return nil, 0, err
	}
	defer stop()
	load := &Load{URL: url, Legacy: clients, Modern: clients, CallMs: 20}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := load.Connect(ctx); err != nil {
		return nil, 0, err
	}
	load.Start()
	time.Sleep(time.Second)
	start := time.Now()
	var errs []error
	for i, r := range reps {
		load.Long(3, int(2*grace/time.Millisecond), fmt.Sprintf("bench-long-%d", i))
		time.Sleep(200 * time.Millisecond) // the long calls start (a benchmark, not a test: no log to wait on)
		if _, err := c.Restart(r); err != nil {
			errs = append(errs, err)
			break
		}
	}
	took := time.Since(start)
	load.Stop()
	return &load.Stats, took, errors.Join(errs...)
}
