package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestScaffoldCompiles writes the server and client scaffold of every
// revision into a package inside this module, as written and with every
// stub uncommented, and vets it against the committed bindings: a stub that
// does not compile is a defect.
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
			code, _, errs := runCLI("scaffold", "--dir", filepath.Join("..", "..", "generated", pkg), "--side", side,
				"--out", out, "--package", "scaffoldcheck", "--type", typ)
			if code != 0 {
				t.Fatalf("%s %s: exit %d: %s", rev, side, code, errs)
			}
			src, _ := os.ReadFile(out)
			if !strings.Contains(string(src), "context.Cause(ctx)") {
				t.Errorf("%s %s: no comment showing how to honour ctx", rev, side)
			}
			// Every commented-out stub, uncommented, compiles too: its
			// signature and assertion are the bindings' own.
			all := strings.ReplaceAll(uncomment(string(src)), typ, "All"+typ)
			if all == strings.ReplaceAll(string(src), typ, "All"+typ) {
				t.Errorf("%s %s: no stub to uncomment", rev, side)
			}
			if err := os.WriteFile(filepath.Join(dir, pkg+"_"+side+"_all.go"), []byte(all), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	cmd := exec.Command("go", "vet", "./"+filepath.ToSlash(dir))
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go vet of the scaffolds: %v\n%s", err, out)
	}
}

// TestScaffoldImportPaths: an import path whose last element is not the
// package name gets an alias in the import, and the stubs use it; the output
// directory is created.
func TestScaffoldImportPaths(t *testing.T) {
	for _, tc := range []struct{ importPath, alias, wantImport, wantUse string }{
		{"example.com/my-mcp", "", `mcp20251125 "example.com/my-mcp"`, "mcp20251125.CallToolHandler"},
		{"example.com/mcp/v2", "", `mcp20251125 "example.com/mcp/v2"`, "mcp20251125.CallToolHandler"},
		{"example.com/mcp/v2", "mcp", `mcp "example.com/mcp/v2"`, "mcp.CallToolHandler"},
		{"example.com/mcp20251125", "", `"example.com/mcp20251125"`, "*mcp20251125.CallToolRequestParams"},
	} {
		out := filepath.Join(t.TempDir(), "new", "dir", "impl.go")
		args := []string{"scaffold", "--dir", "../../generated/mcp20251125", "--import", tc.importPath, "--out", out}
		if tc.alias != "" {
			args = append(args, "--alias", tc.alias)
		}
		if code, _, errs := runCLI(args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		src, _ := os.ReadFile(out)
		if !strings.Contains(string(src), "\t"+tc.wantImport+"\n") || !strings.Contains(string(src), tc.wantUse) {
			t.Errorf("%s alias %q: want import %s and %s in\n%s", tc.importPath, tc.alias, tc.wantImport, tc.wantUse, src)
		}
	}
	if code, _, errs := runCLI("scaffold", "--dir", "../../generated/mcp20251125", "--out", filepath.Join(t.TempDir(), "x.go"), "--alias", "my-mcp"); code != 2 {
		t.Errorf("--alias my-mcp: exit %d (%s), want 2", code, errs)
	}
	if code, _, errs := runCLI("scaffold", "--dir", t.TempDir(), "--out", filepath.Join(t.TempDir(), "x.go")); code != 1 || !strings.Contains(errs, "not a directory of mcpgen bindings") {
		t.Errorf("empty --dir: exit %d (%s), want 1 naming the problem", code, errs)
	}
}

func TestScaffoldRefusesToOverwrite(t *testing.T) {
	out := filepath.Join(t.TempDir(), "impl.go")
	os.WriteFile(out, []byte("package main // mine\n"), 0o644)
	args := []string{"scaffold", "--dir", "../../generated/mcp20251125", "--import", "example.com/mcp", "--out", out}
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
