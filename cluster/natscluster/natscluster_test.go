package natscluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/cluster/natstest"
	"github.com/mcpgen/mcpgen/runtime/cluster"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// connect opens a client connection that reconnects for ever (a replica
// outlives a NATS server restart); reconnected receives once per
// reconnection.
func connect(t *testing.T, s *server.Server) (*nats.Conn, <-chan struct{}) {
	t.Helper()
	re := make(chan struct{}, 4)
	nc, err := nats.Connect(s.ClientURL(), nats.MaxReconnects(-1), nats.ReconnectWait(20*time.Millisecond),
		nats.ReconnectHandler(func(*nats.Conn) { re <- struct{}{} }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc, re
}

func within(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// restart shuts s down and starts a server on the same port and store.
func restart(t *testing.T, s *server.Server, dir string) *server.Server {
	t.Helper()
	port := s.Addr().(*net.TCPAddr).Port
	s.Shutdown()
	s.WaitForShutdown()
	return natstest.Start(t, natstest.Options{Port: port, StoreDir: dir})
}

func TestBus(t *testing.T) {
	dir := t.TempDir()
	s := natstest.Start(t, natstest.Options{StoreDir: dir})
	nc1, re1 := connect(t, s)
	nc2, re2 := connect(t, s)
	a, b := NewBus(nc1, WithSubjectPrefix("app")), NewBus(nc2, WithSubjectPrefix("app"))
	other := NewBus(nc2, WithSubjectPrefix("other"))
	got := make(chan string, 16)
	sub, err := b.Subscribe("mcp.cancel.>", func(subject string, data []byte) { got <- subject + " " + string(data) })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := other.Subscribe("mcp.>", func(subject string, _ []byte) { got <- "other " + subject }); err != nil {
		t.Fatal(err)
	}
	if err := nc2.Flush(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := a.Publish(ctx, "mcp.cancel."+cluster.SubjectToken("s.1"), []byte("x")); err != nil {
		t.Fatal(err)
	}
	if g := waitString(t, got); g != "mcp.cancel.~732e31 x" {
		t.Fatalf("got %q (the prefix is not the subscriber's business; other prefixes see nothing)", g)
	}
	if err := a.Publish(ctx, "mcp.*", nil); err == nil {
		t.Fatal("published to a wildcard")
	}

	// The server restarts: both connections come back and the subscription
	// with them.
	restart(t, s, dir)
	within(t, re1, "publisher reconnect")
	within(t, re2, "subscriber reconnect")
	if err := nc2.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := a.Publish(ctx, "mcp.cancel.s2", []byte("y")); err != nil {
		t.Fatal(err)
	}
	if g := waitString(t, got); g != "mcp.cancel.s2 y" {
		t.Fatalf("after restart got %q", g)
	}
	_ = sub.Unsubscribe()
	_ = nc2.Flush()
	_ = a.Publish(ctx, "mcp.cancel.s3", nil)
	_ = nc1.Flush()
	_ = nc2.Flush()
	select {
	case g := <-got:
		t.Fatalf("after Unsubscribe got %q", g)
	case <-time.After(50 * time.Millisecond): // the absence of a message: nothing to wait on
	}
}

func waitString(t *testing.T, ch <-chan string) string {
	t.Helper()
	select {
	case s := <-ch:
		return s
	case <-time.After(10 * time.Second):
		t.Fatal("timed out waiting for a bus message")
	}
	return ""
}

func newStore(t *testing.T, nc *nats.Conn, cfg SessionStoreConfig) *SessionStore {
	t.Helper()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := NewSessionStore(ctx, js, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func TestSessionStore(t *testing.T) {
	dir := t.TempDir()
	s := natstest.Start(t, natstest.Options{StoreDir: dir})
	nc, re := connect(t, s)
	st := newStore(t, nc, SessionStoreConfig{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	id := "odd id.with*dots" // escaped into a valid key
	now := time.Now().UTC().Truncate(time.Millisecond)
	if err := st.Create(ctx, cluster.SessionRecord{ID: id, Revision: "2025-11-25", Owner: "alice", Created: now, LastActive: now,
		ClientCapabilities: json.RawMessage(`{"roots":{}}`)}); err != nil {
		t.Fatal(err)
	}
	if err := st.Create(ctx, cluster.SessionRecord{ID: id}); !errors.Is(err, cluster.ErrSessionExists) {
		t.Fatalf("second Create: %v", err)
	}
	if _, err := st.Get(ctx, "missing"); !errors.Is(err, cluster.ErrSessionNotFound) {
		t.Fatalf("Get missing: %v", err)
	}
	boom := errors.New("boom")
	if _, err := st.Update(ctx, id, func(*cluster.SessionRecord) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("failing Update: %v", err)
	}

	// Concurrent updates from several "replicas" (connections) lose nothing.
	const writers, each = 8, 10
	var wg sync.WaitGroup
	for w := range writers {
		wnc, _ := connect(t, s)
		ws := newStore(t, wnc, SessionStoreConfig{})
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				_, err := ws.Update(ctx, id, func(r *cluster.SessionRecord) error {
					if r.Extra == nil {
						r.Extra = map[string]json.RawMessage{}
					}
					n, _ := strconv.Atoi(string(r.Extra["n"]))
					r.Extra["n"] = json.RawMessage(strconv.Itoa(n + 1))
					r.Extra[fmt.Sprintf("w%d-%d", w, i)] = json.RawMessage(`true`)
					return nil
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	rec, err := st.Get(ctx, id)
	if err != nil || string(rec.Extra["n"]) != strconv.Itoa(writers*each) || len(rec.Extra) != writers*each+1 {
		t.Fatalf("after %d concurrent updates: n=%s, %d keys, %v", writers*each, rec.Extra["n"], len(rec.Extra), err)
	}

	// A NATS server restart with the same store directory keeps it.
	restart(t, s, dir)
	within(t, re, "reconnect")
	rec, err = st.Get(ctx, id)
	if err != nil || rec.Owner != "alice" || rec.Revision != "2025-11-25" || !rec.Created.Equal(now) || string(rec.ClientCapabilities) != `{"roots":{}}` {
		t.Fatalf("after restart: %+v, %v", rec, err)
	}
	if err := st.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(ctx, id); !errors.Is(err, cluster.ErrSessionNotFound) {
		t.Fatalf("after Delete: %v", err)
	}
	if err := st.Delete(ctx, id); err != nil {
		t.Fatalf("Delete of a missing id: %v", err)
	}
	if err := st.Create(ctx, cluster.SessionRecord{ID: id}); err != nil {
		t.Fatalf("Create after Delete: %v", err)
	}
}

func TestSessionStoreTTL(t *testing.T) {
	s := natstest.Start(t, natstest.Options{})
	nc, _ := connect(t, s)
	st := newStore(t, nc, SessionStoreConfig{Bucket: "ttl", TTL: 200 * time.Millisecond, Storage: jetstream.MemoryStorage})
	ctx := context.Background()
	if err := st.Create(ctx, cluster.SessionRecord{ID: "s"}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := st.Get(ctx, "s")
		if errors.Is(err, cluster.ErrSessionNotFound) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("record not expired after its TTL: %v", err)
		}
		time.Sleep(50 * time.Millisecond) // polling JetStream's MaxAge expiry: no event to wait on
	}
}

func TestKey(t *testing.T) {
	for in, want := range map[string]string{"abc-_09": "abc-_09", "a.b": "=612e62", "": "=", "=": "=3d"} {
		if got := Key(in); got != want {
			t.Errorf("Key(%q) = %q, want %q", in, got, want)
		}
	}
}
