package archtest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// synthetic is a small layers table with one row of each role.
const synthetic = `
Text before the table is not read.

<!-- archtest:layers begin -->
| directory | layer | role | owns |
|---|---|---|---|
| ` + "`cmd/tool`" + ` | 5 | command | the CLI |
| ` + "`gen`, `gen/sub`" + ` | 2 | toolchain | the generator |
| ` + "`schema`" + ` | 1 | toolchain | the model |
| ` + "`internal/scan`" + ` | 1 | internal | a scanner |
| ` + "`rt/peer`" + ` | 2 | support | the peer |
| ` + "`rt/session`" + ` | 3 | support | the session |
| ` + "`bindings/...`" + ` | 4 | bindings | generated code |
| ` + "`examples/...`" + ` | 5 | program | programs |
| ` + "`internal/live`" + ` | 4 | bridge | the command's client |
| ` + "`internal/testsupport/...`" + ` | - | testsupport | test helpers |
| ` + "`e2e`" + ` | - | test | tests |
<!-- archtest:layers end -->
`

// clean is a package graph that keeps every rule of the synthetic table.
func clean() []pkg {
	const m = "example.com/m/"
	return []pkg{
		{path: m + "cmd/tool", dir: "cmd/tool", imports: []string{"fmt", m + "gen", m + "schema", m + "internal/live", "github.com/spf13/pflag"}},
		{path: m + "internal/live", dir: "internal/live", imports: []string{"net/http", m + "bindings/v1", m + "rt/session"}},
		{path: m + "gen", dir: "gen", imports: []string{m + "schema", m + "gen/sub"}, testImports: []string{m + "internal/testsupport/model"}},
		{path: m + "gen/sub", dir: "gen/sub", imports: []string{"strings"}},
		{path: m + "schema", dir: "schema", imports: []string{"encoding/json", "github.com/santhosh-tekuri/jsonschema/v5"}},
		{path: m + "internal/scan", dir: "internal/scan", imports: []string{"unicode/utf8"}},
		{path: m + "rt/peer", dir: "rt/peer", imports: []string{"context", m + "internal/scan"}, testImports: []string{m + "rt/peer", m + "bindings/v1", m + "internal/testsupport/model"}},
		{path: m + "rt/session", dir: "rt/session", imports: []string{m + "rt/peer"}},
		{path: m + "bindings/v1", dir: "bindings/v1", imports: []string{m + "rt/session", m + "rt/peer"}, testImports: []string{m + "gen", m + "internal/testsupport/model"}},
		{path: m + "examples/server", dir: "examples/server", imports: []string{m + "bindings/v1", "github.com/spf13/pflag"}},
		{path: m + "internal/testsupport/model", dir: "internal/testsupport/model", imports: []string{m + "gen", m + "rt/peer", "testing"}},
		{path: m + "e2e", dir: "e2e", testImports: []string{m + "bindings/v1", m + "gen"}},
	}
}

func syntheticRows(t *testing.T) []row {
	t.Helper()
	rows, err := parseLayers(strings.NewReader(synthetic))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestCheckClean: the synthetic graph keeps the rules, so every failure in
// TestCheckCatches comes from the one import each case adds.
func TestCheckClean(t *testing.T) {
	if vs := check(syntheticRows(t), clean()); len(vs) != 0 {
		t.Fatalf("clean graph: %v", vs)
	}
}

// TestCheckCatches adds one offending import (or package) per case and
// expects exactly the violation the rules table describes.
func TestCheckCatches(t *testing.T) {
	const m = "example.com/m/"
	cases := []struct {
		name string
		edit func([]pkg) []pkg
		want string
	}{
		{"lower layer imports higher", addImport("rt/peer", m+"rt/session", false),
			"[layer] rt/peer imports rt/session: layer 2 imports layer 3"},
		{"toolchain layer order", addImport("schema", m+"gen/sub", false),
			"[layer] schema imports gen/sub: layer 1 imports layer 2"},
		{"support imports third party", addImport("rt/session", "github.com/google/uuid", false),
			"[stdlib-only] rt/session imports github.com/google/uuid: role support imports a third-party package"},
		{"internal imports support", addImport("internal/scan", m+"rt/peer", false),
			"[layer] internal/scan imports rt/peer: layer 1 imports layer 2"},
		{"internal imports the toolchain", addImport("internal/scan", m+"schema", false),
			"[stdlib-only] internal/scan imports schema: role internal imports role toolchain"},
		{"bindings import a program", addImport("bindings/v1", m+"examples/server", false),
			"[stdlib-only] bindings/v1 imports examples/server: role bindings imports role program"},
		{"production imports test support", addImport("rt/session", m+"internal/testsupport/model", false),
			"[no-test-support] rt/session imports internal/testsupport/model: production code imports test support"},
		{"a program imports test support", addImport("examples/server", m+"internal/testsupport/model", false),
			"[no-test-support] examples/server imports internal/testsupport/model: production code imports test support"},
		{"a test package is imported", addImport("internal/testsupport/model", m+"e2e", false),
			"[no-test-support] internal/testsupport/model imports e2e: a test package is imported"},
		{"generator imports the runtime", addImport("gen/sub", m+"rt/peer", false),
			"[toolchain-never-runtime] gen/sub imports rt/peer: role toolchain must not depend on the runtime side (role support)"},
		{"generator test imports bindings", addImport("gen", m+"bindings/v1", true),
			"[toolchain-never-runtime] gen imports in a test bindings/v1: role toolchain must not depend on the runtime side (role bindings)"},
		{"command imports a program", addImport("cmd/tool", m+"examples/server", false),
			"[toolchain-never-runtime] cmd/tool imports examples/server: role command must not depend on the runtime side (role program)"},
		{"the toolchain imports a bridge", addImport("gen", m+"internal/live", false),
			"[bridge] gen imports internal/live: role toolchain imports a bridge (the runtime side, for a command only)"},
		{"a toolchain test imports a bridge", addImport("gen/sub", m+"internal/live", true),
			"[bridge] gen/sub imports in a test internal/live: role toolchain imports a bridge (the runtime side, for a command only)"},
		{"support imports a bridge", addImport("rt/session", m+"internal/live", false),
			"[bridge] rt/session imports internal/live: role support imports a bridge (the runtime side, for a command only)"},
		{"a bridge imports the toolchain", addImport("internal/live", m+"schema", false),
			"[stdlib-only] internal/live imports schema: role bridge imports role toolchain"},
		{"a bridge imports third party", addImport("internal/live", "github.com/google/uuid", false),
			"[stdlib-only] internal/live imports github.com/google/uuid: role bridge imports a third-party package"},
		{"support imports the toolchain", addImport("rt/session", m+"schema", false),
			"[runtime-never-toolchain] rt/session imports schema: role support must not depend on the toolchain (role toolchain)"},
		{"a package in no row", func(ps []pkg) []pkg { return append(ps, pkg{path: m + "newpkg", dir: "newpkg"}) },
			"[listed] package example.com/m/newpkg (directory newpkg) is in no row of the layers table: place it in a layer"},
		{"a row that places nothing", func(ps []pkg) []pkg {
			return slices.DeleteFunc(ps, func(p pkg) bool { return p.dir == "gen/sub" })
		}, "[listed] ARCHITECTURE.md line 8: gen/sub places no package (remove or correct the row)"},
	}
	rows := syntheticRows(t)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vs := check(rows, c.edit(clean()))
			var got []string
			for _, v := range vs {
				got = append(got, v.String())
			}
			if len(got) != 1 || got[0] != c.want {
				t.Errorf("got %q\nwant [%q]", got, c.want)
			}
		})
	}
}

// addImport returns an edit adding imp to the imports of the package in dir.
func addImport(dir, imp string, test bool) func([]pkg) []pkg {
	return func(ps []pkg) []pkg {
		for i := range ps {
			if ps[i].dir == dir {
				if test {
					ps[i].testImports = append(ps[i].testImports, imp)
				} else {
					ps[i].imports = append(ps[i].imports, imp)
				}
			}
		}
		return ps
	}
}

// TestRepositoryTableCatches runs the repository's own table on a graph with
// one import added that the issue names as a defect: the runtime's peer
// importing test support, and the generator importing the runtime. The table
// must place those packages so the rules apply to them.
func TestRepositoryTableCatches(t *testing.T) {
	f, err := os.Open(filepath.Join(repoRoot(t), "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := parseLayers(f)
	if err != nil {
		t.Fatal(err)
	}
	const m = "github.com/mcpgen/mcpgen/"
	graph := func() []pkg {
		var ps []pkg
		for _, dir := range []string{"runtime/jsonrpc2", "internal/testsupport/modeltest", "generator", "schema", "generated/mcp20251125"} {
			ps = append(ps, pkg{path: m + dir, dir: dir})
		}
		return ps
	}
	for _, c := range []struct {
		from, imp string
		rule      string
	}{
		{"runtime/jsonrpc2", m + "internal/testsupport/modeltest", ruleNoTestSupport},
		{"generator", m + "runtime/jsonrpc2", ruleToolchainNeverRuntime},
		{"generator", m + "generated/mcp20251125", ruleToolchainNeverRuntime},
		{"runtime/jsonrpc2", m + "schema", ruleRuntimeNeverToolchain},
		{"runtime/jsonrpc2", m + "generated/mcp20251125", ruleLayer},
	} {
		var found []string
		for _, v := range check(rows, addImport(c.from, c.imp, false)(graph())) {
			if v.rule == ruleListed {
				continue // the small graph leaves most rows unused
			}
			found = append(found, v.String())
			if v.rule != c.rule || v.from != c.from {
				t.Errorf("%s importing %s: got %s, want rule %s", c.from, c.imp, v, c.rule)
			}
		}
		if len(found) != 1 {
			t.Errorf("%s importing %s: got %q, want one %s violation", c.from, c.imp, found, c.rule)
		}
	}
}

// TestParseLayersRejects: a table the checker could misread is an error.
func TestParseLayersRejects(t *testing.T) {
	wrap := func(rows string) string {
		return "<!-- archtest:layers begin -->\n| directory | layer | role | owns |\n|---|---|---|---|\n" + rows + "<!-- archtest:layers end -->\n"
	}
	for name, doc := range map[string]string{
		"no table":           "# nothing here\n",
		"no end marker":      "<!-- archtest:layers begin -->\n| `a` | 1 | support | x |\n",
		"empty table":        wrap(""),
		"unknown role":       wrap("| `a` | 1 | runtime | x |\n"),
		"no backticks":       wrap("| a | 1 | support | x |\n"),
		"missing layer":      wrap("| `a` | - | support | x |\n"),
		"layer for tests":    wrap("| `a` | 2 | test | x |\n"),
		"layer not a number": wrap("| `a` | two | support | x |\n"),
		"too few cells":      wrap("| `a` | 1 | support |\n"),
		"not a row":          wrap("`a` 1 support\n"),
		"unclean directory":  wrap("| `a/../b` | 1 | support | x |\n"),
	} {
		if rows, err := parseLayers(strings.NewReader(doc)); err == nil {
			t.Errorf("%s: parsed %v, want an error", name, rows)
		}
	}
}

// TestCheckNames: a package named like a standard-library package is
// reported, a command is not.
func TestCheckNames(t *testing.T) {
	std := map[string]bool{"runtime": true, "context": true}
	pkgs := []pkg{
		{path: "example.com/m/runtime", name: "runtime", dir: "runtime"},
		{path: "example.com/m/runtime/jsonrpc2", name: "jsonrpc2", dir: "runtime/jsonrpc2"},
		{path: "example.com/m/cmd/context", name: "main", dir: "cmd/context"},
	}
	var got []string
	for _, v := range checkNames(pkgs, std) {
		got = append(got, v.String())
	}
	want := []string{`[no-stdlib-name] package example.com/m/runtime (directory runtime) is named "runtime" like a standard-library package: rename it`}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
