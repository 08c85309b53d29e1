// Package callers runs mcpgen's typed callers against MCP servers nobody
// in this repository wrote: the official reference servers from npm
// (server-everything, server-filesystem, server-memory, versions pinned in
// package.json), a go-sdk server (cmd/gosdkserver) and a TypeScript SDK
// server (ts-server.mjs), each with tools of its own. For each server the
// committed gen/<name> holds the snapshot and the package "mcpgen tools
// --from-server" wrote from it; the tests check the live server still
// matches the snapshot (--check-server), that snapshotting it again writes
// the same bytes, and call every tool through the typed Caller, with valid
// arguments and with arguments the server rejects (a typed error, never a
// panic). scripts/suites/55-callers.sh runs them.
package callers

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp20241105"
	"github.com/mcpgen/mcpgen/generated/mcp20250326"
	"github.com/mcpgen/mcpgen/generated/mcp20250618"
	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// server is one server under test: its command line.
type server struct {
	name string
	cmd  []string
}

var (
	bin    string // the mcpgen binary
	goSrv  string // cmd/gosdkserver, built
	fsRoot string // server-filesystem's allowed directory
)

func TestMain(m *testing.M) {
	tmp, err := os.MkdirTemp("", "callers")
	if err != nil {
		panic(err)
	}
	bin, goSrv = filepath.Join(tmp, "mcpgen"), filepath.Join(tmp, "gosdkserver")
	for _, b := range [][2]string{{bin, "github.com/mcpgen/mcpgen/cmd/mcpgen"}, {goSrv, "./cmd/gosdkserver"}} {
		if out, err := exec.Command("go", "build", "-o", b[0], b[1]).CombinedOutput(); err != nil {
			os.Stderr.Write(out)
			panic(err)
		}
	}
	fsRoot = filepath.Join(tmp, "root")
	os.MkdirAll(fsRoot, 0o755)
	os.Setenv("MEMORY_FILE_PATH", filepath.Join(tmp, "memory.jsonl")) // for the snapshots; connect sets its own
	code := m.Run()
	os.RemoveAll(tmp)
	os.Exit(code)
}

func servers() []server {
	return []server{
		{"everything", []string{"node", "node_modules/.bin/mcp-server-everything"}},
		{"filesystem", []string{"node", "node_modules/.bin/mcp-server-filesystem", fsRoot}},
		{"memory", []string{"node", "node_modules/.bin/mcp-server-memory"}},
		{"gosdk", []string{goSrv}},
		{"tssdk", []string{"node", "ts-server.mjs"}},
	}
}

// TestSnapshots is the CI drift check of each committed snapshot
// (mcpgen tools --check-server), and proves the loop reproducible:
// snapshotting the server again writes the committed snapshot and package
// byte for byte.
func TestSnapshots(t *testing.T) {
	for _, s := range servers() {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			dir := filepath.Join("gen", s.name)
			args := append([]string{"tools", "--check-server", "--snapshot", filepath.Join(dir, "snapshot.json"), "--"}, s.cmd...)
			if out, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
				t.Fatalf("mcpgen tools --check-server: %v\n%s", err, out)
			}
			out := filepath.Join(t.TempDir(), s.name)
			args = append([]string{"tools", "--from-server", "--out", out, "--"}, s.cmd...)
			if b, err := exec.Command(bin, args...).CombinedOutput(); err != nil {
				t.Fatalf("mcpgen tools --from-server: %v\n%s", err, b)
			}
			for _, f := range []string{"snapshot.json", "tools.go"} {
				want, _ := os.ReadFile(filepath.Join(dir, f))
				got, _ := os.ReadFile(filepath.Join(out, f))
				if !bytes.Equal(got, want) {
					t.Errorf("%s: a new snapshot differs from the committed %s", s.name, f)
				}
			}
		})
	}
}

// connect starts the server and connects the documented way: the
// generated Connect, the older revisions as legacy.
func connect(t *testing.T, name string) *mcp.ClientSession {
	t.Helper()
	var cmdline []string
	for _, s := range servers() {
		if s.name == name {
			cmdline = s.cmd
		}
	}
	cmd := exec.Command(cmdline[0], cmdline[1:]...)
	// server-memory keeps its graph in a file: one per test, so no test
	// sees another's entities.
	cmd.Env = append(os.Environ(), "MEMORY_FILE_PATH="+filepath.Join(t.TempDir(), "memory.jsonl"))
	cmd.Stderr = io.Discard
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	sess, err := mcp.Connect(ctx, jsonrpc2.NewStdioTransport(stdout, stdin, jsonrpc2.StdioOptions{}),
		session.Implementation{Name: "callers-test", Version: "1"}, nil,
		session.WithClientLegacy(mcp20251125.Revision(), mcp20250618.Revision(), mcp20250326.Revision(), mcp20241105.Revision()))
	if err != nil {
		t.Fatalf("%s: connect: %v", name, err)
	}
	t.Cleanup(func() { sess.Close(context.Background()) })
	return sess
}

func ptr[T any](v T) *T { return &v }

// ctx bounds one call.
func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return c
}

// text is the text blocks of a result.
func text(res *mcp.CallToolResult) string {
	var b []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b = append(b, tc.Text)
		}
	}
	return strings.Join(b, "\n")
}

// rejected checks that err is the typed error of a refused call: a tool
// execution error (*ExecutionError, isError: true) or a JSON-RPC error.
func rejected(t *testing.T, what string, err error, execErr any) {
	t.Helper()
	var rpc *jsonrpc2.Error
	switch {
	case err == nil:
		t.Errorf("%s: no error", what)
	case errors.As(err, execErr), errors.As(err, &rpc):
	default:
		t.Errorf("%s: %T %v, want an *ExecutionError or a *jsonrpc2.Error", what, err, err)
	}
}
