package archtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestBootstrapBuildIsToolchainOnly: mcpgen built with -tags
// mcpgen_bootstrap, as go:generate in generated/ builds it, depends on no
// package of the runtime side (support, bindings, program), so the command
// that regenerates the bindings builds even when the committed bindings do
// not (ARCHITECTURE.md, the bridge). Without the tag it does reach them,
// through the bridge only; the test checks that too, so it cannot pass by
// listing nothing.
func TestBootstrapBuildIsToolchainOnly(t *testing.T) {
	root := repoRoot(t)
	f, err := os.Open(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := parseLayers(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	const module = "github.com/mcpgen/mcpgen"
	runtimeDeps := func(tags ...string) []string {
		args := append([]string{"list", "-deps", "-f", "{{.ImportPath}}"}, tags...)
		cmd := exec.Command("go", append(args, "./cmd/mcpgen")...)
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go %v: %v", cmd.Args[1:], err)
		}
		var found []string
		for _, p := range strings.Fields(string(out)) {
			if p != module && !strings.HasPrefix(p, module+"/") {
				continue
			}
			r, _ := place(rows, strings.TrimPrefix(strings.TrimPrefix(p, module), "/"))
			if r != nil && (r.role == roleSupport || r.role == roleBindings || r.role == roleProgram) {
				found = append(found, p)
			}
		}
		return found
	}
	if deps := runtimeDeps("-tags", "mcpgen_bootstrap"); len(deps) > 0 {
		t.Errorf("mcpgen built with -tags mcpgen_bootstrap depends on the runtime side: %v", deps)
	}
	if deps := runtimeDeps(); !strings.Contains(strings.Join(deps, " "), module+"/generated/mcp20260728") {
		t.Errorf("mcpgen (default build) does not depend on generated/mcp20260728 (%v): is the listing broken?", deps)
	}
}
