package natscluster

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/cluster/natstest"
	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	"github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func newEventStore(t *testing.T, nc *nats.Conn, cfg EventStoreConfig) *EventStore {
	t.Helper()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	es, err := NewEventStore(ctx, js, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return es
}

// after collects what EventStore.After gives.
func after(t *testing.T, es *EventStore, sid, stream string, from uint64) ([]string, error) {
	t.Helper()
	var got []string
	err := es.After(context.Background(), sid, stream, from, func(i uint64, d []byte) error {
		got = append(got, fmt.Sprintf("%d:%s", i, d))
		return nil
	})
	return got, err
}

func TestEventStore(t *testing.T) {
	s := natstest.Start(t, natstest.Options{})
	nc, _ := connect(t, s)
	es := newEventStore(t, nc, EventStoreConfig{Storage: jetstream.MemoryStorage, MaxEventsPerStream: 4})
	ctx := context.Background()
	// A session id with characters a subject token cannot hold.
	const sid, st = "s.1 *>", "3-0a1b2c"
	for i := uint64(1); i <= 3; i++ {
		if err := es.Append(ctx, sid, st, i, fmt.Appendf(nil, `{"n":%d}`, i)); err != nil {
			t.Fatal(err)
		}
	}
	// Another stream of the session, and the same stream id in another
	// session: neither is mixed in.
	_ = es.Append(ctx, sid, "4-ffff", 1, []byte("other stream"))
	_ = es.Append(ctx, "s2", st, 1, []byte("other session"))
	if got, err := after(t, es, sid, st, 1); err != nil || strings.Join(got, " ") != `2:{"n":2} 3:{"n":3}` {
		t.Fatalf("after 1: %v %v", got, err)
	}
	if got, err := after(t, es, sid, st, 3); err != nil || len(got) != 0 {
		t.Fatalf("after the last: %v %v", got, err)
	}
	for _, c := range []struct {
		sid, st string
		from    uint64
	}{{sid, st, 4}, {sid, "9-0000", 0}, {"unknown", st, 0}} {
		if got, err := after(t, es, c.sid, c.st, c.from); !errors.Is(err, streamhttp.ErrEventsLost) || len(got) != 0 {
			t.Fatalf("%q %q after %d: %v %v, want ErrEventsLost", c.sid, c.st, c.from, got, err)
		}
	}
	// Retention: 4 events a stream. After 6, events 1 and 2 are gone: a
	// resumption that needs 2 is refused, one after 2 gets 3..6.
	for i := uint64(4); i <= 6; i++ {
		_ = es.Append(ctx, sid, st, i, fmt.Appendf(nil, `{"n":%d}`, i))
	}
	if got, err := after(t, es, sid, st, 1); !errors.Is(err, streamhttp.ErrEventsLost) {
		t.Fatalf("after 1 with 1..2 dropped: %v %v", got, err)
	}
	if got, err := after(t, es, sid, st, 2); err != nil || len(got) != 4 || got[0] != `3:{"n":3}` {
		t.Fatalf("after 2: %v %v", got, err)
	}
	// Closing deletes nothing: a replica ending its copy is not the end of
	// the session (EventStore).
	es.StreamClosed(ctx, sid, st)
	es.SessionClosed(ctx, sid)
	if got, err := after(t, es, sid, st, 5); err != nil || len(got) != 1 {
		t.Fatalf("after close: %v %v", got, err)
	}
}

// stepper's tool "steps" sends progress 1 and 2, waits for gate, sends 3,
// 4 and 5 and answers "done"; "poll" ends its response stream with
// CloseSSEStream and answers with the replica's name.
type stepper struct {
	name   string
	gate   <-chan struct{}
	ran    chan<- string
	causes chan<- error // "long": nil, or why its ctx ended first
}

func (x *stepper) CallTool(ctx context.Context, p *mcp20260728.CallToolRequestParams) (*mcp20260728.CallToolResult, error) {
	x.ran <- x.name
	if p.Name == "long" {
		_ = mcp20260728.Progress(ctx, 1, 2, "")
		select {
		case <-x.gate:
			x.causes <- nil
		case <-ctx.Done():
			x.causes <- context.Cause(ctx)
		}
		return mcp20260728.TextResult("long done"), nil
	}
	if p.Name == "poll" || p.Name == "pollwait" {
		if err := streamhttp.CloseSSEStream(ctx, 20*time.Millisecond); err != nil {
			return nil, err
		}
		if p.Name == "pollwait" {
			<-x.gate
		}
		return mcp20260728.TextResult("answered by " + x.name), nil
	}
	for i := 1; i <= 5; i++ {
		if i == 3 {
			<-x.gate
		}
		if err := mcp20260728.Progress(ctx, float64(i), 5, ""); err != nil {
			return nil, err
		}
	}
	return mcp20260728.TextResult("done"), nil
}

type resumeReplica struct {
	h      *streamhttp.Handler
	url    string
	hs     *httptest.Server
	nc     *nats.Conn
	events *EventStore
	gets   atomic.Int32 // GETs with Last-Event-ID served
	polls  chan string  // the name of the replica, per such GET (never blocks)
}

// newResumeCluster starts three replicas of the generated server, each
// with its own NATS connection, sharing sessions, bus and events.
func newResumeCluster(t *testing.T, s *server.Server, gate <-chan struct{}, ran chan<- string) []*resumeReplica {
	return newResumeClusterGrace(t, s, gate, ran, nil, 0)
}

// newResumeClusterGrace is newResumeCluster with the replicas'
// OrphanGrace (0: the default) and the "long" tool's causes.
func newResumeClusterGrace(t *testing.T, s *server.Server, gate <-chan struct{}, ran chan<- string, causes chan<- error, grace time.Duration) []*resumeReplica {
	t.Helper()
	var reps []*resumeReplica
	quiet := slog.New(slog.DiscardHandler)
	for i := range 3 {
		name := fmt.Sprintf("r%d", i)
		nc, _ := connect(t, s)
		store := newStore(t, nc, SessionStoreConfig{TTL: time.Hour})
		events := newEventStore(t, nc, EventStoreConfig{})
		bus := NewBus(nc, WithSubjectPrefix("test"))
		srv := mcp20260728.NewServer(session.Implementation{Name: "resume", Version: "0"}, &stepper{name: name, gate: gate, ran: ran, causes: causes},
			session.WithLegacy(mcp20251125.Revision()), session.WithBus(bus), session.WithLogger(quiet))
		h := streamhttp.NewHandler(srv, streamhttp.Options{Sessions: store, Bus: bus, EventStore: events, Replica: name,
			SSERetry: 20 * time.Millisecond, OrphanGrace: grace, Logger: quiet})
		rep := &resumeReplica{h: h, nc: nc, events: events, polls: make(chan string, 256)}
		rep.hs = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodGet && r.Header.Get("Last-Event-ID") != "" {
				rep.gets.Add(1)
				select {
				case rep.polls <- name:
				default:
				}
			}
			h.ServeHTTP(w, r)
		}))
		rep.url = rep.hs.URL + "/mcp"
		t.Cleanup(func() {
			rep.hs.CloseClientConnections()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = h.Close(ctx)
			rep.hs.Close()
		})
		reps = append(reps, rep)
	}
	return reps
}

// sseEvents reads a whole SSE body: each event's id, data and retry.
func sseEvents(r io.Reader) (ids, data []string, retries int) {
	sc := bufio.NewScanner(r)
	var id, d string
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if d != "" {
				ids, data = append(ids, id), append(data, d)
			}
			id, d = "", ""
		case strings.HasPrefix(line, "id: "):
			id = line[4:]
		case strings.HasPrefix(line, "data: "):
			d += line[6:]
		case strings.HasPrefix(line, "retry: "):
			retries++
		}
	}
	return ids, data, retries
}

// The replica holding a legacy SSE stream dies, having stored events its
// client never received (the client's connection broke first): a GET with
// Last-Event-ID on any other replica replays exactly those events, each
// once and in order, up to the answer, from the JetStream event store.
func TestResumeAnywhereAfterKill(t *testing.T) {
	s := natstest.Start(t, natstest.Options{})
	gate := make(chan struct{})
	ran := make(chan string, 4)
	reps := newResumeCluster(t, s, gate, ran)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	resp, body := do(t, ctx, http.MethodPost, reps[0].url, "",
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	sid := resp.Header.Get(streamhttp.HeaderSessionID)
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	if resp, body := do(t, ctx, http.MethodPost, reps[1].url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != 202 {
		t.Fatalf("initialized: %d %s", resp.StatusCode, body)
	}

	// The call runs on r0; the client reads the priming event and
	// progress 1 and 2, then its connection breaks.
	cctx, cut := context.WithCancel(ctx)
	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()
	req, _ := http.NewRequestWithContext(cctx, http.MethodPost, reps[0].url, strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"steps","_meta":{"progressToken":"p"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(streamhttp.HeaderSessionID, sid)
	req.Header.Set(streamhttp.HeaderProtocolVersion, "2025-11-25")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if r := waitOn(t, ran, "the call"); r != "r0" {
		t.Fatalf("ran on %s", r)
	}
	br := bufio.NewReader(resp.Body)
	var lastID string
	for seen := 0; seen < 3; { // priming, progress 1, progress 2
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("POST stream: %v", err)
		}
		if id, ok := strings.CutPrefix(strings.TrimSpace(line), "id: "); ok {
			lastID = id
			seen++
		}
	}
	cut()
	resp.Body.Close()
	stream, idx, _ := strings.Cut(lastID, "_")
	if idx != "2" || !strings.Contains(stream, "-") {
		t.Fatalf("last event id %q: want <stream>_2 with a cluster-unique stream id", lastID)
	}

	// While the call still runs on r0, another replica replays what is
	// stored after the id (nothing yet) and ends with the retry field: the
	// client polls again.
	{
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, reps[2].url, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set(streamhttp.HeaderSessionID, sid)
		req.Header.Set(streamhttp.HeaderProtocolVersion, "2025-11-25")
		req.Header.Set("Last-Event-ID", lastID)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		ids, _, retries := sseEvents(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || len(ids) != 0 || retries != 1 {
			t.Fatalf("poll on r2 while r0 runs the call: %d %v retry fields %d", resp.StatusCode, ids, retries)
		}
	}

	// r0 runs on and stores progress 3..5 and the answer, then dies: its
	// HTTP server and NATS connection go without a Close of its Handler.
	close(gate)
	deadline := time.Now().Add(10 * time.Second)
	for {
		got, err := after(t, reps[0].events, sid, stream, 2)
		if err == nil && len(got) == 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("r0 did not store the rest: %v %v", got, err)
		}
		time.Sleep(5 * time.Millisecond) // polling the store: no event to wait on across processes
	}
	reps[0].hs.CloseClientConnections()
	reps[0].nc.Close()
	reps[0].hs.Close()

	// Any other replica replays exactly what the client missed.
	get := func(rep *resumeReplica, last string) (int, []string, []string, int) {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, rep.url, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set(streamhttp.HeaderSessionID, sid)
		req.Header.Set(streamhttp.HeaderProtocolVersion, "2025-11-25")
		req.Header.Set("Last-Event-ID", last)
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		ids, data, retries := sseEvents(resp.Body)
		return resp.StatusCode, ids, data, retries
	}
	code, ids, data, retries := get(reps[1], lastID)
	want := []string{stream + "_3", stream + "_4", stream + "_5", stream + "_6"}
	if code != 200 || strings.Join(ids, " ") != strings.Join(want, " ") || retries != 0 {
		t.Fatalf("resume on r1: %d ids %v (retry fields %d), want %v and no retry (the answer ends it)", code, ids, retries, want)
	}
	for i, p := range []string{`"progress":3`, `"progress":4`, `"progress":5`, `"done"`} {
		if !strings.Contains(data[i], p) {
			t.Fatalf("event %d: %s, want %s", i, data[i], p)
		}
	}
	if code, ids, _, _ := get(reps[2], stream+"_4"); code != 200 || strings.Join(ids, " ") != strings.Join(want[2:], " ") {
		t.Fatalf("resume on r2 after _4: %d %v", code, ids)
	}
	if code, _, _, _ := get(reps[1], "1-000000000000_1"); code != http.StatusNotFound {
		t.Fatalf("unknown stream: %d, want 404", code)
	}
	if code, _, _, _ := get(reps[1], stream+"_7"); code != http.StatusNotFound {
		t.Fatalf("an id never sent: %d, want 404", code)
	}
}

// mcpgen's own client, through the generated Connect and a round-robin
// balancer: the tool ends its response stream with a retry hint
// (CloseSSEStream) and answers; the client's resumption reaches another
// replica than the one that ran the tool, which replays the answer from
// the shared event store.
func TestClientResumesOnAnotherReplica(t *testing.T) {
	s := natstest.Start(t, natstest.Options{})
	ran := make(chan string, 8)
	gate := make(chan struct{})
	reps := newResumeCluster(t, s, gate, ran)
	var targets []*url.URL
	for _, r := range reps {
		u, _ := url.Parse(r.hs.URL)
		targets = append(targets, u)
	}
	var next atomic.Uint64
	ps := httptest.NewServer(&httputil.ReverseProxy{
		Rewrite:       func(r *httputil.ProxyRequest) { r.SetURL(targets[(next.Add(1)-1)%uint64(len(targets))]) },
		FlushInterval: -1,
		ErrorLog:      log.New(io.Discard, "", 0),
	})
	defer ps.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	quiet := slog.New(slog.DiscardHandler)
	info := session.Implementation{Name: "client", Version: "0"}
	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()
	tr, err := streamhttp.Dial(ctx, ps.URL+"/mcp", streamhttp.ClientOptions{Era: streamhttp.EraLegacy, HTTPClient: hc,
		Revisions: []session.Revision{mcp20260728.Revision(), mcp20251125.Revision()}, ClientInfo: info, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp20260728.Connect(ctx, tr, info, nil, session.WithClientLegacy(mcp20251125.Revision()), session.WithClientLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close(ctx)
	counts := func() []int32 {
		var c []int32
		for _, r := range reps {
			c = append(c, r.gets.Load())
		}
		return c
	}
	for call := range 3 {
		before := counts()
		res, err := cs.CallTool(ctx, &mcp20260728.CallToolRequestParams{Name: "poll"})
		if err != nil {
			t.Fatal(err)
		}
		runner := waitOn(t, ran, "the call")
		if got := res.Content[0].(*mcp20260728.TextContent).Text; got != "answered by "+runner {
			t.Fatalf("call %d: result %q from %s", call, got, runner)
		}
		resumed := 0
		for i, n := range counts() {
			if n == before[i] {
				continue
			}
			resumed++
			if fmt.Sprintf("r%d", i) == runner {
				t.Fatalf("call %d: resumed on %s, which ran it; the test wants another replica", call, runner)
			}
		}
		if resumed == 0 {
			t.Fatalf("call %d: answered without a resumption", call)
		}
	}

	// A call still running when the client resumes: the replica serving
	// the resumption has nothing to replay yet and ends with the retry
	// field; the client polls again (a poll that brought nothing is not
	// the end), and gets the answer once the tool gives it.
	for _, r := range reps { // the polls of the calls above
		for len(r.polls) > 0 {
			<-r.polls
		}
	}
	done := make(chan error, 1)
	var res *mcp20260728.CallToolResult
	go func() {
		var err error
		res, err = cs.CallTool(ctx, &mcp20260728.CallToolRequestParams{Name: "pollwait"})
		done <- err
	}()
	runner := waitOn(t, ran, "pollwait")
	for polls := 0; polls < 2; {
		select {
		case <-reps[0].polls:
		case <-reps[1].polls:
		case <-reps[2].polls:
		case err := <-done:
			t.Fatalf("the call ended before the answer: %v", err)
		}
		polls++
	}
	close(gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp20260728.TextContent).Text; got != "answered by "+runner {
		t.Fatalf("pollwait result %q from %s", got, runner)
	}
}

// A client that polls its stream on another replica is back: the replica
// running the request restarts its orphan grace on each poll (the bus
// tells it), so a call longer than the grace is not cancelled, and once
// the answer was replayed elsewhere the orphan is dropped there.
func TestRemotePollsKeepTheOrphan(t *testing.T) {
	s := natstest.Start(t, natstest.Options{})
	gate := make(chan struct{})
	ran := make(chan string, 4)
	causes := make(chan error, 1)
	const grace = 400 * time.Millisecond
	reps := newResumeClusterGrace(t, s, gate, ran, causes, grace)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sid := legacySessionAt(t, ctx, reps[0].url)
	hc := &http.Client{Transport: &http.Transport{}}
	defer hc.CloseIdleConnections()
	send := func(method, url, last, body string, c context.Context) *http.Response {
		t.Helper()
		req, _ := http.NewRequestWithContext(c, method, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set(streamhttp.HeaderSessionID, sid)
		req.Header.Set(streamhttp.HeaderProtocolVersion, "2025-11-25")
		if last != "" {
			req.Header.Set("Last-Event-ID", last)
		}
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	cctx, cut := context.WithCancel(ctx)
	resp := send(http.MethodPost, reps[0].url, "", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"long","_meta":{"progressToken":"p"}}}`, cctx)
	waitOn(t, ran, "the call")
	br := bufio.NewReader(resp.Body)
	var lastID string
	for seen := 0; seen < 2; { // priming, progress 1
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("POST stream: %v", err)
		}
		if id, ok := strings.CutPrefix(strings.TrimSpace(line), "id: "); ok {
			lastID = id
			seen++
		}
	}
	cut()
	resp.Body.Close()
	// Poll on r1 for three graces: each poll is empty and ends with retry.
	tick := time.NewTicker(grace / 8)
	defer tick.Stop()
	for end := time.Now().Add(3 * grace); time.Now().Before(end); <-tick.C {
		select {
		case err := <-causes:
			t.Fatalf("the call ended while its client polled on r1: %v", err)
		default:
		}
		resp := send(http.MethodGet, reps[1].url, lastID, "", ctx)
		ids, _, retries := sseEvents(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || len(ids) != 0 || retries != 1 {
			t.Fatalf("poll: %d %v %d", resp.StatusCode, ids, retries)
		}
	}
	close(gate)
	if err := <-causes; err != nil {
		t.Fatalf("the call was cancelled: %v", err)
	}
	for {
		resp := send(http.MethodGet, reps[1].url, lastID, "", ctx)
		ids, data, _ := sseEvents(resp.Body)
		resp.Body.Close()
		if len(ids) > 0 {
			if len(ids) != 1 || !strings.Contains(data[0], "long done") {
				t.Fatalf("after the answer: %v %v", ids, data)
			}
			break
		}
		<-tick.C // the answer is stored a moment after the gate opens
	}
	for reps[0].h.Orphans() != 0 {
		select {
		case <-ctx.Done():
			t.Fatal("r0 still holds the orphan after its answer was replayed on r1")
		case <-tick.C:
		}
	}
}
