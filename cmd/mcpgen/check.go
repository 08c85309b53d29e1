package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mcpgen/mcpgen/generator"
	"github.com/mcpgen/mcpgen/internal/outdir"
	"github.com/mcpgen/mcpgen/internal/toolversion"
)

func runCheck(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("check", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	schemaPath := fs.String("schema", "", "MCP `schema.json` the bindings are generated from (\"-\": standard input); without it, --revision names an embedded official schema")
	revision := fs.String("revision", "", "protocol `revision` (YYYY-MM-DD): the embedded official schema, or the revision of --schema")
	dir := fs.String("dir", "", "`directory` of the generated bindings to check (required)")
	pkg := fs.String("package", "", "Go package `name` the bindings were generated with (default: base name of --dir)")
	ext := addExtensionFlags(fs, true)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: mcpgen check (--revision YYYY-MM-DD | --schema FILE [--revision YYYY-MM-DD]) --dir DIR [--package NAME]\n\n"+
			"Check exits 1 when the bindings in --dir are not exactly what \"mcpgen generate\"\n"+
			"with the same flags would write now, and lists the files that differ: the\n"+
			"schema changed, this mcpgen generates different code, or a generated file was\n"+
			"edited by hand. It writes nothing; meant for a CI step after go generate.\n"+
			"Files without the mcpgen header are yours and are ignored.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args, stdout); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "mcpgen check: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	in := schemaInput{path: *schemaPath, revision: *revision, extension: *ext.name}
	if msg := in.usageError(); msg != "" {
		fmt.Fprintf(stderr, "mcpgen check: %s\n", msg)
		return 2
	}
	if *dir == "" {
		fmt.Fprintln(stderr, "mcpgen check: --dir is required")
		return 2
	}
	name := *pkg
	if name == "" {
		abs, err := filepath.Abs(*dir)
		if err != nil {
			fmt.Fprintf(stderr, "mcpgen: %s: %v\n", *dir, err)
			return 1
		}
		name = filepath.Base(abs)
	}
	if err := checkIdentifier(name); err != nil {
		fmt.Fprintf(stderr, "mcpgen check: package %v: pass --package\n", err)
		return 2
	}
	m, err := in.load()
	if err != nil {
		return reportLoadError(stderr, "check", err)
	}
	files, err := generator.Generate(m, generator.Options{Package: name, SchemaFile: in.sourceName(*dir), Version: mcpgenVersion, CorePackage: ext.corePackageOf(m)})
	if err != nil {
		fmt.Fprintf(stderr, "mcpgen: %s: %s\n", in.name(), firstLine(err.Error()))
		return 1
	}
	diffs, err := outdir.Compare(*dir, files, outdir.Options{Foreign: notBindings})
	if err != nil {
		fmt.Fprintf(stderr, "mcpgen: %v\n", unwrapPath(err))
		return 1
	}
	if len(diffs) == 0 {
		return 0
	}
	if have := outdir.PackageOf(readFile(filepath.Join(*dir, "doc.go"))); have != "" && have != name {
		// Every file would differ from its package clause on: say why.
		how := "--package " + name
		if *pkg == "" {
			how = fmt.Sprintf("no --package, so the package name defaults to --dir's base name, %q", name)
		}
		fmt.Fprintf(stderr, "mcpgen check: %s holds package %s, but %s: pass --package %s\n", *dir, have, how, have)
		return 2
	}
	var b strings.Builder
	fmt.Fprintf(&b, "mcpgen check: %s is not what mcpgen %s generates from %s:\n", *dir, mcpgenVersion, in.name())
	for _, d := range diffs {
		fmt.Fprintf(&b, "\t%s\n", d)
	}
	onDisk := readFile(filepath.Join(*dir, "doc.go"))
	if have, want := headerLine(onDisk, "// Source: "), headerLine(files["doc.go"], "// Source: "); have != "" && have != want {
		// The header's source line names the schema and its digest: when it
		// differs, the schema changed, not (only) the code.
		fmt.Fprintf(&b, "the bindings say:  %s\nmcpgen would write: %s\n", have, want)
	}
	if have, want := headerLine(onDisk, "// "+toolversion.HeaderPrefix), headerLine(files["doc.go"], "// "+toolversion.HeaderPrefix); have != "" && have != want {
		// Another mcpgen wrote them: the code may differ for that reason alone.
		fmt.Fprintf(&b, "the bindings say:  %s\nthis mcpgen is:     %s\n", have, want)
	}
	b.WriteString("regenerate (go generate, or mcpgen generate with the same flags) and commit the result\n")
	io.WriteString(stderr, b.String())
	return 1
}

// readFile is the content of path, or nil when it cannot be read.
func readFile(path string) []byte {
	data, _ := os.ReadFile(path)
	return data
}

// headerLine is the line of a generated file's header (the comment lines
// before the first blank line) that starts with prefix, or "".
func headerLine(data []byte, prefix string) string {
	for _, line := range strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") {
		if !strings.HasPrefix(line, "//") {
			break
		}
		if strings.HasPrefix(line, prefix) {
			return line
		}
	}
	return ""
}
