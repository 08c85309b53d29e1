package streamhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// syncBuffer is a log destination a test can read while the server writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
	url chan string
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, u, ok := strings.Cut(string(p), "url="); ok {
		select {
		case b.url <- strings.TrimSpace(u):
		default:
		}
	}
	return b.buf.Write(p)
}

// TestListenAndServe: it logs the endpoint's URL with the port it bound,
// serves both eras there and the probes beside it, and when ctx ends
// drains: a running handler past the grace (ShutdownTimeout) is cancelled,
// its stream closed, and it returns within twice its ShutdownTimeout, even
// though the handler outlives its cancellation.
func TestListenAndServe(t *testing.T) {
	started, release := make(chan struct{}), make(chan struct{})
	defer close(release)
	register := func(c *jsonrpc2.Conn) []string {
		if c != nil {
			c.Handle("tools/call", func(ctx context.Context, r *jsonrpc2.Request) (any, error) {
				close(started)
				<-release // ignores its cancellation
				return nil, context.Cause(ctx)
			})
		}
		return []string{"tools/call"}
	}
	srv := session.NewServer(session.Implementation{Name: "serve-test", Version: "0"}, modernRevision(), register,
		session.WithLegacy(legacyRevision()), session.WithLogger(quiet()))
	logs := &syncBuffer{url: make(chan string, 1)}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- ListenAndServe(ctx, "127.0.0.1:0", srv, Options{
			ShutdownTimeout: 300 * time.Millisecond,
			Logger:          slog.New(slog.NewTextHandler(logs, nil)),
		})
	}()
	var url string
	select {
	case url = <-logs.url:
	case err := <-done:
		t.Fatalf("ListenAndServe returned %v before serving", err)
	case <-time.After(10 * time.Second):
		t.Fatal("no URL logged")
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") || !strings.HasSuffix(url, "/mcp") || strings.HasSuffix(url, ":0/mcp") {
		t.Fatalf("logged URL %q", url)
	}

	// The probes are served beside the endpoint.
	for _, path := range []string{PathLiveness, PathReadiness} {
		resp, err := http.Get(strings.TrimSuffix(url, "/mcp") + path)
		if err != nil {
			t.Fatal(err)
		}
		if b := readAll(t, resp); resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", path, resp.StatusCode, b)
		}
	}

	// A legacy client's initialize is answered at that URL.
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"0"}}}`
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, msg := rpcBody(t, resp)
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(msg["result"], &res)
	if res.ProtocolVersion != "2025-11-25" {
		t.Fatalf("initialize answered %v", msg)
	}
	sid := resp.Header.Get("Mcp-Session-Id")

	// A call that will still be running at shutdown.
	go func() {
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"block"}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	<-started
	start := time.Now()
	stop()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("ListenAndServe after ctx ended: %v", err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Fatalf("returned after %v", took)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ListenAndServe did not return within its shutdown bound")
	}
}
