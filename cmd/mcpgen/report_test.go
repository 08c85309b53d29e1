package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const bindings20260728 = "github.com/mcpgen/mcpgen/generated/mcp20260728"

// writeFile writes content to path, creating its folder.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestSummaryLine: generate, tools and scaffold each print one line saying
// what they wrote, and nothing with -q (issue 36.5).
func TestSummaryLine(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir+"/tools.json", `[{"name":"add","inputSchema":{"type":"object","properties":{"a":{"type":"number"}},"required":["a"]}}]`)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"generate", "--revision", "2025-11-25", "--out", dir + "/mcp"}, []string{"mcpgen generate: wrote 10 files to " + dir + "/mcp", "package mcp", "2025-11-25", "10 changed"}},
		{[]string{"tools", "--tools", dir + "/tools.json", "--import", bindings20260728, "--out", dir + "/tools"}, []string{"mcpgen tools: wrote 1 file to " + dir + "/tools", "package tools, 1 tool from", "1 changed"}},
		{[]string{"scaffold", "--dir", "../../generated/mcp20251125", "--out", dir + "/srv/server.go"}, []string{"mcpgen scaffold: wrote " + dir + "/srv/server.go", "func main serves it on stdio: go run " + dir + "/srv"}},
	} {
		code, out, errs := runCLI(c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errs)
		}
		if strings.Count(out, "\n") != 1 || errs != "" {
			t.Errorf("%v: want one line on stdout and nothing on stderr, got %q and %q", c.args, out, errs)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: summary %q does not say %q", c.args, out, w)
			}
		}
		// Again with -q (scaffold overwrites with --force): silent.
		args := append(append([]string{}, c.args...), "-q")
		if c.args[0] == "scaffold" {
			args = append(args, "--force")
		}
		if code, out, errs := runCLI(args...); code != 0 || out != "" || errs != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 0 and nothing printed", args, code, out, errs)
		}
	}
	// A second generate changes nothing, and says so.
	if _, out, _ := runCLI("generate", "--revision", "2025-11-25", "--out", dir+"/mcp"); !strings.Contains(out, "0 changed") {
		t.Errorf("regenerating: %q, want 0 changed", out)
	}
}

// TestPackageClash: writing a package into a folder of another package is
// refused with the folder's package and file named, and nothing is written
// (issue 36.4): the build would otherwise fail with "found packages".
func TestPackageClash(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string // DIR is the folder holding main.go (package main)
		want string
	}{
		{"generate --package mcp", []string{"generate", "--revision", "2025-11-25", "--package", "mcp", "--out", "DIR"}, "holds package main (main.go), not mcp"},
		{"tools --package tools --out .", []string{"tools", "--tools", "DIR/tools.json", "--import", bindings20260728, "--package", "tools", "--out", "DIR"}, "holds package main (main.go), not tools"},
		{"generate into a folder named after another package", []string{"generate", "--revision", "2025-11-25", "--out", "DIR"}, "holds package main (main.go), not app"},
		{"scaffold --package srv", []string{"scaffold", "--dir", "../../generated/mcp20251125", "--package", "srv", "--out", "DIR/srv.go"}, "holds package main (main.go), not srv"},
		{"scaffold into the bindings' folder", []string{"scaffold", "--dir", "../../generated/mcp20251125", "--out", "BINDINGS/impl.go"}, "holds package mcp"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "app")
			writeFile(t, dir+"/main.go", "package main\n\nfunc main() {}\n")
			writeFile(t, dir+"/tools.json", `[{"name":"add","inputSchema":{"type":"object"}}]`)
			mustRun(t, "generate", "--revision", "2025-11-25", "--out", root+"/mcp", "-q")
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = strings.NewReplacer("DIR", dir, "BINDINGS", root+"/mcp").Replace(a)
			}
			code, out, errs := runCLI(args...)
			if code != 2 || out != "" || !strings.Contains(errs, c.want) || !strings.Contains(errs, "a folder holds one Go package") {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, out, errs, c.want)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 2 {
				t.Errorf("%s holds %d files after the refusal, want 2", dir, len(entries))
			}
			exists(t, root+"/mcp/impl.go", false)
		})
	}
}

// TestUnknownFlagSuggestion: an unknown flag near a known one names it
// (issue 36.8); one near none gets no guess.
func TestUnknownFlagSuggestion(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tools", "--tool", "x"}, "unknown flag: --tool (did you mean --tools?)"},
		{[]string{"generate", "--revison", "2025-11-25"}, "(did you mean --revision?)"},
		{[]string{"scaffold", "--ouT=x"}, "(did you mean --out?)"},
		{[]string{"generate", "-out", "x"}, "(did you mean --out? long flags take two dashes)"},
		{[]string{"check", "--packag", "x"}, "(did you mean --package?)"},
		{[]string{"generate", "--frobnicate"}, "unknown flag: --frobnicate\n"},
	} {
		code, _, errs := runCLI(c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
}

// TestScaffoldRuns: in a fresh module, scaffold's file in package main
// builds with the whole module ("go build ./..." passes) and, run, serves
// on stdio at once (issue 36.3); --main=false leaves main out.
func TestScaffoldRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	mod := t.TempDir()
	writeFile(t, mod+"/go.mod", "module example.com/first\n\ngo 1.24\n\nrequire github.com/mcpgen/mcpgen v0.0.0\n\nreplace github.com/mcpgen/mcpgen => "+root+"\n")
	mustRun(t, "generate", "--revision", "2025-11-25", "--out", mod+"/mcp", "-q")
	mustRun(t, "scaffold", "--dir", mod+"/mcp", "--out", mod+"/server.go", "-q")
	mustRun(t, "scaffold", "--side", "client", "--dir", mod+"/mcp", "--out", mod+"/client/client.go", "-q")
	// --main=false: a library package's scaffold, no main.
	mustRun(t, "scaffold", "--dir", mod+"/mcp", "--package", "impl", "--out", mod+"/impl/impl.go", "-q")
	if src, _ := os.ReadFile(mod + "/impl/impl.go"); strings.Contains(string(src), "func main") {
		t.Errorf("package impl's scaffold has a func main")
	}
	build := exec.Command("go", "build", "./...")
	build.Dir = mod
	build.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./... in the module: %v\n%s", err, out)
	}
	bin := filepath.Join(t.TempDir(), "server")
	b := exec.Command("go", "build", "-o", bin, ".")
	b.Dir = mod
	b.Env = build.Env
	if out, err := b.CombinedOutput(); err != nil {
		t.Fatalf("go build .: %v\n%s", err, out)
	}
	srv := exec.Command(bin)
	stdin, _ := srv.StdinPipe()
	stdout, _ := srv.StdoutPipe()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Process.Kill()
	stdin.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}` + "\n"))
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || !strings.Contains(line, `"id":1`) || !strings.Contains(line, `"serverInfo":{"name":"`) {
		t.Fatalf("the scaffold's main answered initialize with %q, %v", line, err)
	}
	stdin.Close() // EOF: the server stops
	done := make(chan error, 1)
	go func() { done <- srv.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("server after EOF: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("server still running 10 s after EOF")
	}
}
