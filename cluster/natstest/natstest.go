// Package natstest starts a real NATS server (nats-server/v2, JetStream on)
// inside a test process, so natscluster's tests and the cluster e2e test run
// against the engine itself, not a stand-in.
package natstest

import (
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Options configures Start.
type Options struct {
	// Port is the client port; 0 picks a free one (-1 to the server).
	Port int
	// StoreDir is JetStream's directory; "" means a t.TempDir(). Reuse the
	// same directory to restart a server with its data.
	StoreDir string
}

// Start runs a JetStream-enabled NATS server on 127.0.0.1 until the test
// ends, and returns it; its client URL is s.ClientURL().
func Start(t testing.TB, o Options) *server.Server {
	t.Helper()
	if o.StoreDir == "" {
		o.StoreDir = t.TempDir()
	}
	port := o.Port
	if port == 0 {
		port = -1
	}
	s, err := server.NewServer(&server.Options{
		Host:      "127.0.0.1",
		Port:      port,
		JetStream: true,
		StoreDir:  o.StoreDir,
		NoLog:     true,
		NoSigs:    true,
	})
	if err != nil {
		t.Fatalf("natstest: %v", err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		t.Fatal("natstest: server not ready in 10s")
	}
	t.Cleanup(func() {
		s.Shutdown()
		s.WaitForShutdown()
	})
	return s
}
