package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// uncomment turns the commented-out stubs of a scaffold for the methods
// named (all of them when none is named) into code: the assertion, the
// doc comment and the function, whose body still panics until written.
func uncomment(src string, methods ...string) string {
	lines := strings.Split(src, "\n")
	in := false
	for i, l := range lines {
		if strings.HasPrefix(l, "// var _ ") {
			in = len(methods) == 0
			for _, m := range methods {
				if strings.Contains(l, "."+m+"Handler ") {
					in = true
				}
			}
		}
		if !in {
			continue
		}
		if l == "//" {
			lines[i] = ""
		} else {
			lines[i] = strings.TrimPrefix(l, "// ")
		}
		if l == "// }" {
			in = false
		}
	}
	return strings.Join(lines, "\n")
}

// readmeMain is step 4 of the README: serve the scaffold's Server on stdio.
const readmeMain = `package main

import (
	"context"
	"os"

	mcp %q
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

func main() {
	ctx := context.Background()
	if err := mcp.NewServer(session.Implementation{Name: "readme", Version: "0"}, &Server{}).Serve(ctx, jsonrpc2.NewStdioTransport(os.Stdin, os.Stdout, jsonrpc2.StdioOptions{})); err != nil {
		panic(err)
	}
}
`

// TestReadmePathServesEveryRevision is the README's own path, for every
// revision: "mcpgen scaffold" of the bindings, the README's main, built and
// run as a process over real pipes. The session answers the lifecycle
// (initialize or server/discover, ping, logging/setLevel) whatever the
// scaffold has, and the capabilities declared are exactly what the user
// implemented: {logging} for the untouched scaffold, {logging, tools} once
// the ListTools and CallTool stubs are uncommented.
func TestReadmePathServesEveryRevision(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a server per revision")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	overlay := map[string]string{}
	var pkgs []string
	type variant struct {
		name  string
		edit  func(string) string
		caps  []string
		tools bool
	}
	variants := []variant{
		{"bare", func(s string) string { return s }, []string{"logging"}, false},
		{"tools", func(s string) string { return uncomment(s, "ListTools", "CallTool") }, []string{"logging", "tools"}, true},
	}
	for _, rev := range revisions {
		pkg := "mcp" + strings.ReplaceAll(rev, "-", "")
		gen := filepath.Join(tmp, pkg+"_server.go")
		code, _, errs := runCLI("scaffold", "--dir", filepath.Join(root, "generated", pkg), "--out", gen, "--alias", "mcp", "--main=false", "-q")
		if code != 0 {
			t.Fatalf("%s: scaffold: exit %d: %s", rev, code, errs)
		}
		src, err := os.ReadFile(gen)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range variants {
			dir := filepath.Join("internal", "readmepath", pkg+v.name)
			for name, content := range map[string]string{
				"server.go": v.edit(string(src)),
				"main.go":   fmt.Sprintf(readmeMain, "github.com/mcpgen/mcpgen/generated/"+pkg),
			} {
				file := filepath.Join(tmp, pkg+v.name+"_"+name)
				if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
				overlay[filepath.Join(root, dir, name)] = file
			}
			pkgs = append(pkgs, "./"+filepath.ToSlash(dir))
		}
	}
	data, err := json.Marshal(map[string]any{"Replace": overlay})
	if err != nil {
		t.Fatal(err)
	}
	overlayFile := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(overlayFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(tmp, "bin")
	if err := os.Mkdir(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	// One build for all of them: the go command shares the work.
	build := exec.Command("go", append([]string{"build", "-overlay", overlayFile, "-o", bin}, pkgs...)...)
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the README's server: %v\n%s", err, out)
	}
	for _, rev := range revisions {
		for _, v := range variants {
			t.Run(rev+"/"+v.name, func(t *testing.T) {
				p := startServer(t, filepath.Join(bin, "mcp"+strings.ReplaceAll(rev, "-", "")+v.name))
				modern := rev >= "2026-07-28"
				var meta map[string]any
				var caps json.RawMessage
				if modern {
					meta = map[string]any{"_meta": map[string]any{
						"io.modelcontextprotocol/protocolVersion":    rev,
						"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "test", "version": "0"},
						"io.modelcontextprotocol/clientCapabilities": map[string]any{},
					}}
					res := p.mustCall(t, "server/discover", meta)
					var d struct {
						SupportedVersions []string        `json:"supportedVersions"`
						Capabilities      json.RawMessage `json:"capabilities"`
					}
					if err := json.Unmarshal(res, &d); err != nil || !slices.Contains(d.SupportedVersions, rev) {
						t.Fatalf("server/discover answered %s", res)
					}
					caps = d.Capabilities
				} else {
					res := p.mustCall(t, "initialize", map[string]any{"protocolVersion": rev, "capabilities": map[string]any{},
						"clientInfo": map[string]any{"name": "test", "version": "0"}})
					var init struct {
						ProtocolVersion string          `json:"protocolVersion"`
						Capabilities    json.RawMessage `json:"capabilities"`
						ServerInfo      struct{ Name string }
					}
					if err := json.Unmarshal(res, &init); err != nil || init.ProtocolVersion != rev || init.ServerInfo.Name != "readme" {
						t.Fatalf("initialize answered %s", res)
					}
					caps = init.Capabilities
					p.send(t, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
				}
				var got map[string]json.RawMessage
				if err := json.Unmarshal(caps, &got); err != nil {
					t.Fatalf("capabilities %s: %v", caps, err)
				}
				var names []string
				for k := range got {
					names = append(names, k)
				}
				slices.Sort(names)
				if !slices.Equal(names, v.caps) {
					t.Errorf("declared capabilities %v, want exactly %v", names, v.caps)
				}
				// The session's lifecycle answers, as it does today for
				// both eras (a modern server answers them for the legacy
				// clients it maps).
				if res := p.mustCall(t, "ping", nil); string(res) != "{}" {
					t.Errorf("ping answered %s", res)
				}
				if res := p.mustCall(t, "logging/setLevel", map[string]any{"level": "info"}); string(res) != "{}" {
					t.Errorf("logging/setLevel answered %s", res)
				}
				// tools/list: -32601 until the stub is uncommented; then the
				// stub itself runs (and panics: "TODO"), which the runtime
				// answers with -32603, proving the request reached it.
				params := map[string]any{}
				if modern {
					params = meta
				}
				rpcErr := p.call(t, "tools/list", params).Error
				want := -32601
				if v.tools {
					want = -32603
				}
				if rpcErr == nil || rpcErr.Code != want {
					t.Errorf("tools/list answered error %+v, want code %d", rpcErr, want)
				}
			})
		}
	}
}

// stdioPeer is a raw JSON-RPC client of a server process.
type stdioPeer struct {
	in     io.WriteCloser
	out    *bufio.Scanner
	nextID int
}

type rpcAnswer struct {
	ID     int             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func startServer(t *testing.T, path string) *stdioPeer {
	t.Helper()
	cmd := exec.Command(path)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		in.Close() // EOF: the server ends
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Error("the server did not exit after stdin's EOF")
		}
	})
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	return &stdioPeer{in: in, out: sc}
}

func (p *stdioPeer) send(t *testing.T, msg any) {
	t.Helper()
	b, _ := json.Marshal(msg)
	if _, err := p.in.Write(append(b, '\n')); err != nil {
		t.Fatal(err)
	}
}

// call sends a request and reads until its answer (skipping notifications).
func (p *stdioPeer) call(t *testing.T, method string, params any) rpcAnswer {
	t.Helper()
	p.nextID++
	msg := map[string]any{"jsonrpc": "2.0", "id": p.nextID, "method": method}
	if params != nil {
		msg["params"] = params
	}
	p.send(t, msg)
	for p.out.Scan() {
		var a rpcAnswer
		if json.Unmarshal(p.out.Bytes(), &a) == nil && a.ID == p.nextID {
			return a
		}
	}
	t.Fatalf("%s: no answer (%v)", method, p.out.Err())
	return rpcAnswer{}
}

func (p *stdioPeer) mustCall(t *testing.T, method string, params any) json.RawMessage {
	t.Helper()
	a := p.call(t, method, params)
	if a.Error != nil {
		t.Fatalf("%s answered error %d %s: the session did not answer it", method, a.Error.Code, a.Error.Message)
	}
	return a.Result
}
