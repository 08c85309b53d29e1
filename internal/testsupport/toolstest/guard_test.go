package toolstest

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGuardStopsMismatchedPackage builds the committed tools package
// kitchen0618 as an mcpgen of another support version would have written
// it (a guard older than runtime/toolsupport still serves, and one newer
// than it provides): each must fail to compile with the compiler naming
// the guard. The package as committed builds, so the failures are the
// guard's.
func TestGuardStopsMismatchedPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build")
	}
	const guard = "toolsupport.SupportPackageIsVersion2"
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "internal", "testsupport", "toolstest", "kitchen0618", "tools.go")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(src, []byte("const _ = "+guard+"\n")); n != 1 {
		t.Fatalf("%s refers to %s %d times, want once", file, guard, n)
	}
	for _, c := range []struct{ name, guard string }{
		{"as written", guard},
		{"older package", "toolsupport.SupportPackageIsVersion0"},
		{"newer package", "toolsupport.SupportPackageIsVersion3"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			changed := filepath.Join(tmp, "tools.go")
			if err := os.WriteFile(changed, bytes.ReplaceAll(src, []byte("const _ = "+guard), []byte("const _ = "+c.guard)), 0o644); err != nil {
				t.Fatal(err)
			}
			data, err := json.Marshal(map[string]any{"Replace": map[string]string{file: changed}})
			if err != nil {
				t.Fatal(err)
			}
			overlay := filepath.Join(tmp, "overlay.json")
			if err := os.WriteFile(overlay, data, 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command("go", "build", "-overlay", overlay, "./internal/testsupport/toolstest/kitchen0618")
			cmd.Dir = root
			out, err := cmd.CombinedOutput()
			if c.guard == guard {
				if err != nil {
					t.Fatalf("the committed package does not build: %v\n%s", err, out)
				}
				return
			}
			if err == nil {
				t.Fatalf("a tools package referring to %s built against this module's toolsupport", c.guard)
			}
			if !strings.Contains(string(out), "tools.go") || !strings.Contains(string(out), "undefined: "+c.guard) {
				t.Fatalf("the compiler's error does not name the guard (undefined: %s) in tools.go:\n%s", c.guard, out)
			}
		})
	}
}
