package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestScaffoldCompiles writes the server and client scaffold of every
// revision into a package inside this module and vets it against the
// committed bindings: a stub that does not compile is a defect.
func TestScaffoldCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	dir, err := os.MkdirTemp("testdata", "scaffold")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	for _, rev := range revisions {
		pkg := "mcp" + strings.ReplaceAll(rev, "-", "")
		for _, side := range []string{"server", "client"} {
			out := filepath.Join(dir, pkg+"_"+side+".go")
			typ := "My" + strings.ToUpper(side[:1]) + side[1:] + strings.ReplaceAll(rev, "-", "")
			code, _, errs := runCLI("scaffold", "--schema", filepath.Join(officialSchemas, rev, "schema.json"), "--side", side,
				"--import", "github.com/mcpgen/mcpgen/generated/"+pkg, "--out", out, "--package", "scaffoldcheck", "--type", typ)
			if code != 0 {
				t.Fatalf("%s %s: exit %d: %s", rev, side, code, errs)
			}
			src, _ := os.ReadFile(out)
			if !strings.Contains(string(src), "context.Cause(ctx)") {
				t.Errorf("%s %s: no comment showing how to honour ctx", rev, side)
			}
		}
	}
	cmd := exec.Command("go", "vet", "./"+filepath.ToSlash(dir))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet of the scaffolds: %v\n%s", err, out)
	}
}

func TestScaffoldRefusesToOverwrite(t *testing.T) {
	out := filepath.Join(t.TempDir(), "impl.go")
	os.WriteFile(out, []byte("package main // mine\n"), 0o644)
	args := []string{"scaffold", "--schema", filepath.Join(officialSchemas, "2025-11-25", "schema.json"), "--import", "example.com/mcp", "--out", out}
	code, _, errs := runCLI(args...)
	if code != 1 || !strings.Contains(errs, "--force") {
		t.Fatalf("exit %d, stderr %q: want 1 and a hint about --force", code, errs)
	}
	if data, _ := os.ReadFile(out); string(data) != "package main // mine\n" {
		t.Fatalf("the user's file was changed")
	}
	if code, _, errs := runCLI(append(args, "--force")...); code != 0 {
		t.Fatalf("--force: exit %d: %s", code, errs)
	}
	if data, _ := os.ReadFile(out); !strings.Contains(string(data), "func (s *Server) CallTool(ctx context.Context") {
		t.Fatalf("--force did not write the scaffold:\n%s", data)
	}
}
