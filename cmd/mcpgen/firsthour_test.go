package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/toolversion"
)

// TestFirstHourCases has a row for each CLI and tools-file case a new user
// met (issue 26): each fails with one line naming the flag, the path, the
// line:column or the JSON pointer, and the documented exit status (2 for
// bad flags and values, 1 for bad input), and leaves nothing behind that
// it should not.
func TestFirstHourCases(t *testing.T) {
	const bindings = "github.com/mcpgen/mcpgen/generated/mcp20260728"
	toolsJSON := `[{"name":"add","inputSchema":{"type":"object","properties":{"a":{"type":"number"}},"required":["a"]}}]`
	for _, c := range []struct {
		name  string
		setup func(t *testing.T, dir string)
		args  []string // "DIR" is replaced by the row's directory
		code  int
		want  []string // in stderr, which is one line
		check func(t *testing.T, dir string)
	}{
		{
			name: "tools with bindings whose path does not give the revision names --revision",
			args: []string{"tools", "--tools", "DIR/tools.json", "--import", "example.com/me/mcp", "--out", "DIR/tools"},
			code: 2, want: []string{"--import example.com/me/mcp", "pass --revision YYYY-MM-DD"},
		},
		{
			name: "generate does not remove the files mcpgen tools wrote",
			setup: func(t *testing.T, dir string) {
				mustRun(t, "tools", "--tools", dir+"/tools.json", "--import", bindings, "--out", dir+"/tools")
			},
			args: []string{"generate", "--revision", "2025-11-25", "--out", "DIR/tools"},
			code: 1, want: []string{"tools.go (typed tools, written by mcpgen tools)", "refusing to remove it"},
			check: func(t *testing.T, dir string) {
				exists(t, dir+"/tools/tools.go", true)
				exists(t, dir+"/tools/doc.go", false)
			},
		},
		{
			name: "tools does not remove the bindings mcpgen generate wrote",
			setup: func(t *testing.T, dir string) {
				mustRun(t, "generate", "--revision", "2026-07-28", "--out", dir+"/mcp")
			},
			args: []string{"tools", "--tools", "DIR/tools.json", "--import", bindings, "--out", "DIR/mcp", "--package", "mcp"},
			code: 1, want: []string{"types.go (bindings, written by mcpgen generate)", "refusing to remove them"},
			check: func(t *testing.T, dir string) { exists(t, dir+"/mcp/types.go", true) },
		},
		{
			name: "generate does not remove another package's generated file",
			setup: func(t *testing.T, dir string) {
				os.MkdirAll(dir+"/mcp", 0o755)
				os.WriteFile(dir+"/mcp/extra.go", []byte(generatedHeader+"\n\npackage other\n"), 0o644)
			},
			args: []string{"generate", "--revision", "2025-11-25", "--out", "DIR/mcp"},
			code: 1, want: []string{"extra.go (package other, not mcp)"},
			check: func(t *testing.T, dir string) { exists(t, dir+"/mcp/extra.go", true) },
		},
		{
			name: "--out naming a Go file is a bad value",
			args: []string{"generate", "--revision", "2025-11-25", "--out", "DIR/afile.go"},
			code: 2, want: []string{`--out "`, `afile.go" ends in .go`},
			check: func(t *testing.T, dir string) { exists(t, dir+"/afile.go", false) },
		},
		{
			name: "--out dir/types.go creates no directory named types.go",
			args: []string{"generate", "--revision", "2025-11-25", "--package", "mcp", "--out", "DIR/out/types.go"},
			code: 2, want: []string{`out/types.go" ends in .go`, "e.g. --out "},
			check: func(t *testing.T, dir string) { exists(t, dir+"/out", false) },
		},
		{
			name: "tools --out naming a Go file is a bad value",
			args: []string{"tools", "--tools", "DIR/tools.json", "--import", bindings, "--out", "DIR/tools.go"},
			code: 2, want: []string{"mcpgen tools: --out", `tools.go" ends in .go`},
		},
		{
			name: "scaffold --dir that does not exist names the flag and the path",
			args: []string{"scaffold", "--dir", "DIR/nope", "--out", "DIR/server.go"},
			code: 1, want: []string{"--dir", "nope: no such file or directory"},
		},
		{
			name: "check without --package says the package name differs",
			setup: func(t *testing.T, dir string) {
				mustRun(t, "generate", "--revision", "2025-11-25", "--package", "mcp", "--out", dir+"/bindings")
			},
			args: []string{"check", "--revision", "2025-11-25", "--dir", "DIR/bindings"},
			code: 2, want: []string{"holds package mcp", `defaults to --dir's base name, "bindings"`, "pass --package mcp"},
		},
		{
			name: "check passes bindings beside the typed tools mcpgen tools wrote there",
			setup: func(t *testing.T, dir string) {
				mustRun(t, "generate", "--revision", "2025-11-25", "--out", dir+"/mcp")
				mustRun(t, "tools", "--tools", dir+"/tools.json", "--import", "github.com/mcpgen/mcpgen/generated/mcp20251125", "--out", dir+"/mcp/tools")
				data, _ := os.ReadFile(dir + "/mcp/tools/tools.go")
				os.WriteFile(dir+"/mcp/tools.go", data, 0o644) // same directory, another package
			},
			args: []string{"check", "--revision", "2025-11-25", "--dir", "DIR/mcp"},
			code: 0,
		},
		{
			name: "a tools file with a syntax error gives its line and column",
			setup: func(t *testing.T, dir string) {
				os.WriteFile(dir+"/bad.json", []byte("[\n {\"name\":\"a\",\"inputSchema\":{\"type\":\"object\",\n \"properties\":{} \"required\":[]}}]"), 0o644)
			},
			args: []string{"tools", "--tools", "DIR/bad.json", "--import", bindings, "--out", "DIR/tools"},
			code: 1, want: []string{"bad.json:3:18: invalid JSON"},
		},
		{
			name: "required naming no property is an error at its pointer",
			setup: func(t *testing.T, dir string) {
				os.WriteFile(dir+"/req.json", []byte(`[{"name":"add","inputSchema":{"type":"object","properties":{"a":{"type":"number"}},"required":["a","b"]}}]`), 0o644)
			},
			args: []string{"tools", "--tools", "DIR/req.json", "--import", bindings, "--out", "DIR/tools"},
			code: 1, want: []string{`req.json: #/0/inputSchema/required/1: "b" is not one of the properties`},
		},
		{
			name: "a tool name the spec does not allow is an error",
			setup: func(t *testing.T, dir string) {
				os.WriteFile(dir+"/name.json", []byte(`[{"name":"add numbers!","inputSchema":{"type":"object"}}]`), 0o644)
			},
			args: []string{"tools", "--tools", "DIR/name.json", "--import", bindings, "--out", "DIR/tools"},
			code: 1, want: []string{`name.json: #/0/name: "add numbers!" is not a valid tool name`, "Tool Names"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "tools.json"), []byte(toolsJSON), 0o644)
			if c.setup != nil {
				c.setup(t, dir)
			}
			args := make([]string, len(c.args))
			for i, a := range c.args {
				args[i] = strings.ReplaceAll(a, "DIR", dir)
			}
			code, _, errs := runCLI(args...)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr %q", code, c.code, errs)
			}
			if strings.Count(strings.TrimSuffix(errs, "\n"), "\n") != 0 {
				t.Errorf("stderr is not one line: %q", errs)
			}
			for _, w := range c.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr %q lacks %q", errs, w)
				}
			}
			if c.check != nil {
				c.check(t, dir)
			}
		})
	}
}

// TestOneVersionString: mcpgen version prints the version every generated
// file's header names, whichever command wrote it.
func TestOneVersionString(t *testing.T) {
	code, out, _ := runCLI("version")
	if code != 0 {
		t.Fatal(code)
	}
	fields := strings.Fields(out)
	if len(fields) < 2 || fields[1] != toolversion.String() {
		t.Fatalf("mcpgen version printed %q, want the version %s", out, toolversion.String())
	}
	dir := t.TempDir()
	mustRun(t, "generate", "--revision", "2025-11-25", "--out", dir+"/mcp")
	os.WriteFile(dir+"/tools.json", []byte(`[{"name":"a","inputSchema":{"type":"object"}}]`), 0o644)
	mustRun(t, "tools", "--tools", dir+"/tools.json", "--import", "github.com/mcpgen/mcpgen/generated/mcp20251125", "--out", dir+"/tools")
	for _, f := range []string{"mcp/doc.go", "mcp/types.go", "tools/tools.go"} {
		data, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if want := "// " + toolversion.HeaderLine(fields[1]) + "\n"; !strings.Contains(string(data), want) {
			t.Errorf("%s lacks %q, the version mcpgen version prints", f, want)
		}
	}
}

// TestReadmeToolsLinesHavePackage: every mcpgen tools line of the README
// and the guides says --package, so copying one names the package.
func TestReadmeToolsLinesHavePackage(t *testing.T) {
	n := 0
	for _, doc := range docFiles(t) {
		readme, err := os.ReadFile(filepath.Join("..", "..", doc))
		if err != nil {
			t.Fatal(err)
		}
		lines := regexp.MustCompile(`(?m)^//go:generate go tool mcpgen tools .*$`).FindAllString(string(readme), -1)
		n += len(lines)
		for _, l := range lines {
			if !strings.Contains(l, " --package ") {
				t.Errorf("%s: %q has no --package", doc, l)
			}
		}
	}
	if n == 0 {
		t.Fatal("neither README.md nor docs/ has a go:generate line for mcpgen tools")
	}
}

// mustRun runs the CLI and fails the test unless it exits 0.
func mustRun(t *testing.T, args ...string) {
	t.Helper()
	if code, _, errs := runCLI(args...); code != 0 {
		t.Fatalf("mcpgen %s: exit %d: %s", strings.Join(args, " "), code, errs)
	}
}

// exists checks whether path exists.
func exists(t *testing.T, path string, want bool) {
	t.Helper()
	_, err := os.Stat(path)
	if got := err == nil; got != want {
		t.Errorf("%s exists: %v, want %v", path, got, want)
	}
}
