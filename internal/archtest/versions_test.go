package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// versionLike matches a protocol version spelled anywhere in a string:
// MCP revisions are dates, YYYY-MM-DD.
var versionLike = regexp.MustCompile(`\b[0-9]{4}-[0-9]{2}-[0-9]{2}\b`)

// timeLayout is Go's reference date, which time layouts spell like a
// version but which names no revision.
const timeLayout = "2006-01-02"

// versionLiterals returns, as "file:line: literal", every string literal
// of src that spells a protocol version. Comments are not literals: they
// may name the revision a rule comes from.
func versionLiterals(fset *token.FileSet, name string, src any) ([]string, error) {
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		s, err := strconv.Unquote(lit.Value)
		if err != nil {
			s = lit.Value
		}
		if versionLike.MatchString(strings.ReplaceAll(s, timeLayout, "")) {
			out = append(out, fset.Position(lit.Pos()).String()+": "+lit.Value)
		}
		return true
	})
	return out, nil
}

// TestNoRevisionFactsInRuntime: no production file of a support package
// (runtime/...) holds a protocol version as a string literal, so none
// compares a version against one or keys behaviour on one. Which revision
// removed which methods, primes SSE streams, has core tasks, and every
// other revision fact, lives in schema/revisions.go's table and reaches
// the runtime through the generated Revision() (ARCHITECTURE.md).
func TestNoRevisionFactsInRuntime(t *testing.T) {
	root := repoRoot(t)
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(filepath.Join(root, "runtime"), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		files++
		found, err := versionLiterals(fset, path, nil)
		if err != nil {
			return err
		}
		for _, f := range found {
			rel, _ := filepath.Rel(root, f)
			t.Errorf("%s: a protocol version in a runtime package; put the fact in schema/revisions.go's table and read it from the generated session.Revision", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 20 {
		t.Fatalf("scanned %d files under runtime/: the walk is broken", files)
	}
}

// TestVersionLiteralsCatches: the scanner finds a comparison against a
// version, a version in a table or a message, and leaves comments and time
// layouts alone.
func TestVersionLiteralsCatches(t *testing.T) {
	src := `package p

// From 2025-11-25 on, streams are primed.
const layout = "2006-01-02T15:04:05Z07:00"

var table = []string{"2025-03-26"}

func primed(version string) bool { return version >= "2025-11-25" }

func msg() string { return ` + "`clients must not send responses in 2026-07-28`" + ` }
`
	found, err := versionLiterals(token.NewFileSet(), "p.go", src)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`p.go:6:22: "2025-03-26"`, `p.go:8:54: "2025-11-25"`, "p.go:10:28: `clients must not send responses in 2026-07-28`"}
	if strings.Join(found, "\n") != strings.Join(want, "\n") {
		t.Errorf("found\n%s\nwant\n%s", strings.Join(found, "\n"), strings.Join(want, "\n"))
	}
}
