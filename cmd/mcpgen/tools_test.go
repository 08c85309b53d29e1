package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// toolsFile has every kind of member, and an output schema only where the
// revision allows one.
func toolsFile(structured bool) string {
	out := ""
	if structured {
		out = `,"outputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`
	}
	return `[{"name":"count-words","description":"Counts words.","inputSchema":{"type":"object","properties":{
		"text":{"type":"string","maxLength":1000},"mode":{"type":"string","enum":["fast","exact"]},
		"opts":{"type":"object","properties":{"case":{"type":"boolean"}}},"ids":{"type":"array","items":{"type":"integer"}}},
		"required":["text"]}` + out + `},
		{"name":"ping_me","inputSchema":{"type":"object"}}]`
}

// TestToolsCompiles generates a tools package for the bindings of every
// revision into this module and vets it: the generated dispatcher must fit
// each revision's types (list params, results, resultType).
func TestToolsCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	dir, err := os.MkdirTemp("testdata", "tools")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, rev := range revisions {
		pkg := "mcp" + strings.ReplaceAll(rev, "-", "")
		file := filepath.Join(dir, pkg+".json")
		os.WriteFile(file, []byte(toolsFile(rev >= "2025-06-18")), 0o644)
		out := filepath.Join(dir, pkg)
		code, _, errs := runCLI("tools", "--tools", file, "--import", "github.com/mcpgen/mcpgen/generated/"+pkg, "--out", out)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", rev, code, errs)
		}
		src, _ := os.ReadFile(filepath.Join(out, "tools.go"))
		if !strings.Contains(string(src), "CountWords(ctx context.Context, args *CountWordsArgs)") {
			t.Errorf("%s: no CountWords method in the Tools interface", rev)
		}
	}
	cmd := exec.Command("go", "vet", "./"+filepath.ToSlash(dir)+"/...")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet of the generated tools packages: %v\n%s", err, out)
	}
}

func TestToolsErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(content), 0o644)
		return p
	}
	good := write("good.json", toolsFile(true))
	imp := "github.com/mcpgen/mcpgen/generated/mcp20251125"
	for _, c := range []struct {
		name string
		args []string
		code int
		want []string // in stderr
	}{
		{"no flags", []string{"tools"}, 2, []string{"--tools, --import and --out are required"}},
		{"bad flag", []string{"tools", "--nope"}, 2, []string{"unknown flag"}},
		{"bad package", []string{"tools", "--tools", good, "--import", imp, "--out", dir, "--package", "a-b"}, 2, []string{"not a Go identifier"}},
		{"missing file", []string{"tools", "--tools", filepath.Join(dir, "none.json"), "--import", imp, "--out", dir, "--package", "p"}, 1, []string{"none.json"}},
		{"unsupported keyword", []string{"tools", "--tools", write("oneof.json",
			`[{"name":"x","inputSchema":{"type":"object","properties":{"a":{"oneOf":[{"type":"string"}]}}}}]`),
			"--import", imp, "--out", dir, "--package", "p"}, 1,
			[]string{"oneof.json: #/0/inputSchema/properties/a/oneOf: unsupported keyword \"oneOf\""}},
		{"ref", []string{"tools", "--tools", write("ref.json",
			`[{"name":"x","inputSchema":{"type":"object","$defs":{"a":{}},"properties":{"a":{"$ref":"#/$defs/a"}}}}]`),
			"--import", imp, "--out", dir, "--package", "p"}, 1, []string{"ref.json: #/0/inputSchema/$defs: unsupported keyword"}},
		{"not an object", []string{"tools", "--tools", write("str.json", `[{"name":"x","inputSchema":{"type":"string"}}]`),
			"--import", imp, "--out", dir, "--package", "p"}, 1, []string{"str.json: #/0/inputSchema/type: must be \"object\""}},
		{"output schema too early", []string{"tools", "--tools", good, "--import", "github.com/mcpgen/mcpgen/generated/mcp20250326",
			"--out", dir, "--package", "p"}, 1, []string{"good.json: #/0/outputSchema: revision 2025-03-26 has no structured tool output"}},
		{"unknown revision", []string{"tools", "--tools", good, "--import", "example.com/bindings", "--out", dir, "--package", "p"}, 2,
			[]string{"cannot tell the MCP revision of --import example.com/bindings", "pass --revision"}},
		{"duplicate Go name", []string{"tools", "--tools", write("dup.json",
			`[{"name":"a_b","inputSchema":{"type":"object"}},{"name":"a-b","inputSchema":{"type":"object"}}]`),
			"--import", imp, "--out", dir, "--package", "p"}, 1, []string{"dup.json: #/1/name:", "AB"}},
		{"bad pattern", []string{"tools", "--tools", write("re.json",
			`[{"name":"x","inputSchema":{"type":"object","properties":{"a":{"type":"string","pattern":"(?<=x)"}}}}]`),
			"--import", imp, "--out", dir, "--package", "p"}, 1, []string{"re.json: #/0/inputSchema/properties/a"}},
		{"keyword without type", []string{"tools", "--tools", write("min.json",
			`[{"name":"x","inputSchema":{"type":"object","properties":{"a":{"minimum":1}}}}]`),
			"--import", imp, "--out", dir, "--package", "p"}, 1, []string{"min.json: #/0/inputSchema/properties/a/minimum: needs \"type\""}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, errs := runCLI(c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d; stderr %q", code, c.code, errs)
			}
			for _, w := range c.want {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr %q lacks %q", errs, w)
				}
			}
		})
	}
}

func TestToolsHelp(t *testing.T) {
	code, out, _ := runCLI("help", "tools")
	if code != 0 || !strings.Contains(out, "usage: mcpgen tools --tools FILE --import PATH") {
		t.Fatalf("exit %d, help %q", code, out)
	}
	if _, out, _ := runCLI("help"); !strings.Contains(out, "tools ") {
		t.Fatalf("mcpgen help does not list tools:\n%s", out)
	}
}

// TestToolsRemovesOldSupportFile: an earlier mcpgen wrote the support code
// into each tools package as tools_support.go; it now lives in
// runtime/toolsupport, so mcpgen tools removes that file when it carries
// the mcpgen header (its declarations would clash with tools.go's) and
// leaves a file of the same name that the user wrote.
func TestToolsRemovesOldSupportFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "tools.json")
	os.WriteFile(file, []byte(toolsFile(true)), 0o644)
	for _, c := range []struct {
		content string
		kept    bool
	}{
		{generatedHeader + "\n// Source: tools.json\n\npackage out\n\ntype ValidationError struct{}\n", false},
		{"package out\n\n// My own helpers, written by hand.\n", true},
	} {
		out := filepath.Join(dir, "out")
		os.MkdirAll(out, 0o755)
		old := filepath.Join(out, "tools_support.go")
		os.WriteFile(old, []byte(c.content), 0o644)
		if code, _, errs := runCLI("tools", "--tools", file, "--import", "github.com/mcpgen/mcpgen/generated/mcp20251125", "--out", out); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		got, err := os.ReadFile(old)
		switch {
		case c.kept && string(got) != c.content:
			t.Errorf("the user's tools_support.go was changed or removed (%v)", err)
		case !c.kept && err == nil:
			t.Errorf("the tools_support.go an earlier mcpgen wrote is still there")
		}
		if _, err := os.Stat(filepath.Join(out, "tools.go")); err != nil {
			t.Errorf("no tools.go: %v", err)
		}
		os.RemoveAll(out)
	}
}
