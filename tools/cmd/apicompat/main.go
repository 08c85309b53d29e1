// Command apicompat keeps the exported API of mcpgen's published modules
// compatible from one release to the next, with golang.org/x/exp/apidiff
// (the library behind cmd/apidiff) doing the comparison.
//
//	apicompat write -o api/v0.1.0 . otel cluster ...
//	apicompat check -baseline api/v0.1.0 -changelog CHANGELOG.md . otel cluster ...
//	apicompat regen . generated/mcp20241105 generated/mcp20250326 ...
//
// write records, for each module directory, the export data of the
// module's public packages in the format "apidiff -m -w" writes (a zip:
// "module" holds the module path, "<package path>.x" each package's export
// data), so the plain apidiff command can read the baseline too, plus a
// text listing of the same API (<module path>.txt) that a reviewer reads in
// a diff. The files are named by module path under the output directory.
//
// check loads the same packages from source and compares them with the
// baseline. Compatible changes are listed; incompatible ones fail the
// check unless the release under way may break: the baseline's version is
// 0.x and the "## [Unreleased]" section of the changelog has a
// "### Breaking" heading whose entries name every broken identifier
// (package.Name, as apidiff reports it, e.g. session.Server or
// session.Server.Serve's type session.Server), which makes the next version
// a new 0.x minor. From v1 on a break needs a new major version, which is a
// new module path with no baseline to compare with, so any break fails.
//
// regen shows what regenerating bindings against a newer revision does to
// code written against the older one: for each consecutive pair of the
// given packages of the module in the first directory (the committed
// bindings of successive revisions), apidiff's incompatible changes from
// the older package to the newer, as if the package had been regenerated
// in place. It only reports; MIGRATING.md is the human version.
//
// Public packages are the module's packages less main packages, internal
// ones and examples (an "examples" path element): what a user imports.
package main

import (
	"archive/zip"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"golang.org/x/exp/apidiff"
	"golang.org/x/tools/go/gcexportdata"
	"golang.org/x/tools/go/packages"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "write":
		err = write(os.Args[2:])
	case "check":
		err = check(os.Args[2:])
	case "regen":
		err = regen(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "apicompat:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: apicompat write -o DIR MODULE_DIR...\n       apicompat check -baseline DIR [-changelog FILE] MODULE_DIR...\n       apicompat regen MODULE_DIR PACKAGE_DIR...")
	os.Exit(2)
}

func write(args []string) error {
	fs := flag.NewFlagSet("write", flag.ExitOnError)
	out := fs.String("o", "", "output directory (api/vX.Y.Z)")
	fs.Parse(args)
	if *out == "" || fs.NArg() == 0 {
		usage()
	}
	for _, dir := range fs.Args() {
		fset := token.NewFileSet()
		m, err := load(fset, dir)
		if err != nil {
			return err
		}
		base := filepath.Join(*out, filepath.FromSlash(m.Path))
		if err := os.MkdirAll(filepath.Dir(base), 0o755); err != nil {
			return err
		}
		if err := writeExport(fset, m, base+".export"); err != nil {
			return err
		}
		if err := os.WriteFile(base+".txt", listing(m), 0o644); err != nil {
			return err
		}
		fmt.Printf("%s: %d packages -> %s.{export,txt}\n", m.Path, len(m.Packages), base)
	}
	return nil
}

func check(args []string) error {
	fs := flag.NewFlagSet("check", flag.ExitOnError)
	baseline := fs.String("baseline", "", "baseline directory (api/vX.Y.Z)")
	changelog := fs.String("changelog", "", "CHANGELOG.md, whose Unreleased section may list breaking changes")
	fs.Parse(args)
	if *baseline == "" || fs.NArg() == 0 {
		usage()
	}
	version := filepath.Base(*baseline)
	mayBreak := strings.HasPrefix(version, "v0.")
	var breaking string
	if *changelog != "" {
		data, err := os.ReadFile(*changelog)
		if err != nil {
			return err
		}
		breaking = breakingSection(string(data))
	}
	var unlisted []string
	for _, dir := range fs.Args() {
		fset := token.NewFileSet()
		cur, err := load(fset, dir)
		if err != nil {
			return err
		}
		file := filepath.Join(*baseline, filepath.FromSlash(cur.Path)+".export")
		old, err := readExport(fset, file)
		if err != nil {
			return fmt.Errorf("%s: no baseline for module %s at %s (%v); a new module needs one: scripts/release --baseline", dir, cur.Path, version, err)
		}
		var compat, incompat []string
		for _, c := range changes(old, cur) {
			if c.Compatible {
				compat = append(compat, c.Message)
			} else {
				incompat = append(incompat, c.Message)
			}
		}
		sort.Strings(compat)
		sort.Strings(incompat)
		fmt.Printf("%s against %s: %d incompatible, %d compatible changes\n", cur.Path, version, len(incompat), len(compat))
		for _, m := range compat {
			fmt.Printf("  compatible:   %s\n", m)
		}
		for _, m := range incompat {
			name := identifier(m)
			listed := breaking != "" && mentions(breaking, name)
			mark := "INCOMPATIBLE"
			if listed && mayBreak {
				mark = "breaking (listed under Unreleased/Breaking)"
			} else {
				unlisted = append(unlisted, fmt.Sprintf("%s (name it as %s)", m, name))
			}
			fmt.Printf("  %s: %s\n", mark, m)
		}
	}
	if len(unlisted) > 0 {
		if mayBreak {
			return fmt.Errorf("%d incompatible change(s) since %s not listed under \"### Breaking\" in the changelog's Unreleased section:\n  %s\n(undo them, or list each under ### Breaking: the next release is then a new 0.x minor)",
				len(unlisted), version, strings.Join(unlisted, "\n  "))
		}
		return fmt.Errorf("%d incompatible change(s) since %s; from v1 on a break needs a new major version (a new module path):\n  %s", len(unlisted), version, strings.Join(unlisted, "\n  "))
	}
	return nil
}

func regen(args []string) error {
	if len(args) < 3 {
		usage()
	}
	fset := token.NewFileSet()
	m, err := load(fset, args[0])
	if err != nil {
		return err
	}
	pkgs := map[string]*types.Package{}
	for _, p := range m.Packages {
		pkgs[p.Path()] = p
	}
	var seq []*types.Package
	for _, dir := range args[1:] {
		p := pkgs[m.Path+"/"+filepath.ToSlash(dir)]
		if p == nil {
			return fmt.Errorf("no public package %s in %s", dir, m.Path)
		}
		seq = append(seq, p)
	}
	for i := 1; i < len(seq); i++ {
		old, cur := seq[i-1], seq[i]
		var incompat []string
		compat := 0
		for _, c := range apidiff.Changes(old, cur).Changes {
			if c.Compatible {
				compat++
			} else {
				incompat = append(incompat, c.Message)
			}
		}
		sort.Strings(incompat)
		fmt.Printf("%s -> %s: %d changes break code written against %s, %d are compatible\n", old.Name(), cur.Name(), len(incompat), old.Name(), compat)
		for _, msg := range incompat {
			fmt.Printf("  %s\n", msg)
		}
	}
	return nil
}

// load type-checks the public packages of the module in dir from source.
// File names are recorded relative to dir, so the export data does not
// depend on where the repository is checked out.
func load(fset *token.FileSet, dir string) (*apidiff.Module, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	cfg := &packages.Config{
		Dir:  abs,
		Fset: fset,
		Mode: packages.NeedName | packages.NeedTypes | packages.NeedModule | packages.NeedSyntax | packages.NeedImports | packages.NeedDeps,
		ParseFile: func(fset *token.FileSet, filename string, src []byte) (*ast.File, error) {
			if rel, err := filepath.Rel(abs, filename); err == nil && !strings.HasPrefix(rel, "..") {
				filename = filepath.ToSlash(rel)
			}
			return parser.ParseFile(fset, filename, src, parser.AllErrors|parser.ParseComments|parser.SkipObjectResolution)
		},
	}
	pkgs, err := packages.Load(cfg, "./...")
	if err != nil {
		return nil, fmt.Errorf("%s: %v", dir, err)
	}
	var errs []error
	m := &apidiff.Module{}
	for _, p := range pkgs {
		for _, e := range p.Errors {
			errs = append(errs, fmt.Errorf("%s: %v", p.PkgPath, e))
		}
		if p.Module == nil {
			continue
		}
		m.Path = p.Module.Path
		if public(p) {
			m.Packages = append(m.Packages, p.Types)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if m.Path == "" {
		return nil, fmt.Errorf("%s: no packages", dir)
	}
	sort.Slice(m.Packages, func(i, j int) bool { return m.Packages[i].Path() < m.Packages[j].Path() })
	return m, nil
}

// public reports whether p is part of its module's API: not a command,
// not internal, not an example program's package.
func public(p *packages.Package) bool {
	if p.Name == "main" {
		return false
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(p.PkgPath, p.Module.Path), "/")
	for _, el := range strings.Split(rel, "/") {
		if el == "internal" || el == "examples" {
			return false
		}
	}
	return true
}

func writeExport(fset *token.FileSet, m *apidiff.Module, file string) error {
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	e, err := w.Create("module")
	if err != nil {
		return err
	}
	io.WriteString(e, m.Path)
	for _, p := range m.Packages {
		e, err := w.Create(p.Path() + ".x")
		if err != nil {
			return err
		}
		if err := gcexportdata.Write(e, fset, p); err != nil {
			return fmt.Errorf("writing %s: %v", p.Path(), err)
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	return os.WriteFile(file, buf.Bytes(), 0o644)
}

// readExport reads what writeExport (or apidiff -m -w) wrote.
func readExport(fset *token.FileSet, file string) (*apidiff.Module, error) {
	z, err := zip.OpenReader(file)
	if err != nil {
		return nil, err
	}
	defer z.Close()
	m := &apidiff.Module{}
	for _, f := range z.File {
		r, err := f.Open()
		if err != nil {
			return nil, err
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			return nil, err
		}
		if f.Name == "module" {
			m.Path = string(data)
			continue
		}
		path, ok := strings.CutSuffix(f.Name, ".x")
		if !ok {
			return nil, fmt.Errorf("%s: unexpected entry %q", file, f.Name)
		}
		p, err := gcexportdata.Read(bytes.NewReader(data), fset, map[string]*types.Package{}, path)
		if err != nil {
			return nil, fmt.Errorf("%s: reading %s: %v", file, path, err)
		}
		m.Packages = append(m.Packages, p)
	}
	if m.Path == "" {
		return nil, fmt.Errorf("%s: no module path", file)
	}
	return m, nil
}

// listing is the module's API as text, one exported declaration a line,
// methods included, sorted: a reviewable companion of the export data.
func listing(m *apidiff.Module) []byte {
	var b strings.Builder
	for _, p := range m.Packages {
		qual := func(other *types.Package) string {
			if other == p {
				return ""
			}
			return other.Name()
		}
		var lines []string
		scope := p.Scope()
		for _, name := range scope.Names() {
			obj := scope.Lookup(name)
			if !obj.Exported() {
				continue
			}
			lines = append(lines, types.ObjectString(obj, qual))
			if tn, ok := obj.(*types.TypeName); ok && !tn.IsAlias() {
				if n, ok := tn.Type().(*types.Named); ok {
					for i := 0; i < n.NumMethods(); i++ {
						if f := n.Method(i); f.Exported() {
							lines = append(lines, types.ObjectString(f, qual))
						}
					}
				}
			}
		}
		sort.Strings(lines)
		fmt.Fprintf(&b, "package %s\n", p.Path())
		for _, l := range lines {
			fmt.Fprintf(&b, "\t%s\n", strings.ReplaceAll(l, "\n", "\n\t"))
		}
	}
	return []byte(b.String())
}

// breakingSection returns the text of the "### Breaking" subsection of
// the changelog's "## [Unreleased]" section, or "" if there is none.
func breakingSection(changelog string) string {
	var in, inBreaking bool
	var b strings.Builder
	for _, line := range strings.Split(changelog, "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			in = strings.HasPrefix(line, "## [Unreleased]")
			inBreaking = false
		case strings.HasPrefix(line, "### "):
			inBreaking = in && strings.TrimSpace(line) == "### Breaking"
		case inBreaking:
			b.WriteString(line)
			b.WriteByte('\n')
		}
	}
	return b.String()
}

var pointerRecv = regexp.MustCompile(`\(\*([A-Za-z0-9_]+)\)`)

// changes compares the modules package by package, like
// apidiff.ModuleChanges, but prefixes each message with the package's
// path and name ("github.com/mcpgen/mcpgen/runtime/session session:
// (*Server).Serve: changed from ..."), so that identifier can name the
// package-qualified identifier.
func changes(old, cur *apidiff.Module) []apidiff.Change {
	byPath := func(m *apidiff.Module) map[string]*types.Package {
		ps := map[string]*types.Package{}
		for _, p := range m.Packages {
			ps[p.Path()] = p
		}
		return ps
	}
	olds, curs := byPath(old), byPath(cur)
	var out []apidiff.Change
	for path, op := range olds {
		np, ok := curs[path]
		if !ok {
			out = append(out, apidiff.Change{Message: fmt.Sprintf("package %s: removed", path)})
			continue
		}
		for _, c := range apidiff.Changes(op, np).Changes {
			c.Message = path + " " + np.Name() + ": " + c.Message
			out = append(out, c)
		}
	}
	for path := range curs {
		if _, ok := olds[path]; !ok {
			out = append(out, apidiff.Change{Message: fmt.Sprintf("package %s: added", path), Compatible: true})
		}
	}
	return out
}

// identifier turns a message of changes into the name a changelog entry
// must carry: "github.com/x/m/runtime/session session: (*Server).Serve:
// changed from ..." gives "session.Server"; "package github.com/x/m/p:
// removed" gives "p" (a package is named by its last path element).
func identifier(msg string) string {
	if rest, ok := strings.CutPrefix(msg, "package "); ok {
		path, _, _ := strings.Cut(rest, ":")
		return path[strings.LastIndex(path, "/")+1:]
	}
	_, rest, _ := strings.Cut(msg, " ")
	name, rest, _ := strings.Cut(rest, ": ")
	obj, _, _ := strings.Cut(rest, ": ")
	obj = pointerRecv.ReplaceAllString(obj, "$1")
	top, _, _ := strings.Cut(obj, ".")
	return name + "." + top
}

// mentions reports whether text names ident as a whole word.
func mentions(text, ident string) bool {
	re := regexp.MustCompile(`(^|[^A-Za-z0-9_])` + regexp.QuoteMeta(ident) + `($|[^A-Za-z0-9_])`)
	return re.MatchString(text)
}
