package generator

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/toolversion"
)

// TestHeaderAndGuard: every file starts with the generated-code line Go's
// tools recognise, then the version the caller passes (toolversion.Dev when it
// passes none); the package refers to the support packages' version guard
// exactly once, in doc.go.
func TestHeaderAndGuard(t *testing.T) {
	m, _ := generateRev(t, "2025-11-25")
	for _, v := range []string{"", "v1.2.3"} {
		files, err := Generate(m, Options{Package: "mcp", SchemaFile: "schema.json", Version: v})
		if err != nil {
			t.Fatal(err)
		}
		want := v
		if want == "" {
			want = toolversion.Dev
		}
		guards := 0
		for name, src := range files {
			head := "// " + header + "\n// mcpgen version: " + want + "\n// Source: schema.json "
			if !bytes.HasPrefix(src, []byte(head)) {
				t.Errorf("version %q: %s starts %q, want %q", v, name, firstLinesOf(src, 3), head)
			}
			if n := strings.Count(string(src), "genimpl.EnforceVersion(genimpl.MaxVersion - "); n > 0 {
				guards += n
				if name != "doc.go" || !strings.Contains(string(src), "\n\t_ = genimpl.EnforceVersion(genimpl.MaxVersion - ") {
					t.Errorf("%s refers to the guard (%d times); only doc.go should", name, n)
				}
			}
		}
		if guards != 1 {
			t.Errorf("version %q: %d references to the guard, want 1", v, guards)
		}
	}
}

func firstLinesOf(b []byte, n int) string {
	return strings.Join(strings.SplitN(string(b), "\n", n+1)[:n], "\n")
}
