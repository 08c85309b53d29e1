package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Rolling-restart settings: a short grace so the test is cheap; the
// linger covers the proxy's probe interval (rollingProbe) twice.
const (
	rollingGrace  = time.Second
	rollingLinger = 300 * time.Millisecond
	rollingProbe  = 100 * time.Millisecond
)

// TestRollingRestart is must-show 2 of issue 35 end to end: the three
// replicas are restarted one after the other (SIGTERM, drain, exit, a new
// process on the same address) under steady load through the proxy from
// both eras, 2025-11-25 sessions and 2026-07-28 requests, made by the
// generated clients. No call fails, except calls still running on a
// replica when its grace ran out (here: long calls sent just before each
// restart), and each of those ends with the drain's reason. The legacy
// sessions outlive every replica that held them: each call of theirs after
// the restarts is served by a replica that adopted it from the store. Of
// two tasks, the one that finishes within the grace completes, and the one
// that cannot fails when its replica drains, with the drain's reason.
func TestRollingRestart(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	dir := t.TempDir()
	logs := filepath.Join(dir, "logs")
	os.Mkdir(logs, 0o755)
	c := &Cluster{Bin: buildOnce(t), Dir: filepath.Join(dir, "nats"), Lease: e2eLease, LogDir: logs,
		Grace: rollingGrace, Linger: rollingLinger}
	t.Cleanup(func() {
		c.Stop()
		if t.Failed() {
			dumpLogs(t, logs)
		}
	})
	if err := c.StartNATS(); err != nil {
		t.Fatal(err)
	}
	var backends []string
	for _, name := range []string{"r1", "r2", "r3"} {
		r, err := c.StartReplica(name)
		if err != nil {
			t.Fatal(err)
		}
		backends = append(backends, r.URL)
	}
	p, err := NewProxy(backends)
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	go p.Watch(ctx, rollingProbe)
	mux := http.NewServeMux()
	mux.Handle("/mcp", p)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	load := &Load{URL: srv.URL + "/mcp", Legacy: 3, Modern: 3, CallMs: 20}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := load.Connect(cctx); err != nil {
		t.Fatal(err)
	}
	load.Start()
	stopped := false
	defer func() {
		if !stopped {
			load.Stop()
		}
	}()

	c.mu.Lock()
	reps := append([]*Replica(nil), c.Replicas...)
	c.mu.Unlock()
	logsOf := &e2e{t: t, c: c, url: srv.URL + "/mcp", logs: logs}
	// Two tasks, whose work runs on the replica that created them: one
	// finishes within any grace, one runs past every grace (its replica
	// is restarted too, since all three are).
	short := logsOf.createTask(`{"ms":300,"tag":"task-short"}`)
	long := logsOf.createTask(`{"ms":120000,"tag":"task-long"}`)
	logsOf.awaitLog(10*time.Second, "slow started", "tag=task-long")
	start := time.Now()
	for i, r := range reps {
		// Three long calls land round robin on the three replicas: the
		// one on r runs past its grace.
		tag := fmt.Sprintf("long-%d", i)
		load.Long(3, int(2*rollingGrace/time.Millisecond), tag)
		for k := range 3 {
			logsOf.awaitLog(10*time.Second, "slow started", fmt.Sprintf("tag=%s-%d", tag, k))
		}
		if _, err := c.Restart(r); err != nil {
			t.Fatal(err)
		}
	}
	took := time.Since(start)
	load.Stop()
	stopped = true

	// Tasks are finished, not taken over: the short one completed; the
	// long one failed when its replica drained, with the drain's reason
	// (not the lease sweeper's "stopped (lease expired)").
	if v, _ := logsOf.awaitTask(short.TaskID, 10*time.Second); v.Status != "completed" {
		t.Errorf("the short task: %+v", v)
	}
	if v, _ := logsOf.awaitTask(long.TaskID, 10*time.Second); v.Status != "failed" ||
		!strings.Contains(v.StatusMessage, "shut down: the task ran past its drain grace (1s)") {
		t.Errorf("the long task: %+v", v)
	}

	st := &load.Stats
	t.Logf("rolling restart of 3 replicas in %v: %d calls answered, %d ended by a drain's grace, %d failed",
		took.Round(time.Millisecond), st.OK.Load(), st.PastGrace.Load(), st.Failed.Load())
	if n := st.Failed.Load(); n != 0 {
		t.Errorf("%d calls failed during the rolling restart: %q", n, st.Failures())
	}
	if st.PastGrace.Load() == 0 {
		t.Error("no long call ran past a grace: the drain's cancellation was not exercised")
	}
	for _, r := range st.Reasons() {
		if !strings.Contains(r, "server draining: it ran past the drain grace (1s)") {
			t.Errorf("a call past the grace ended without the drain's reason: %s", r)
		}
	}
	if st.OK.Load() < 100 {
		t.Errorf("only %d calls answered: the load was not steady", st.OK.Load())
	}
}

// dumpLogs logs the tail of each replica's log.
func dumpLogs(t *testing.T, dir string) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.log"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		t.Logf("--- %s (last %d lines)\n%s", filepath.Base(f), min(len(lines), 60), strings.Join(lines[max(0, len(lines)-60):], "\n"))
	}
}
