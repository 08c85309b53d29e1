package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mcpgen/mcpgen/cluster/examples/cluster/tools"
	"github.com/mcpgen/mcpgen/cluster/natscluster"
	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/tasks"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// impl implements tools.Tools for one replica.
type impl struct {
	replica string
	log     *slog.Logger
	srv     *session.Server // set once built: Announce raises notifications on it
}

// Slow works for a.Ms milliseconds. When its call (or task) is cancelled
// it logs the cause, the line the e2e test looks for, and returns it: the
// runtime then sends no answer (a cancelled request) or keeps the task's
// terminal state (a cancelled task).
func (s impl) Slow(ctx context.Context, a *tools.SlowArgs) (*tools.SlowResult, error) {
	tag := ""
	if a.Tag != nil {
		tag = *a.Tag
	}
	s.log.Info("slow started", "tag", tag)
	// A progress notification first, when the client asked for progress:
	// a legacy call's stream then has an event to resume from (stored in
	// the JetStream event store, so on any replica).
	_ = mcp.Progress(ctx, 0, float64(a.Ms), "started on "+s.replica)
	t := time.NewTimer(time.Duration(a.Ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return &tools.SlowResult{Replica: s.replica, Tag: a.Tag}, nil
	case <-ctx.Done():
		cause := context.Cause(ctx)
		src := ""
		var ce *jsonrpc2.CancelError
		if errors.As(cause, &ce) {
			src = ce.Source.String()
		}
		s.log.Warn("slow cancelled", "tag", tag, "source", src, "cause", cause.Error())
		return nil, cause
	}
}

// Confirm asks the client its question. As a task, the question is listed
// in tasks/get's inputRequests (status input_required) and answered by a
// tasks/update that any replica may receive.
func (s impl) Confirm(ctx context.Context, a *tools.ConfirmArgs) (*tools.ConfirmResult, error) {
	var res struct {
		Action  string            `json:"action"`
		Content map[string]string `json:"content"`
	}
	err := tasks.Ask(ctx, "elicitation/create", map[string]any{"mode": "form", "message": a.Question,
		"requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"answer": map[string]any{"type": "string"}}}}, &res)
	if err != nil {
		return nil, err
	}
	return &tools.ConfirmResult{Answer: res.Content["answer"], Replica: s.replica}, nil
}

// Announce raises notifications/tools/list_changed here; session.WithBus
// carries it to the listeners of the other replicas.
func (s *impl) Announce(context.Context, *tools.AnnounceArgs) (*tools.AnnounceResult, error) {
	if err := s.srv.NotifyListChanged("tools"); err != nil {
		// Best effort: a session without a standalone stream cannot take
		// it; the others got it.
		s.log.Debug("list_changed not delivered everywhere", "error", err)
	}
	return &tools.AnnounceResult{Replica: s.replica}, nil
}

// Whoami names the replica.
func (s impl) Whoami(context.Context, *tools.WhoamiArgs) (*tools.WhoamiResult, error) {
	return &tools.WhoamiResult{Replica: s.replica}, nil
}

// runReplica is "cluster replica": one replica of the HTTP server, its
// tasks in the JetStream bucket and its task messages on NATS.
func runReplica(args []string) error {
	fs := flag.NewFlagSet("replica", flag.ExitOnError)
	name := fs.String("name", "r1", "replica name (unique in the cluster)")
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on")
	natsURL := fs.String("nats", nats.DefaultURL, "NATS server URL")
	lease := fs.Duration("lease", 5*time.Second, "task lease: a dead replica's tasks fail within lease + lease/3")
	grace := fs.Duration("grace", 10*time.Second, "drain grace on SIGTERM: running requests and tasks get this long to finish")
	linger := fs.Duration("linger", time.Second, "after the drain, keep the listener open (answering 503) this long, so balancers probing /readyz have stopped routing here before connections are refused")
	fs.Parse(args)
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo})).With("replica", *name)

	// Reconnect for ever: a NATS server restart is an outage, not the end.
	nc, err := nats.Connect(*natsURL, nats.Name("mcp-"+*name), nats.MaxReconnects(-1),
		nats.ReconnectWait(100*time.Millisecond), nats.RetryOnFailedConnect(true))
	if err != nil {
		return fmt.Errorf("nats: %w", err)
	}
	defer nc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// Tasks and legacy sessions in JetStream key-value buckets; the bus
	// carries cancellations (of requests and of tasks), task updates and
	// list-changed notifications.
	store, err := natscluster.NewTaskStore(ctx, nc, natscluster.TaskStoreOptions{MaxAge: 24 * time.Hour})
	if err != nil {
		return err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	sessions, err := natscluster.NewSessionStore(ctx, js, natscluster.SessionStoreConfig{TTL: 24 * time.Hour})
	if err != nil {
		return err
	}
	// Legacy SSE events in a JetStream stream (kept 10 minutes, 10,000 a
	// stream, 256 MiB in all): a client resumes a broken stream with
	// Last-Event-ID on whichever replica the balancer picks.
	events, err := natscluster.NewEventStore(ctx, js, natscluster.EventStoreConfig{})
	if err != nil {
		return err
	}
	// Cancellations (of requests and of tasks) through a JetStream stream
	// (file storage, kept a minute): one published while this replica is
	// cut off from NATS reaches it when it is back, and a cancel POST is
	// answered 202 only once the stream holds it (503 otherwise). The rest
	// (task transitions and answers, list-changed) on core NATS subjects.
	bus, err := natscluster.NewDurableBus(ctx, nc, natscluster.DurableConfig{})
	if err != nil {
		return err
	}
	im := &impl{replica: *name, log: log}
	mgr := tasks.NewManager(tasks.Config{
		Methods: []string{"tools/call"},
		ToolSupport: func(tool string) tasks.Support {
			if tool == "slow" || tool == "confirm" {
				return tasks.Optional
			}
			return tasks.Forbidden
		},
		Store: store, Bus: bus, Replica: *name, Lease: *lease,
		DefaultTTL: time.Hour, PollInterval: 200 * time.Millisecond,
		// 2025-11-25 tasks belong to their session, whichever replica
		// serves its requests; 2026-07-28 tasks to no one (their id is
		// unguessable), as the extension allows without Owner.
		SessionKey: sessionKey,
		Logger:     log,
	})
	srv := mcp.NewServer(session.Implementation{Name: "cluster-example", Version: "0.1.0"},
		tools.NewHandler(im),
		session.WithLegacy(mcp20251125.Revision()),
		tasks.WithTasks(mgr),
		session.WithBus(bus), // list_changed and resources/updated reach every replica's listeners
		session.WithCapability("tools", []byte(`{"listChanged":true}`)),
		session.WithLogger(log))
	im.srv = srv
	h := streamhttp.NewHandler(srv, streamhttp.Options{Logger: log, Sessions: sessions, Bus: bus, EventStore: events, Replica: *name})
	mux := http.NewServeMux()
	mux.Handle("/mcp", withSessionID(h))
	// /healthz: the process serves HTTP; /readyz: it should get traffic
	// (not draining, NATS reachable). compose.yaml's healthcheck and a
	// Kubernetes readinessProbe read /readyz.
	probes := h.Probes(natscluster.Reachable(nc))
	mux.Handle(streamhttp.PathLiveness, probes)
	mux.Handle(streamhttp.PathReadiness, probes)
	hs := streamhttp.NewHTTPServer(*addr, mux)
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	log.Info("listening", "url", "http://"+ln.Addr().String()+"/mcp")
	sig, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	select {
	case err = <-errc:
		closeCtx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		return errors.Join(err, h.Close(closeCtx), mgr.Close(closeCtx))
	case <-sig.Done():
	}
	// SIGTERM (a rolling restart): drain. Readiness fails at once and new
	// requests get 503 (the balancer sends them to another replica);
	// running requests and tasks get the grace to finish; what runs past
	// it ends with the drain's reason (an error response; a failed task).
	// Legacy sessions stay in the store: the next replica adopts them.
	log.Info("SIGTERM: draining", "grace", *grace)
	start := time.Now()
	drainCtx, cancel := context.WithTimeout(context.Background(), *grace+5*time.Second)
	defer cancel()
	errs := make(chan error, 2)
	go func() { errs <- h.Drain(drainCtx, *grace) }()
	go func() { errs <- mgr.Drain(drainCtx, *grace) }()
	err = errors.Join(<-errs, <-errs)
	// Still listening (the closed Handler answers 503 with Retry-After)
	// until the balancers' readiness probes have seen /readyz fail: a
	// connection refused or cut mid-request would be theirs to retry
	// with less certainty that nothing ran.
	time.Sleep(*linger)
	shutCtx, cancel2 := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel2()
	err = errors.Join(err, hs.Shutdown(shutCtx))
	log.Info("drained", "took", time.Since(start).Round(time.Millisecond), "error", err)
	return err
}

// sessionIDKey is the context key under which withSessionID puts a
// request's Mcp-Session-Id.
type sessionIDKey struct{}

// withSessionID puts each request's Mcp-Session-Id in its context, where
// sessionKey finds it through streamhttp.RequestValues.
func withSessionID(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if id := r.Header.Get(streamhttp.HeaderSessionID); id != "" {
			r = r.WithContext(context.WithValue(r.Context(), sessionIDKey{}, id))
		}
		h.ServeHTTP(w, r)
	})
}

// sessionKey is tasks.Config.SessionKey: the legacy session of the POST
// that carried the request, so that the session's tasks are the same on
// every replica.
func sessionKey(ctx context.Context) (string, bool) {
	vals, ok := streamhttp.RequestValues(ctx)
	if !ok {
		return "", false
	}
	id, ok := vals.Value(sessionIDKey{}).(string)
	return id, ok && id != ""
}
