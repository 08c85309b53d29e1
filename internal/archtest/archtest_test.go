package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"go/parser"
	"go/token"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// knownViolations are imports that break a rule today and are being fixed on
// another branch (none at present). Each entry must still match a violation: once the fix is
// merged the test fails until the entry is removed, so none outlives its
// reason.
var knownViolations = []struct{ from, rule, why string }{}

// TestArchitecture checks every import of every package of every module of
// the repository against the layers table of ARCHITECTURE.md.
func TestArchitecture(t *testing.T) {
	root := repoRoot(t)
	f, err := os.Open(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := parseLayers(f)
	f.Close()
	if err != nil {
		t.Fatalf("ARCHITECTURE.md: %v", err)
	}
	pkgs := loadRepo(t, root)
	// A listing that silently lost a module or the main module's packages
	// would pass every rule: require the packages the rules are about.
	for _, dir := range []string{"cmd/mcpgen", "generator", "runtime/jsonrpc2", "generated/mcp20251125", "internal/testsupport/modeltest", "bench", "examples/downstream/mcp"} {
		if !slices.ContainsFunc(pkgs, func(p pkg) bool { return p.dir == dir }) {
			t.Fatalf("go list found no package in %s; the listing is incomplete", dir)
		}
	}
	used := make([]bool, len(knownViolations))
	for _, v := range append(check(rows, pkgs), checkNames(pkgs, stdlibNames(t))...) {
		known := slices.IndexFunc(knownViolations, func(k struct{ from, rule, why string }) bool {
			return k.from == v.from && k.rule == v.rule
		})
		if known >= 0 {
			used[known] = true
			t.Logf("known violation (%s): %s", knownViolations[known].why, v)
			continue
		}
		t.Error(v)
	}
	for i, k := range knownViolations {
		if !used[i] {
			t.Errorf("knownViolations lists %s [%s], which no longer breaks the rule: remove the entry", k.from, k.rule)
		}
	}
}

// repoRoot is the directory of the main module, which is the repository's
// root.
func repoRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		t.Fatal("not inside a module")
	}
	return filepath.Dir(gomod)
}

// modules returns the directories of every module of the repository: the
// root and each nested go.mod, skipping what the go command skips (testdata,
// directories starting with . or _) and node_modules.
func modules(t *testing.T, root string) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && p != root && (name == "testdata" || name == "node_modules" || name == "vendor" ||
			strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && name == "go.mod" {
			dirs = append(dirs, filepath.Dir(p))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dirs
}

// listed is the part of go list -json's output the test reads.
type listed struct {
	ImportPath, Name                   string
	Dir                                string
	Imports, TestImports, XTestImports []string
	IgnoredGoFiles                     []string
	Error                              *struct{ Err string }
}

// loadRepo lists the packages of every module of the repository with their
// production and test imports. The nested modules are listed offline
// (GOPROXY=off) and tolerating errors (-e): a module whose dependencies are
// not downloaded still reports the imports of its files, which is all the
// rules need.
func loadRepo(t *testing.T, root string) []pkg {
	t.Helper()
	var pkgs []pkg
	for _, mod := range modules(t, root) {
		cmd := exec.Command("go", "list", "-e", "-json", "./...")
		cmd.Dir = mod
		cmd.Env = append(os.Environ(), "GOPROXY=off", "GOWORK=off", "GOFLAGS=-mod=readonly")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list in %s: %v\n%s", mod, err, stderr.Bytes())
		}
		dec := json.NewDecoder(bytes.NewReader(out))
		for {
			var l listed
			if err := dec.Decode(&l); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				t.Fatalf("go list in %s: %v", mod, err)
			}
			if l.Dir == "" {
				t.Fatalf("go list in %s: package %s has no directory (%v)", mod, l.ImportPath, l.Error)
			}
			rel, err := filepath.Rel(root, l.Dir)
			if err != nil {
				t.Fatal(err)
			}
			p := pkg{path: l.ImportPath, name: l.Name, dir: filepath.ToSlash(rel), imports: l.Imports,
				testImports: append(append([]string(nil), l.TestImports...), l.XTestImports...)}
			// Files the current build constraints leave out (another OS,
			// a build tag) are imports too.
			for _, name := range l.IgnoredGoFiles {
				imps := fileImports(t, filepath.Join(l.Dir, name))
				if strings.HasSuffix(name, "_test.go") {
					p.testImports = append(p.testImports, imps...)
				} else {
					p.imports = append(p.imports, imps...)
				}
			}
			pkgs = append(pkgs, p)
		}
	}
	return pkgs
}

// fileImports returns the imports of a Go file, none for a file that is
// never built (//go:build ignore: a program run by go run).
func fileImports(t *testing.T, file string) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly|parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range f.Comments {
		if g.Pos() >= f.Package {
			break
		}
		for _, c := range g.List {
			if strings.TrimSpace(c.Text) == "//go:build ignore" {
				return nil
			}
		}
	}
	var out []string
	for _, s := range f.Imports {
		out = append(out, strings.Trim(s.Path.Value, "`\""))
	}
	return out
}

// stdlibNames returns the names of the standard library's importable
// packages (internal and vendored ones excluded).
func stdlibNames(t *testing.T) map[string]bool {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{.Name}}", "std").Output()
	if err != nil {
		t.Fatalf("go list std: %v", err)
	}
	names := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, name, _ := strings.Cut(line, " ")
		elems := strings.Split(path, "/")
		if slices.Contains(elems, "internal") || slices.Contains(elems, "vendor") {
			continue
		}
		names[name] = true
	}
	if !names["runtime"] || !names["context"] {
		t.Fatalf("go list std listed no runtime or context package: %q", out)
	}
	return names
}
