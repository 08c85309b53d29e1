package interophttp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	mcp20251125 "github.com/mcpgen/mcpgen/generated/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// tsEnv returns node and the directory whose node_modules holds
// @modelcontextprotocol/sdk; scripts/suites/40-interop-http.sh installs
// both and sets MCPGEN_NODE and MCPGEN_TS_SDK.
func tsEnv(t *testing.T) (node, dir string) {
	node, dir = os.Getenv("MCPGEN_NODE"), os.Getenv("MCPGEN_TS_SDK")
	if node == "" || dir == "" {
		t.Skip("MCPGEN_NODE and MCPGEN_TS_SDK not set (scripts/suites/40-interop-http.sh sets them)")
	}
	return node, dir
}

// script copies a script next to the SDK's node_modules, where ESM import
// resolution finds it.
func script(t *testing.T, dir, name string) string {
	src, err := os.ReadFile(filepath.Join("ts", name))
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "mcpgen-"+name)
	if err := os.WriteFile(dst, src, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

type tsEvent struct {
	Event  string          `json:"event"`
	Port   int             `json:"port"`
	Reason string          `json:"reason"`
	Error  string          `json:"error"`
	Result json.RawMessage `json:"result"`
}

func events(t *testing.T, cmd *exec.Cmd) <-chan tsEvent {
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ch := make(chan tsEvent, 16)
	go func() {
		defer close(ch)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var e tsEvent
			if json.Unmarshal(sc.Bytes(), &e) == nil {
				ch <- e
			}
		}
	}()
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("node stderr: %s", stderr.String())
		}
	})
	return ch
}

func next(t *testing.T, ch <-chan tsEvent, want string) tsEvent {
	t.Helper()
	for {
		select {
		case e, ok := <-ch:
			if !ok {
				t.Fatalf("node exited before %q", want)
			}
			if e.Event == want {
				return e
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("timed out waiting for %q", want)
		}
	}
}

// The TypeScript SDK's client against the mcpgen server (legacy): its abort
// reaches our handler as a peer notification with its reason, and it gets
// no result for the cancelled call.
func TestTSClientToMcpgenServer(t *testing.T) {
	node, dir := tsEnv(t)
	o := newOurs()
	h := streamhttp.NewHandler(o, streamhttp.Options{Logger: quiet()})
	srv := httptest.NewServer(h)
	defer func() {
		srv.CloseClientConnections()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.Close(ctx)
		srv.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script(t, dir, "client.mjs"), srv.URL)
	ev := events(t, cmd)
	next(t, ev, "connected")
	wait(t, o.started, "handler start")
	cause := wait(t, o.ended, "handler cancellation")
	var ce *jsonrpc2.CancelError
	if !errors.As(cause, &ce) || ce.Source != jsonrpc2.SourcePeer || !strings.Contains(ce.Reason, "gave up after 200ms") {
		t.Fatalf("cause %v", cause)
	}
	if e := next(t, ev, "aborted"); e.Error == "" {
		t.Fatal("no abort error")
	}
	next(t, ev, "echo")
	next(t, ev, "closed")
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if h.Sessions() != 0 {
		t.Error("the TS client's DELETE did not end the session")
	}
}

// The mcpgen client against the TypeScript SDK's server (legacy): our
// cancel reaches its handler's AbortSignal with our reason.
func TestMcpgenClientToTSServer(t *testing.T) {
	node, dir := tsEnv(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script(t, dir, "server.mjs"))
	ev := events(t, cmd)
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	port := next(t, ev, "listening").Port
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"
	tr, err := streamhttp.Dial(ctx, url, streamhttp.ClientOptions{Revisions: httpRevisions, Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Era() != streamhttp.EraLegacy {
		t.Fatalf("detected %v", tr.Era())
	}
	conn := jsonrpc2.NewConn(tr, jsonrpc2.WithPolicy(mcp20251125.Policy(jsonrpc2.SideClient)), jsonrpc2.WithLogger(quiet()))
	conn.Start()
	defer func() {
		c, cc := context.WithTimeout(context.Background(), 5*time.Second)
		defer cc()
		conn.Close(c)
	}()
	if err := conn.Call(ctx, "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]string{"name": "mcpgen", "version": "0"}}, nil); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if err := conn.Notify(ctx, "notifications/initialized", nil); err != nil {
		t.Fatal(err)
	}
	callCtx, stop := context.WithCancelCause(ctx)
	res := make(chan error, 1)
	go func() {
		res <- conn.Call(callCtx, "tools/call", map[string]any{"name": "sleep", "arguments": map[string]any{}}, nil)
	}()
	next(t, ev, "started")
	stop(errors.New("mcpgen gave up"))
	if err := wait(t, res, "call"); !errors.Is(err, context.Canceled) {
		t.Fatalf("call: %v", err)
	}
	if e := next(t, ev, "cancelled"); !strings.Contains(e.Reason, "mcpgen gave up") {
		t.Fatalf("TS handler saw reason %q", e.Reason)
	}
}
