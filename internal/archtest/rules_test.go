// Package archtest keeps the repository's ARCHITECTURE.md true: it places
// every package of every module of the repository by the table of that file
// and fails, naming the import and the rule, when an import runs against the
// layers. It has only tests; nothing imports it.
package archtest

import (
	"bufio"
	"fmt"
	"io"
	"path"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Roles, as the role column of ARCHITECTURE.md spells them.
const (
	roleCommand     = "command"
	roleToolchain   = "toolchain"
	roleSupport     = "support"
	roleBindings    = "bindings"
	roleProgram     = "program"
	roleInternal    = "internal"
	roleBridge      = "bridge"
	roleTestSupport = "testsupport"
	roleTest        = "test"
)

// Rule names, as the rules table of ARCHITECTURE.md spells them.
const (
	ruleLayer                 = "layer"
	ruleStdlibOnly            = "stdlib-only"
	ruleNoTestSupport         = "no-test-support"
	ruleToolchainNeverRuntime = "toolchain-never-runtime"
	ruleRuntimeNeverToolchain = "runtime-never-toolchain"
	ruleListed                = "listed"
	ruleNoStdlibName          = "no-stdlib-name"
	ruleBridge                = "bridge"
)

// noLayer is the layer of a row whose layer cell is "-" (test and test
// support): outside the layer order.
const noLayer = -1

var knownRoles = []string{roleCommand, roleToolchain, roleSupport, roleBindings, roleProgram, roleInternal, roleBridge, roleTestSupport, roleTest}

// toolchainSide, runtimeSide and selfContained group the roles the way the
// rules name them.
var (
	toolchainSide = []string{roleCommand, roleToolchain}
	runtimeSide   = []string{roleSupport, roleBindings, roleProgram}
	// A bridge imports as a self-contained package does; who may import
	// it is the bridge rule's.
	selfContained = []string{roleSupport, roleInternal, roleBindings, roleBridge}
)

// row is one row of the layers table: the directories it places (relative
// to the repository root, slash-separated; "dir/..." covers dir and all
// below it), their layer and role.
type row struct {
	patterns []string
	layer    int
	role     string
	line     int // in ARCHITECTURE.md, for messages
}

// beginMarker and endMarker delimit the machine-read table.
const (
	beginMarker = "<!-- archtest:layers begin"
	endMarker   = "<!-- archtest:layers end"
)

// parseLayers reads the table between the markers of ARCHITECTURE.md. It is
// strict, so that a row the checker would silently skip is an error instead.
func parseLayers(r io.Reader) ([]row, error) {
	var rows []row
	in, seenEnd := false, false
	sc := bufio.NewScanner(r)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, beginMarker):
			in = true
			continue
		case strings.HasPrefix(line, endMarker):
			in, seenEnd = false, true
			continue
		case !in || line == "":
			continue
		}
		if !strings.HasPrefix(line, "|") || !strings.HasSuffix(line, "|") {
			return nil, fmt.Errorf("line %d: not a table row: %q", n, line)
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if len(cells) < 4 {
			return nil, fmt.Errorf("line %d: want 4 cells (directory | layer | role | owns), got %d", n, len(cells))
		}
		if cells[0] == "directory" || strings.Trim(cells[0], "-: ") == "" {
			continue // the header and its separator
		}
		rw := row{line: n, role: cells[2]}
		for _, p := range strings.Split(cells[0], ",") {
			p = strings.TrimSpace(p)
			if len(p) < 3 || p[0] != '`' || p[len(p)-1] != '`' {
				return nil, fmt.Errorf("line %d: directory %q is not in backticks", n, p)
			}
			p = p[1 : len(p)-1]
			if p == "" || path.IsAbs(p) || path.Clean(strings.TrimSuffix(p, "/...")) != strings.TrimSuffix(p, "/...") {
				return nil, fmt.Errorf("line %d: %q is not a clean relative directory", n, p)
			}
			rw.patterns = append(rw.patterns, p)
		}
		if !slices.Contains(knownRoles, rw.role) {
			return nil, fmt.Errorf("line %d: unknown role %q (want one of %s)", n, rw.role, strings.Join(knownRoles, ", "))
		}
		outside := rw.role == roleTest || rw.role == roleTestSupport
		switch {
		case cells[1] == "-" && outside:
			rw.layer = noLayer
		case cells[1] == "-":
			return nil, fmt.Errorf("line %d: role %s needs a layer number", n, rw.role)
		case outside:
			return nil, fmt.Errorf("line %d: role %s is outside the layer order; its layer is -", n, rw.role)
		default:
			l, err := strconv.Atoi(cells[1])
			if err != nil || l < 1 {
				return nil, fmt.Errorf("line %d: layer %q is not a positive number", n, cells[1])
			}
			rw.layer = l
		}
		rows = append(rows, rw)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !seenEnd || len(rows) == 0 {
		return nil, fmt.Errorf("no layers table between %q and %q", beginMarker, endMarker)
	}
	return rows, nil
}

// match reports whether pattern covers dir, and how specifically: a longer
// directory is more specific, and an exact pattern beats "dir/..." of the
// same directory.
func match(pattern, dir string) (score int, ok bool) {
	if base, wild := strings.CutSuffix(pattern, "/..."); wild {
		if dir == base || strings.HasPrefix(dir, base+"/") {
			return 2 * len(base), true
		}
		return 0, false
	}
	if dir == pattern {
		return 2*len(pattern) + 1, true
	}
	return 0, false
}

// place returns the row that places dir: the one with the most specific
// matching pattern.
func place(rows []row, dir string) (*row, string) {
	var best *row
	var bestPat string
	bestScore := -1
	for i := range rows {
		for _, p := range rows[i].patterns {
			if s, ok := match(p, dir); ok && s > bestScore {
				best, bestPat, bestScore = &rows[i], p, s
			}
		}
	}
	return best, bestPat
}

// pkg is what the checker needs of one package.
type pkg struct {
	path        string   // import path
	name        string   // package name
	dir         string   // relative to the repository root, slash-separated
	imports     []string // of its non-test files
	testImports []string // of its _test.go files, in-package and external
}

// violation is one import (or one missing placement) against a rule.
type violation struct {
	rule     string
	from, to string // directories; to is an import path when it is outside the repository
	test     bool   // the import is in a _test.go file
	detail   string
}

func (v violation) String() string {
	kind := "imports"
	if v.test {
		kind = "imports in a test"
	}
	if v.rule == ruleListed || v.rule == ruleNoStdlibName {
		return fmt.Sprintf("[%s] %s", v.rule, v.detail)
	}
	return fmt.Sprintf("[%s] %s %s %s: %s", v.rule, v.from, kind, v.to, v.detail)
}

// isStdlib reports whether an import path outside the repository belongs
// to the standard library: its first element has no dot, as every module
// path outside the standard library must.
func isStdlib(importPath string) bool {
	first, _, _ := strings.Cut(importPath, "/")
	return !strings.Contains(first, ".")
}

// check applies the rules of ARCHITECTURE.md to pkgs, the packages of every
// module of the repository. An import of a path that is not in pkgs is a
// standard-library package or a third-party one.
func check(rows []row, pkgs []pkg) []violation {
	var out []violation
	byPath := map[string]*pkg{}
	placed := map[string]*row{}
	used := map[*row]map[string]bool{}
	for i := range pkgs {
		p := &pkgs[i]
		byPath[p.path] = p
		r, pat := place(rows, p.dir)
		if r == nil {
			out = append(out, violation{rule: ruleListed, from: p.dir,
				detail: fmt.Sprintf("package %s (directory %s) is in no row of the layers table: place it in a layer", p.path, p.dir)})
			continue
		}
		placed[p.dir] = r
		if used[r] == nil {
			used[r] = map[string]bool{}
		}
		used[r][pat] = true
	}
	for i := range rows {
		for _, pat := range rows[i].patterns {
			if !used[&rows[i]][pat] {
				out = append(out, violation{rule: ruleListed, from: pat,
					detail: fmt.Sprintf("ARCHITECTURE.md line %d: %s places no package (remove or correct the row)", rows[i].line, pat)})
			}
		}
	}
	for i := range pkgs {
		p := &pkgs[i]
		from := placed[p.dir]
		if from == nil {
			continue
		}
		for _, test := range []bool{false, true} {
			imports := p.imports
			if test {
				imports = p.testImports
			}
			for _, imp := range imports {
				if imp == p.path {
					continue // an external test package importing its package
				}
				var to *row
				toDir := imp
				if q := byPath[imp]; q != nil {
					to, toDir = placed[q.dir], q.dir
					if to == nil {
						continue // reported as unlisted
					}
				}
				if v, bad := checkImport(from, to, imp, test); bad {
					v.from, v.to, v.test = p.dir, toDir, test
					out = append(out, v)
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	return out
}

// checkImport applies the rules to one import by a package placed by from
// of imp, placed by to (nil when imp is outside the repository). It reports
// the first rule broken, in the order of the rules table of ARCHITECTURE.md
// (the most specific first, so the message names the real problem: a
// generator importing the runtime is that, not just a layer inversion).
func checkImport(from, to *row, imp string, test bool) (violation, bool) {
	in := func(r *row, roles []string) bool { return r != nil && slices.Contains(roles, r.role) }
	switch {
	case to != nil && to.role == roleTest:
		return violation{rule: ruleNoTestSupport, detail: "a test package is imported"}, true
	case !test && to != nil && to.role == roleTestSupport && from.role != roleTestSupport:
		return violation{rule: ruleNoTestSupport, detail: "production code imports test support"}, true
	}
	if from.role == roleTest || from.role == roleTestSupport {
		return violation{}, false
	}
	switch {
	case to != nil && to.role == roleBridge && from.role != roleCommand && from.role != roleBridge && (!test || from.role == roleToolchain):
		return violation{rule: ruleBridge, detail: fmt.Sprintf("role %s imports a bridge (the runtime side, for a command only)", from.role)}, true
	case in(from, toolchainSide) && in(to, runtimeSide) && (!test || from.role == roleToolchain):
		return violation{rule: ruleToolchainNeverRuntime, detail: fmt.Sprintf("role %s must not depend on the runtime side (role %s)", from.role, to.role)}, true
	case test:
		return violation{}, false // the remaining rules hold production imports only
	case in(from, runtimeSide) && in(to, toolchainSide):
		return violation{rule: ruleRuntimeNeverToolchain, detail: fmt.Sprintf("role %s must not depend on the toolchain (role %s)", from.role, to.role)}, true
	case in(from, selfContained) && to == nil && !isStdlib(imp):
		return violation{rule: ruleStdlibOnly, detail: fmt.Sprintf("role %s imports a third-party package", from.role)}, true
	case in(from, selfContained) && to != nil && !in(to, selfContained):
		return violation{rule: ruleStdlibOnly, detail: fmt.Sprintf("role %s imports role %s", from.role, to.role)}, true
	case to != nil && to.layer != noLayer && to.layer > from.layer:
		return violation{rule: ruleLayer, detail: fmt.Sprintf("layer %d imports layer %d", from.layer, to.layer)}, true
	}
	return violation{}, false
}

// checkNames reports the packages named like a standard-library package
// (stdNames), which every importer would have to rename: a package
// "runtime" shadows the standard library's. Commands (package main) have no
// importers.
func checkNames(pkgs []pkg, stdNames map[string]bool) []violation {
	var out []violation
	for _, p := range pkgs {
		if p.name != "main" && stdNames[p.name] {
			out = append(out, violation{rule: ruleNoStdlibName, from: p.dir,
				detail: fmt.Sprintf("package %s (directory %s) is named %q like a standard-library package: rename it", p.path, p.dir, p.name)})
		}
	}
	return out
}
