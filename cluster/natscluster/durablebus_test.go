package natscluster

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/cluster/natstest"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// connectSlow is connect with a reconnect wait of its own, so a test can
// make one replica come back well after another.
func connectSlow(t *testing.T, s *server.Server, wait time.Duration) (*nats.Conn, <-chan struct{}) {
	t.Helper()
	re := make(chan struct{}, 4)
	nc, err := nats.Connect(s.ClientURL(), nats.MaxReconnects(-1), nats.ReconnectWait(wait),
		nats.ReconnectHandler(func(*nats.Conn) { re <- struct{}{} }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc, re
}

// The gap a core NATS bus leaves, closed: a cancellation published while
// the server is down is accepted once the server is back (Publish waits
// for the stream's acknowledgement) and reaches a subscriber that
// reconnects only after that, exactly once. Other subjects stay core NATS
// and a subscription mixing both kinds gets each message once.
func TestDurableBusAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	s := natstest.Start(t, natstest.Options{StoreDir: dir})
	nc1, re1 := connectSlow(t, s, 20*time.Millisecond)
	nc2, re2 := connectSlow(t, s, 1500*time.Millisecond) // the runner comes back last
	ctx := context.Background()
	a, err := NewDurableBus(ctx, nc1, DurableConfig{}, WithSubjectPrefix("app"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewDurableBus(ctx, nc2, DurableConfig{}, WithSubjectPrefix("app"))
	if err != nil {
		t.Fatal(err)
	}
	cancels := make(chan string, 16)
	taskMsgs := make(chan string, 16)
	if _, err := b.Subscribe("mcp.cancel.>", func(subject string, data []byte) { cancels <- subject + " " + string(data) }); err != nil {
		t.Fatal(err)
	}
	// As runtime/tasks subscribes: one pattern over durable and core subjects.
	if _, err := b.Subscribe("mcp.task.>", func(subject string, data []byte) { taskMsgs <- subject + " " + string(data) }); err != nil {
		t.Fatal(err)
	}
	if err := nc2.Flush(); err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(a.Publish(ctx, "mcp.cancel.s1", []byte("1")))
	if g := waitString(t, cancels); g != "mcp.cancel.s1 1" {
		t.Fatalf("got %q", g)
	}
	must(a.Publish(ctx, "mcp.task.cancel.t1", []byte("c")))
	must(a.Publish(ctx, "mcp.task.state.t1", []byte("s")))
	got := []string{waitString(t, taskMsgs), waitString(t, taskMsgs)}
	if strings.Join(got, ",") != "mcp.task.cancel.t1 c,mcp.task.state.t1 s" && strings.Join(got, ",") != "mcp.task.state.t1 s,mcp.task.cancel.t1 c" {
		t.Fatalf("task messages %q", got)
	}

	// The server goes down. A publish that cannot wait fails: the caller
	// knows the message was not accepted.
	port := s.Addr().(*net.TCPAddr).Port
	s.Shutdown()
	s.WaitForShutdown()
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	err = a.Publish(short, "mcp.cancel.lost", []byte("x"))
	cancel()
	if err == nil {
		t.Fatal("Publish returned nil with the server down")
	}
	t.Logf("publish while down: %v", err)
	// One that can wait is accepted once the server is back.
	published := make(chan error, 2)
	go func() {
		pctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		published <- a.Publish(pctx, "mcp.cancel.s2", []byte("2"))
		published <- a.Publish(pctx, "mcp.task.cancel.t2", []byte("c2"))
	}()
	natstest.Start(t, natstest.Options{Port: port, StoreDir: dir})
	within(t, re1, "publisher reconnect")
	must(<-published)
	must(<-published)
	select {
	case <-re2:
		t.Fatal("the subscriber reconnected before the publisher's messages were accepted: the test shows nothing")
	default:
	}
	within(t, re2, "subscriber reconnect")
	g := waitString(t, cancels)
	if g == "mcp.cancel.lost x" {
		// Allowed: an error means "may not have been stored" (a request
		// the server read just before it went down); it is never lost
		// after a nil.
		g = waitString(t, cancels)
	}
	if g != "mcp.cancel.s2 2" {
		t.Fatalf("after the restart got %q", g)
	}
	if g := waitString(t, taskMsgs); g != "mcp.task.cancel.t2 c2" {
		t.Fatalf("after the restart got %q", g)
	}
	// Each once: the next message on each subscription is the next
	// published (the lost one was never accepted, so never delivered).
	must(a.Publish(ctx, "mcp.cancel.s3", []byte("3")))
	if g := waitString(t, cancels); g != "mcp.cancel.s3 3" {
		t.Fatalf("got %q, want the next cancellation", g)
	}
	must(a.Publish(ctx, "mcp.task.cancel.t3", []byte("c3")))
	if g := waitString(t, taskMsgs); g != "mcp.task.cancel.t3 c3" {
		t.Fatalf("got %q, want the next task message", g)
	}
}

func TestSubjectPatterns(t *testing.T) {
	sp := func(s string) []string { return strings.Split(s, ".") }
	for _, c := range []struct {
		a, b            string
		collide, subset bool
	}{
		{"mcp.cancel.>", "mcp.cancel.>", true, true},
		{"mcp.cancel.x", "mcp.cancel.>", true, true},
		{"mcp.task.>", "mcp.task.cancel.>", true, false},
		{"mcp.task.>", "mcp.cancel.>", false, false},
		{"mcp.>", "mcp", false, false},
		{"mcp.*", "mcp.>", true, true},
		{">", "mcp.>", true, false},
		{"*.x", "mcp.x", true, false},
		{"mcp.a", "mcp.a.b", false, false},
	} {
		if g := collide(sp(c.a), sp(c.b)); g != c.collide {
			t.Errorf("collide(%s, %s) = %v", c.a, c.b, g)
		}
		if g := subset(sp(c.a), sp(c.b)); g != c.subset {
			t.Errorf("subset(%s, %s) = %v", c.a, c.b, g)
		}
	}
}
