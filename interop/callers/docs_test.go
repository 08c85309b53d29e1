package callers

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var fileBlock = regexp.MustCompile("(?m)^<!-- readme: suite scripts/suites/55-callers.sh (\\S+) -->\n```go\n((?s:.*?))```\n")

// TestDocsExample builds the loop of docs/typed-callers.md in a module of
// its own, as a user would: the doc's files (the go:generate line, the
// program), the committed snapshot of server-memory; go generate (offline)
// must write the committed package byte for byte, go vet must pass, and
// the program must run against the server.
func TestDocsExample(t *testing.T) {
	doc, err := os.ReadFile("../../docs/typed-callers.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := fileBlock.FindAllSubmatch(doc, -1)
	if len(blocks) != 2 {
		t.Fatalf("docs/typed-callers.md: %d file blocks, want 2 (memory/generate.go, cmd/remember/main.go)", len(blocks))
	}
	repo, _ := filepath.Abs("../..")
	dir := t.TempDir()
	write := func(name string, data []byte) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, b := range blocks {
		write(string(b[1]), b[2])
	}
	snap, _ := os.ReadFile("gen/memory/snapshot.json")
	write("memory/snapshot.json", snap)
	write("go.mod", []byte("module example.com/app\n\ngo 1.25.0\n\ntool github.com/mcpgen/mcpgen/cmd/mcpgen\n\n"+
		"require github.com/mcpgen/mcpgen v0.0.0\n\nreplace github.com/mcpgen/mcpgen => "+repo+"\n"))
	sum, _ := os.ReadFile("go.sum")
	write("go.sum", sum)
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "MEMORY_FILE_PATH="+filepath.Join(dir, "memory.jsonl"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
		}
		return string(out)
	}
	run("go", "mod", "tidy")
	run("go", "generate", "./memory")
	got, _ := os.ReadFile(filepath.Join(dir, "memory", "tools.go"))
	want, _ := os.ReadFile("gen/memory/tools.go")
	if !bytes.Equal(got, want) {
		t.Errorf("go generate from the snapshot wrote other bytes than mcpgen tools --from-server (gen/memory/tools.go)")
	}
	run("go", "vet", "./...")
	server, _ := filepath.Abs("node_modules/.bin/mcp-server-memory")
	if out := run("go", "run", "./cmd/remember", "--", "node", server); !strings.Contains(out, "gopher [likes MCP]") {
		t.Errorf("the doc's program printed %q, want the stored entity", out)
	}
}
