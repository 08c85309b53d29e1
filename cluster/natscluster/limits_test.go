package natscluster

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/cluster/natstest"
	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	"github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/tasks"
)

// Which limits hold per replica (docs/replicas.md, "Limits"): MaxActive,
// the task rate limit and MaxSessions are each a replica's, so behind a
// balancer a requestor meets up to N times each. These tests pin that
// down, so a change to a cluster-wide limit has to change them.

// blocker's tool "block" runs until gate closes (a task's work).
type blocker struct{ gate <-chan struct{} }

func (b blocker) CallTool(ctx context.Context, p *mcp20260728.CallToolRequestParams) (*mcp20260728.CallToolResult, error) {
	select {
	case <-b.gate:
	case <-ctx.Done():
	}
	return mcp20260728.TextResult("unblocked"), nil
}

type sidKey struct{}

// limitReplicas starts two replicas sharing sessions, tasks and the bus,
// each with cfg's task limits and opts' HTTP limits.
func limitReplicas(t *testing.T, cfg tasks.Config, opts streamhttp.Options) ([]string, []*streamhttp.Handler) {
	t.Helper()
	s := natstest.Start(t, natstest.Options{})
	gate := make(chan struct{})
	t.Cleanup(func() { close(gate) })
	quiet := slog.New(slog.DiscardHandler)
	var urls []string
	var hs []*streamhttp.Handler
	for i := range 2 {
		name := fmt.Sprintf("r%d", i)
		nc, _ := connect(t, s)
		bus := NewBus(nc, WithSubjectPrefix("limits"))
		c := cfg
		c.Methods = []string{"tools/call"}
		c.ToolSupport = func(string) tasks.Support { return tasks.Optional }
		c.Store, c.Bus, c.Replica, c.Logger = newTaskStore(t, nc), bus, name, quiet
		c.SessionKey = func(ctx context.Context) (string, bool) {
			v, ok := streamhttp.RequestValues(ctx)
			if !ok {
				return "", false
			}
			id, _ := v.Value(sidKey{}).(string)
			return id, id != ""
		}
		mgr := tasks.NewManager(c)
		srv := mcp20260728.NewServer(session.Implementation{Name: "limits", Version: "0"}, blocker{gate},
			session.WithLegacy(mcp20251125.Revision()), tasks.WithTasks(mgr), session.WithBus(bus), session.WithLogger(quiet))
		o := opts
		o.Sessions, o.Bus, o.Replica, o.Logger = newStore(t, nc, SessionStoreConfig{TTL: time.Hour}), bus, name, quiet
		h := streamhttp.NewHandler(srv, o)
		server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if id := r.Header.Get(streamhttp.HeaderSessionID); id != "" {
				r = r.WithContext(context.WithValue(r.Context(), sidKey{}, id))
			}
			h.ServeHTTP(w, r)
		}))
		t.Cleanup(func() {
			server.CloseClientConnections()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_ = h.Close(ctx)
			_ = mgr.Close(ctx)
			server.Close()
		})
		urls = append(urls, server.URL+"/mcp")
		hs = append(hs, h)
	}
	return urls, hs
}

// legacySessionAt initializes a 2025-11-25 session at url.
func legacySessionAt(t *testing.T, ctx context.Context, url string) string {
	t.Helper()
	resp, body := do(t, ctx, http.MethodPost, url, "",
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	sid := resp.Header.Get(streamhttp.HeaderSessionID)
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	if resp, body := do(t, ctx, http.MethodPost, url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); resp.StatusCode != 202 {
		t.Fatalf("initialized: %d %s", resp.StatusCode, body)
	}
	return sid
}

// rpcError is the JSON-RPC error code of a response body (0: none).
func rpcError(t *testing.T, body string) int {
	t.Helper()
	var m struct {
		Error *struct{ Code int } `json:"error"`
	}
	if err := json.Unmarshal([]byte(body), &m); err != nil {
		t.Fatalf("response %q: %v", body, err)
	}
	if m.Error == nil {
		return 0
	}
	return m.Error.Code
}

// MaxActive is per replica: one session (one requestor) with MaxActive 1
// runs one task on each replica, and a second on the same replica is
// refused with CodeRateLimited.
func TestMaxActiveIsPerReplica(t *testing.T) {
	urls, _ := limitReplicas(t, tasks.Config{MaxActive: 1}, streamhttp.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sid := legacySessionAt(t, ctx, urls[0])
	call := func(url string, id int) string {
		_, body := do(t, ctx, http.MethodPost, url, sid,
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"block","arguments":{},"task":{"ttl":60000}}}`, id))
		return body
	}
	if body := call(urls[0], 1); !strings.Contains(body, `"taskId"`) {
		t.Fatalf("first task on r0: %s", body)
	}
	if body := call(urls[0], 2); rpcError(t, body) != tasks.CodeRateLimited {
		t.Fatalf("second task on r0: %s, want CodeRateLimited (MaxActive 1 on this replica)", body)
	}
	if body := call(urls[1], 3); !strings.Contains(body, `"taskId"`) {
		t.Fatalf("task on r1: %s, want it created: MaxActive is per replica", body)
	}
}

// The task rate limit is per replica: a burst of 2 spent on r0 leaves r1's
// whole burst to the same requestor.
func TestTaskRateLimitIsPerReplica(t *testing.T) {
	urls, _ := limitReplicas(t, tasks.Config{MaxActive: -1, RateLimit: tasks.RateLimit{PerSecond: 0.001, Burst: 2}}, streamhttp.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sid := legacySessionAt(t, ctx, urls[0])
	list := func(url string, id int) int {
		_, body := do(t, ctx, http.MethodPost, url, sid, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tasks/list"}`, id))
		return rpcError(t, body)
	}
	for i := range 2 {
		if code := list(urls[0], i+1); code != 0 {
			t.Fatalf("tasks/list %d on r0: error %d", i+1, code)
		}
	}
	if code := list(urls[0], 3); code != tasks.CodeRateLimited {
		t.Fatalf("third tasks/list on r0: %d, want CodeRateLimited", code)
	}
	for i := range 2 {
		if code := list(urls[1], 4+i); code != 0 {
			t.Fatalf("tasks/list %d on r1: error %d, want served: the limit is per replica", i+1, code)
		}
	}
}

// MaxSessions is per replica, and bounds the copies of sessions a replica
// holds, not the sessions of the cluster: with MaxSessions 1, three
// sessions live, each served by both replicas, and neither replica ever
// holds more than one copy (a copy that gave way is adopted again from the
// store on the session's next request).
func TestMaxSessionsIsPerReplica(t *testing.T) {
	urls, hs := limitReplicas(t, tasks.Config{}, streamhttp.Options{MaxSessions: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var sids []string
	for range 3 {
		sids = append(sids, legacySessionAt(t, ctx, urls[0]))
	}
	for round := range 2 {
		for i, sid := range sids {
			for r, url := range urls {
				_, body := do(t, ctx, http.MethodPost, url, sid, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, 200+round))
				if rpcError(t, body) != 0 || !strings.Contains(body, `"result"`) {
					t.Fatalf("session %d on r%d: %s", i, r, body)
				}
				if n := hs[r].Sessions(); n > 1 {
					t.Fatalf("r%d holds %d session copies, MaxSessions is 1", r, n)
				}
			}
		}
	}
}
