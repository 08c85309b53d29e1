package natscluster

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/cluster/natstest"
	"github.com/nats-io/nats.go"
)

// Reachable holds while the server answers and fails, naming why, once it
// is gone; it holds again after the client reconnects.
func TestReachable(t *testing.T) {
	dir := t.TempDir()
	s := natstest.Start(t, natstest.Options{StoreDir: dir})
	reconnected := make(chan struct{}, 1)
	nc, err := nats.Connect(s.ClientURL(), nats.MaxReconnects(-1), nats.ReconnectWait(20*time.Millisecond),
		nats.ReconnectHandler(func(*nats.Conn) { reconnected <- struct{}{} }))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	check := Reachable(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if check.Name != "nats" || check.Check(ctx) != nil {
		t.Fatalf("%s with the server up: %v", check.Name, check.Check(ctx))
	}
	port := s.Addr().(*net.TCPAddr).Port
	s.Shutdown()
	s.WaitForShutdown()
	short, cancel2 := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel2()
	if err := check.Check(short); err == nil || !strings.Contains(err.Error(), "not connected") && !strings.Contains(err.Error(), "round trip") {
		t.Fatalf("with the server gone: %v", err)
	}
	natstest.Start(t, natstest.Options{Port: port, StoreDir: dir})
	select {
	case <-reconnected:
	case <-time.After(10 * time.Second):
		t.Fatal("no reconnect")
	}
	if err := check.Check(ctx); err != nil {
		t.Fatalf("after the reconnect: %v", err)
	}
}
