package toolstest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/toolversion"
	"github.com/mcpgen/mcpgen/runtime/genimpl"
)

// TestGuardStopsMismatchedPackage builds the committed tools package
// kitchen0618 as an mcpgen of another support version would have written
// it (a guard older than runtime/genimpl still serves, and one newer than
// it provides): each must fail to compile with the compiler naming
// the guard. The package as committed builds, so the failures are the
// guard's.
func TestGuardStopsMismatchedPackage(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build")
	}
	guardFor := func(n int) string {
		return fmt.Sprintf("const (\n\t_ = genimpl.EnforceVersion(%d - genimpl.MinVersion)\n\t_ = genimpl.EnforceVersion(genimpl.MaxVersion - %d)\n)\n", n, n)
	}
	guard := guardFor(toolversion.GeneratedCode)
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(root, "internal", "testsupport", "toolstest", "kitchen0618", "tools.go")
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(src, []byte(guard)); n != 1 {
		t.Fatalf("%s refers to %s %d times, want once", file, guard, n)
	}
	lines := strings.Split(string(src), "\n")
	first := slices.Index(lines, "\t_ = genimpl.EnforceVersion("+fmt.Sprint(toolversion.GeneratedCode)+" - genimpl.MinVersion)") + 1
	for _, c := range []struct {
		name, guard string
		line        int // where the build fails
	}{
		{"as written", guard, 0},
		{"older package", guardFor(genimpl.MinVersion - 1), first},
		{"newer package", guardFor(genimpl.MaxVersion + 1), first + 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			tmp := t.TempDir()
			changed := filepath.Join(tmp, "tools.go")
			if err := os.WriteFile(changed, bytes.ReplaceAll(src, []byte(guard), []byte(c.guard)), 0o644); err != nil {
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
			if !strings.Contains(string(out), fmt.Sprintf("tools.go:%d:", c.line)) || !strings.Contains(string(out), "genimpl.EnforceVersion") {
				t.Fatalf("the compiler's error does not name the guard (genimpl.EnforceVersion) on tools.go:%d:\n%s", c.line, out)
			}
		})
	}
}
