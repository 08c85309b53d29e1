// Command clusterbench measures what running replicas on NATS costs, and
// writes the cluster section of bench/BENCHMARKS.md (between the
// <!-- cluster:begin --> and <!-- cluster:end --> markers, appended at the
// end if absent; the rest of the file is left as it is):
//
//	cd cluster && go run ./cmd/clusterbench -write ../bench/BENCHMARKS.md
//
// Everything runs in this process on the documented path: a NATS server
// with JetStream (nats-server/v2, file storage in a temporary directory),
// replicas built as users build them (the generated mcp.NewServer with
// session.WithLegacy, the cluster example's typed tools, tasks.WithTasks,
// streamhttp), each with its own NATS connection, natscluster.TaskStore and
// a Bus on NATS, and a client speaking Streamable HTTP 2026-07-28 to them.
//
//   - Task cancellation latency: from sending tasks/cancel to the work's
//     ctx ending, p50/p99, for one process (MemoryStore, no bus), for the
//     NATS store with tasks/cancel on the replica running the task, and
//     across replicas (tasks/cancel on another replica: the cancelled state
//     is written to JetStream, then the message crosses NATS), on the
//     durable bus (NewDurableBus, as the example) and on the core one.
//   - Task create/get/cancel throughput through the NATS store, over HTTP
//     with 8 concurrent clients against two replicas, beside one process
//     with the MemoryStore; and raw TaskStore operations.
//   - Memory per stored session and per task record in JetStream.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpgen/mcpgen/cluster/examples/cluster/tools"
	"github.com/mcpgen/mcpgen/cluster/internal/mdsection"
	"github.com/mcpgen/mcpgen/cluster/natscluster"
	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/cluster"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/tasks"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func main() {
	write := flag.String("write", "", "BENCHMARKS.md to update (its cluster section); empty prints the section")
	n := flag.Int("n", 300, "cancellations per mode")
	ops := flag.Int("ops", 400, "tasks per throughput phase")
	flag.Parse()
	sec, err := run(*n, *ops)
	if err != nil {
		fmt.Fprintln(os.Stderr, "clusterbench:", err)
		os.Exit(1)
	}
	if *write == "" {
		fmt.Print(sec)
		return
	}
	if err := replaceSection(*write, sec); err != nil {
		fmt.Fprintln(os.Stderr, "clusterbench:", err)
		os.Exit(1)
	}
}

const (
	beginMarker = "<!-- cluster:begin -->"
	endMarker   = "<!-- cluster:end -->"
)

// replaceSection puts sec between the markers of path (mdsection.Replace).
func replaceSection(path, sec string) error {
	return mdsection.Replace(path, beginMarker, endMarker, sec)
}

// work is the slow tool of the example, instrumented: it reports when it
// starts and when its ctx ends, by tag.
type work struct {
	replica string
	mu      sync.Mutex
	started map[string]chan struct{}
	ended   map[string]chan time.Time
}

func newWork() *work {
	return &work{started: map[string]chan struct{}{}, ended: map[string]chan time.Time{}}
}

func (w *work) expect(tag string) (started chan struct{}, ended chan time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	started, ended = make(chan struct{}, 1), make(chan time.Time, 1)
	w.started[tag], w.ended[tag] = started, ended
	return
}

func (w *work) chans(tag string) (chan struct{}, chan time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.started[tag], w.ended[tag]
}

// Slow waits for a.Ms or its ctx.
func (w *work) Slow(ctx context.Context, a *tools.SlowArgs) (*tools.SlowResult, error) {
	tag := ""
	if a.Tag != nil {
		tag = *a.Tag
	}
	started, ended := w.chans(tag)
	if started != nil {
		started <- struct{}{}
	}
	t := time.NewTimer(time.Duration(a.Ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return &tools.SlowResult{Replica: w.replica, Tag: a.Tag}, nil
	case <-ctx.Done():
		if ended != nil {
			ended <- time.Now()
		}
		return nil, context.Cause(ctx)
	}
}

// Announce is not measured.
func (w *work) Announce(context.Context, *tools.AnnounceArgs) (*tools.AnnounceResult, error) {
	return nil, errors.New("not measured")
}

// Confirm is not measured.
func (w *work) Confirm(context.Context, *tools.ConfirmArgs) (*tools.ConfirmResult, error) {
	return nil, errors.New("not measured")
}

// Whoami names the replica.
func (w *work) Whoami(context.Context, *tools.WhoamiArgs) (*tools.WhoamiResult, error) {
	return &tools.WhoamiResult{Replica: w.replica}, nil
}

// replica is one server: its URL, its Manager, its tool.
type replica struct {
	url  string
	mgr  *tasks.Manager
	work *work
	stop func()
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func startReplica(name string, store tasks.Store, bus cluster.Bus, sessions cluster.SessionStore, w *work) (*replica, error) {
	w.replica = name
	mgr := tasks.NewManager(tasks.Config{
		Methods:     []string{"tools/call"},
		ToolSupport: func(string) tasks.Support { return tasks.Optional },
		Store:       store, Bus: bus, Replica: name, Lease: 10 * time.Second,
		Unbound: true, MaxActive: -1, RateLimit: tasks.RateLimit{PerSecond: -1},
		Logger: quiet,
	})
	srv := mcp.NewServer(session.Implementation{Name: "clusterbench", Version: "0"}, tools.NewHandler(w),
		session.WithLegacy(mcp20251125.Revision()), tasks.WithTasks(mgr), session.WithLogger(quiet))
	h := streamhttp.NewHandler(srv, streamhttp.Options{Logger: quiet, Sessions: sessions, Bus: bus, Replica: name})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	hs := streamhttp.NewHTTPServer(ln.Addr().String(), mux)
	go hs.Serve(ln)
	return &replica{url: "http://" + ln.Addr().String() + "/mcp", mgr: mgr, work: w, stop: func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.Close(ctx)
		hs.Shutdown(ctx)
		mgr.Close(ctx)
	}}, nil
}

var client = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"0"},"io.modelcontextprotocol/clientCapabilities":{"extensions":{"io.modelcontextprotocol/tasks":{}}}}`

// call posts one modern request and returns its result.
func call(url, method, name, params string) (json.RawMessage, error) {
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params + `}`
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	req.Header.Set("Mcp-Name", name)
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if i := bytes.Index(b, []byte("data: ")); i >= 0 && strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b = bytes.TrimSpace(b[i+6:])
		if k := bytes.IndexByte(b, '\n'); k >= 0 {
			b = b[:k]
		}
	}
	var r struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %d %q", method, resp.StatusCode, b)
	}
	if r.Error != nil {
		return nil, fmt.Errorf("%s: %s", method, r.Error.Message)
	}
	return r.Result, nil
}

func createTask(url, args string) (string, error) {
	raw, err := call(url, "tools/call", "slow", `{"name":"slow","arguments":`+args+`,`+meta+`}`)
	if err != nil {
		return "", err
	}
	var t struct {
		TaskID string `json:"taskId"`
	}
	if err := json.Unmarshal(raw, &t); err != nil || t.TaskID == "" {
		return "", fmt.Errorf("not a task: %s", raw)
	}
	return t.TaskID, nil
}

func taskOp(url, method, id string) error {
	_, err := call(url, method, id, `{"taskId":"`+id+`",`+meta+`}`)
	return err
}

// cancelOnce creates a task on runner and cancels it through canceller,
// timing tasks/cancel sent → the work's ctx done.
func cancelOnce(runner, canceller *replica, i int) (time.Duration, error) {
	tag := fmt.Sprintf("c%d-%d", time.Now().UnixNano(), i)
	started, ended := runner.work.expect(tag)
	id, err := createTask(runner.url, `{"ms":600000,"tag":"`+tag+`"}`)
	if err != nil {
		return 0, err
	}
	<-started
	t0 := time.Now()
	if err := taskOp(canceller.url, "tasks/cancel", id); err != nil {
		return 0, err
	}
	select {
	case t1 := <-ended:
		return t1.Sub(t0), nil
	case <-time.After(30 * time.Second):
		return 0, errors.New("cancellation never reached the work")
	}
}

// cancelLatency measures n cancellations per pair, the pairs interleaved
// (one of each in turn), so a slow stretch of a shared host falls on all;
// the first tenth warms up.
func cancelLatency(pairs [][2]*replica, n int) ([][]time.Duration, error) {
	out := make([][]time.Duration, len(pairs))
	for i := range n + n/10 {
		for k, p := range pairs {
			d, err := cancelOnce(p[0], p[1], i)
			if err != nil {
				return nil, err
			}
			if i >= n/10 {
				out[k] = append(out[k], d)
			}
		}
	}
	return out, nil
}

// legacyPost posts one message of a legacy session to url; the answer
// is not read beyond the status (a notification gets 202).
func legacyPost(ctx context.Context, url, sid, body string) (*http.Response, error) {
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	return client.Do(req)
}

// legacySession initializes a 2025-11-25 session on url.
func legacySession(url string) (string, error) {
	resp, err := legacyPost(context.Background(), url, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}`)
	if err != nil {
		return "", err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		return "", fmt.Errorf("initialize: %d, no session id", resp.StatusCode)
	}
	resp, err = legacyPost(context.Background(), url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if err != nil {
		return "", err
	}
	resp.Body.Close()
	return sid, nil
}

// legacyCancelOnce runs a request of session sid on runner and sends its
// notifications/cancelled to canceller, timing the cancel's POST sent →
// the handler's ctx done.
func legacyCancelOnce(runner, canceller *replica, sid string, i int) (time.Duration, error) {
	tag := fmt.Sprintf("l%d-%d", time.Now().UnixNano(), i)
	started, ended := runner.work.expect(tag)
	id := 1000 + i
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		resp, err := legacyPost(ctx, runner.url, sid, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"slow","arguments":{"ms":600000,"tag":%q}}}`, id, tag))
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}()
	select {
	case <-started:
	case <-time.After(30 * time.Second):
		return 0, errors.New("legacy request never started")
	}
	t0 := time.Now()
	resp, err := legacyPost(context.Background(), canceller.url, sid, fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d,"reason":"bench"}}`, id))
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	select {
	case t1 := <-ended:
		return t1.Sub(t0), nil
	case <-time.After(30 * time.Second):
		return 0, errors.New("notifications/cancelled never reached the handler")
	}
}

// legacyCancelLatency is cancelLatency for notifications/cancelled, one
// session per pair (initialized on the runner).
func legacyCancelLatency(pairs [][2]*replica, n int) ([][]time.Duration, error) {
	sids := make([]string, len(pairs))
	for k, p := range pairs {
		sid, err := legacySession(p[0].url)
		if err != nil {
			return nil, err
		}
		sids[k] = sid
	}
	out := make([][]time.Duration, len(pairs))
	for i := range n + n/10 {
		for k, p := range pairs {
			d, err := legacyCancelOnce(p[0], p[1], sids[k], i)
			if err != nil {
				return nil, err
			}
			if i >= n/10 {
				out[k] = append(out[k], d)
			}
		}
	}
	return out, nil
}

func pct(d []time.Duration, p float64) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, int(float64(len(s))*p))]
}

// throughput runs ops tasks through create, get and cancel phases with 8
// concurrent clients spread over urls, and returns each phase's rate.
func throughput(urls []string, ops int) (create, get, cancel float64, err error) {
	ids := make([]string, ops)
	phase := func(f func(i int) error) (float64, error) {
		var next atomic.Int64
		var wg sync.WaitGroup
		var firstErr atomic.Value
		start := time.Now()
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := int(next.Add(1)) - 1
					if i >= ops {
						return
					}
					if err := f(i); err != nil {
						firstErr.CompareAndSwap(nil, err)
						return
					}
				}
			}()
		}
		wg.Wait()
		if e, ok := firstErr.Load().(error); ok {
			return 0, e
		}
		return float64(ops) / time.Since(start).Seconds(), nil
	}
	if create, err = phase(func(i int) error {
		id, err := createTask(urls[i%len(urls)], `{"ms":600000}`)
		ids[i] = id
		return err
	}); err != nil {
		return
	}
	if get, err = phase(func(i int) error { return taskOp(urls[(i+1)%len(urls)], "tasks/get", ids[i]) }); err != nil {
		return
	}
	cancel, err = phase(func(i int) error { return taskOp(urls[(i+1)%len(urls)], "tasks/cancel", ids[i]) })
	return
}

// storeOps measures raw TaskStore Create, Get and Update with 8 goroutines.
func storeOps(s *natscluster.TaskStore, ops int) (create, get, update float64, err error) {
	ctx := context.Background()
	prefix := fmt.Sprintf("raw%d-", time.Now().UnixNano())
	phase := func(f func(i int) error) (float64, error) {
		var next atomic.Int64
		var wg sync.WaitGroup
		var firstErr atomic.Value
		start := time.Now()
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := int(next.Add(1)) - 1
					if i >= ops {
						return
					}
					if err := f(i); err != nil {
						firstErr.CompareAndSwap(nil, err)
						return
					}
				}
			}()
		}
		wg.Wait()
		if e, ok := firstErr.Load().(error); ok {
			return 0, e
		}
		return float64(ops) / time.Since(start).Seconds(), nil
	}
	now := time.Now()
	if create, err = phase(func(i int) error {
		return s.Create(ctx, tasks.Record{Task: tasks.Task{TaskID: fmt.Sprint(prefix, i), Status: tasks.Working}, Owner: "o", Created: now})
	}); err != nil {
		return
	}
	if get, err = phase(func(i int) error { _, err := s.Get(ctx, fmt.Sprint(prefix, i)); return err }); err != nil {
		return
	}
	update, err = phase(func(i int) error {
		_, err := s.Update(ctx, fmt.Sprint(prefix, i), func(r *tasks.Record) error { r.Task.Status = tasks.Cancelled; return nil })
		return err
	})
	return
}

// sessionMemory stores n typical legacy session records in
// natscluster.SessionStore (the bytes JetStream keeps per record) and in
// the in-process MemorySessionStore (heap per record).
func sessionMemory(js jetstream.JetStream, n int) (kvBytes, heapBytes float64, err error) {
	ctx := context.Background()
	rec := func(i int) cluster.SessionRecord {
		now := time.Now()
		return cluster.SessionRecord{ID: fmt.Sprintf("%032x", i), Revision: "2025-11-25", Initialized: true,
			ClientInfo:         json.RawMessage(`{"name":"example-client","version":"1.4.2"}`),
			ClientCapabilities: json.RawMessage(`{"roots":{"listChanged":true},"sampling":{},"elicitation":{}}`),
			LogLevel:           "info", Owner: "alice@example.com", Replica: "r1", Created: now, LastActive: now}
	}
	store, err := natscluster.NewSessionStore(ctx, js, natscluster.SessionStoreConfig{Bucket: "bench-sessions"})
	if err != nil {
		return 0, 0, err
	}
	for i := range n {
		if err := store.Create(ctx, rec(i)); err != nil {
			return 0, 0, err
		}
	}
	kv, err := js.KeyValue(ctx, "bench-sessions")
	if err != nil {
		return 0, 0, err
	}
	st, err := kv.Status(ctx)
	if err != nil {
		return 0, 0, err
	}
	kvBytes = float64(st.Bytes()) / float64(n)

	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	ms := cluster.NewMemorySessionStore()
	for i := range n {
		if err := ms.Create(ctx, rec(i)); err != nil {
			return 0, 0, err
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	heapBytes = float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
	runtime.KeepAlive(ms)
	return kvBytes, heapBytes, nil
}

func run(n, ops int) (string, error) {
	dir, err := os.MkdirTemp("", "clusterbench-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	ns, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: dir, NoLog: true, NoSigs: true})
	if err != nil {
		return "", err
	}
	go ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		return "", errors.New("nats not ready")
	}
	defer ns.Shutdown()
	conn := func() (*nats.Conn, error) { return nats.Connect(ns.ClientURL()) }
	ctx := context.Background()
	newStore := func(nc *nats.Conn, bucket string) (*natscluster.TaskStore, error) {
		return natscluster.NewTaskStore(ctx, nc, natscluster.TaskStoreOptions{Bucket: bucket})
	}

	// One process: MemoryStore, no bus.
	local, err := startReplica("solo", tasks.NewMemoryStore(), nil, nil, newWork())
	if err != nil {
		return "", err
	}
	defer local.stop()
	// Two replicas on NATS, each with its own connection.
	// a and b as the cluster example runs them: cancellations through the
	// durable bus's JetStream stream; c and d on the core NATS bus
	// (NewBus), for comparison.
	var reps []*replica
	for _, name := range []string{"a", "b", "c", "d"} {
		nc, err := conn()
		if err != nil {
			return "", err
		}
		defer nc.Close()
		st, err := newStore(nc, "bench-tasks")
		if err != nil {
			return "", err
		}
		js, err := jetstream.New(nc)
		if err != nil {
			return "", err
		}
		sessions, err := natscluster.NewSessionStore(ctx, js, natscluster.SessionStoreConfig{Bucket: "bench-legacy-sessions"})
		if err != nil {
			return "", err
		}
		var bus cluster.Bus = natscluster.NewBus(nc)
		if name == "a" || name == "b" {
			if bus, err = natscluster.NewDurableBus(ctx, nc, natscluster.DurableConfig{}); err != nil {
				return "", err
			}
		}
		r, err := startReplica(name, st, bus, sessions, newWork())
		if err != nil {
			return "", err
		}
		defer r.stop()
		reps = append(reps, r)
	}

	fmt.Fprintln(os.Stderr, "clusterbench: cancellation latency")
	lat, err := cancelLatency([][2]*replica{{local, local}, {reps[0], reps[0]}, {reps[0], reps[1]}, {reps[2], reps[3]}}, n)
	if err != nil {
		return "", err
	}
	latLocal, latSame, latCross, latCore := lat[0], lat[1], lat[2], lat[3]
	llat, err := legacyCancelLatency([][2]*replica{{local, local}, {reps[0], reps[0]}, {reps[0], reps[1]}, {reps[2], reps[3]}}, n)
	if err != nil {
		return "", fmt.Errorf("legacy cancellation: %w", err)
	}

	fmt.Fprintln(os.Stderr, "clusterbench: throughput")
	lc, lg, lx, err := throughput([]string{local.url}, ops)
	if err != nil {
		return "", fmt.Errorf("one process throughput: %w", err)
	}
	nc2, ng, nx, err := throughput([]string{reps[0].url, reps[1].url}, ops)
	if err != nil {
		return "", fmt.Errorf("NATS throughput: %w", err)
	}
	rawNC, err := conn()
	if err != nil {
		return "", err
	}
	defer rawNC.Close()
	rawStore, err := newStore(rawNC, "bench-raw")
	if err != nil {
		return "", err
	}
	rc, rg, ru, err := storeOps(rawStore, 2000)
	if err != nil {
		return "", fmt.Errorf("raw store: %w", err)
	}

	fmt.Fprintln(os.Stderr, "clusterbench: memory")
	js, err := jetstream.New(rawNC)
	if err != nil {
		return "", err
	}
	kvPerSession, heapPerSession, err := sessionMemory(js, 20000)
	if err != nil {
		return "", err
	}
	kvTasks, err := js.KeyValue(ctx, "bench-raw")
	if err != nil {
		return "", err
	}
	st, err := kvTasks.Status(ctx)
	if err != nil {
		return "", err
	}
	// bench-raw holds 2000 records and their 2000 owner-index keys.
	perTask := float64(st.Bytes()) / 2000

	var b strings.Builder
	fmt.Fprintf(&b, "## Replicas on NATS (issue 24)\n\n")
	fmt.Fprintf(&b, "Regenerate with `cd cluster && go run ./cmd/clusterbench -write ../bench/BENCHMARKS.md` (about a minute). This run: %s/%s, %d cores (GOMAXPROCS %d), %s, %s. ",
		runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0), runtime.Version(), time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(&b, "One process holds a NATS server (nats-server/v2, JetStream on file storage), the replicas (generated `mcp.NewServer` + `tasks.WithTasks` + streamhttp, each with its own NATS connection, `natscluster.TaskStore` and a bus: `natscluster.NewDurableBus`, cancellations through a JetStream stream, as the cluster example runs, unless the row says core NATS) and the Streamable HTTP 2026-07-28 client; every number includes the client's HTTP round trip.\n\n")
	fmt.Fprintf(&b, "**Request cancellation (2025-11-25)**: a legacy session's `tools/call` runs on one replica; its `notifications/cancelled` POST sent → the handler's ctx done, %d per row after %d warm-up, rows interleaved. Across replicas the receiving replica publishes it on `mcp.cancel.<session>` and the runner applies it (streamhttp's forwarding, `runtime/streamhttp/cluster.go`); on the durable bus the POST is answered once the stream acknowledged it, and the runner reads it from the stream (an ordered consumer), which is what lets a cancellation survive a NATS restart (the core bus can lose one sent during it).\n\n", n, n/10)
	fmt.Fprintf(&b, "| where | p50 | p99 |\n|---|---:|---:|\n")
	fmt.Fprintf(&b, "| one process (no shared sessions) | %v | %v |\n", rnd(pct(llat[0], .5)), rnd(pct(llat[0], .99)))
	fmt.Fprintf(&b, "| shared sessions on NATS, cancel POSTed to the replica running the request | %v | %v |\n", rnd(pct(llat[1], .5)), rnd(pct(llat[1], .99)))
	fmt.Fprintf(&b, "| shared sessions on NATS, cancel POSTed to another replica (durable bus) | %v | %v |\n", rnd(pct(llat[2], .5)), rnd(pct(llat[2], .99)))
	fmt.Fprintf(&b, "| the same on the core NATS bus (`natscluster.NewBus`) | %v | %v |\n", rnd(pct(llat[3], .5)), rnd(pct(llat[3], .99)))
	fmt.Fprintf(&b, "| added by crossing replicas (vs one process) | %v | %v |\n\n", added(pct(llat[2], .5)-pct(llat[0], .5)), added(pct(llat[2], .99)-pct(llat[0], .99)))
	fmt.Fprintf(&b, "**Task cancellation**: `tasks/cancel` sent → the work's ctx done, %d cancellations per row after %d warm-up, the rows interleaved (one of each in turn). On this shared 2-core host p99 is noisy run to run (a few ms either way): the p50 difference is the cost of crossing replicas.\n\n", n, n/10)
	fmt.Fprintf(&b, "| where | p50 | p99 |\n|---|---:|---:|\n")
	fmt.Fprintf(&b, "| one process (MemoryStore, no bus) | %v | %v |\n", rnd(pct(latLocal, .5)), rnd(pct(latLocal, .99)))
	fmt.Fprintf(&b, "| NATS store, tasks/cancel on the replica running the task | %v | %v |\n", rnd(pct(latSame, .5)), rnd(pct(latSame, .99)))
	fmt.Fprintf(&b, "| NATS store and durable bus, tasks/cancel on another replica | %v | %v |\n", rnd(pct(latCross, .5)), rnd(pct(latCross, .99)))
	fmt.Fprintf(&b, "| the same on the core NATS bus (`natscluster.NewBus`) | %v | %v |\n", rnd(pct(latCore, .5)), rnd(pct(latCore, .99)))
	fmt.Fprintf(&b, "| added by crossing replicas (vs one process) | %v | %v |\n\n", added(pct(latCross, .5)-pct(latLocal, .5)), added(pct(latCross, .99)-pct(latLocal, .99)))
	fmt.Fprintf(&b, "The cross-replica path reads the record and writes the cancelled state with a compare-and-set in JetStream, then publishes `mcp.task.cancel.<id>` (durable bus: acknowledged by the stream); the runner ends the work on receipt.\n\n")
	fmt.Fprintf(&b, "**Task throughput**, %d tasks per phase, 8 concurrent HTTP clients (operations per second):\n\n", ops)
	fmt.Fprintf(&b, "| store | create | get | cancel |\n|---|---:|---:|---:|\n")
	fmt.Fprintf(&b, "| one process, MemoryStore | %.0f | %.0f | %.0f |\n", lc, lg, lx)
	fmt.Fprintf(&b, "| two replicas, NATS TaskStore (requests alternate) | %.0f | %.0f | %.0f |\n", nc2, ng, nx)
	fmt.Fprintf(&b, "| TaskStore alone (no HTTP), 8 goroutines: Create / Get / Update | %.0f | %.0f | %.0f |\n\n", rc, rg, ru)
	fmt.Fprintf(&b, "**Memory**: a typical legacy session record (revision, client info and capabilities, log level, owner, times) is %.0f B in `natscluster.SessionStore` (JetStream stream bytes per record, %d records) and %.0f B of heap in `cluster.MemorySessionStore`; a task record with its owner-index key is %.0f B in JetStream.\n\n", kvPerSession, 20000, heapPerSession, perTask)
	return b.String(), nil
}

// added formats a difference; a negative one is run-to-run noise.
func added(d time.Duration) string {
	if d < 0 {
		return "none measurable (" + rnd(d).String() + ")"
	}
	return rnd(d).String()
}

func rnd(d time.Duration) time.Duration {
	switch {
	case d > time.Millisecond || d < -time.Millisecond:
		return d.Round(10 * time.Microsecond)
	default:
		return d.Round(time.Microsecond)
	}
}
