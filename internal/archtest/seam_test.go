package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// clusterUses returns, as "file:line: what", the places of one source file
// that reach the replicas' store or bus: an import of runtime/cluster, or
// a selector .Sessions or .Bus on an options value (opts, o, h.opts).
func clusterUses(fset *token.FileSet, name string, src any) ([]string, error) {
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); strings.HasSuffix(p, "/runtime/cluster") {
			out = append(out, fset.Position(imp.Pos()).String()+": imports runtime/cluster")
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok || (sel.Sel.Name != "Sessions" && sel.Sel.Name != "Bus") {
			return true
		}
		switch x := sel.X.(type) {
		case *ast.Ident:
			if x.Name == "opts" || x.Name == "o" {
				out = append(out, fset.Position(sel.Pos()).String()+": "+x.Name+"."+sel.Sel.Name)
			}
		case *ast.SelectorExpr:
			if x.Sel.Name == "opts" {
				out = append(out, fset.Position(sel.Pos()).String()+": opts."+sel.Sel.Name)
			}
		}
		return true
	})
	return out, nil
}

// replicaFiles are the files of runtime/streamhttp that implement
// sessionShare over the session store and the bus (the replicas type):
// cluster.go, and resume_remote.go for resumption from a shared
// EventStore.
var replicaFiles = map[string]bool{"cluster.go": true, "resume_remote.go": true}

// TestClusteringBehindOneSeam: the legacy request path reaches the other
// replicas through one interface (sessionShare, share.go), chosen once in
// newHandler; only replicaFiles, its implementation over the session store
// and the bus, read Options.Sessions or Options.Bus, and only they and
// handler.go (where Options declares their types) import runtime/cluster.
// So no request-path file branches on whether it is clustered.
func TestClusteringBehindOneSeam(t *testing.T) {
	dir := filepath.Join(repoRoot(t), "runtime", "streamhttp")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	inCluster := 0
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		uses, err := clusterUses(fset, filepath.Join(dir, name), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range uses {
			switch {
			case replicaFiles[name]:
				inCluster++
			case name == "handler.go" && strings.HasSuffix(u, "imports runtime/cluster"):
			default:
				t.Errorf("%s: the replicas' store or bus outside their implementation (cluster.go); go through sessionShare", u)
			}
		}
	}
	if inCluster < 3 {
		t.Fatalf("found %d uses in the replicas' files: the scanner is broken", inCluster)
	}
}

// TestClusterUsesCatches: the scanner finds the import, h.opts.Sessions
// and opts.Bus.
func TestClusterUsesCatches(t *testing.T) {
	src := `package p

import "github.com/mcpgen/mcpgen/runtime/cluster"

func f(h *H, opts Options) bool { return h.opts.Sessions != nil || opts.Bus != nil || h.Bus != nil }
`
	found, err := clusterUses(token.NewFileSet(), "p.go", src)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) != 3 {
		t.Errorf("found %q, want the import, h.opts.Sessions and opts.Bus", found)
	}
}
