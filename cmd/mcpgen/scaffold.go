package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"

	"github.com/spf13/pflag"

	"github.com/mcpgen/mcpgen/generator"
)

func runScaffold(args []string, stdout, stderr io.Writer) int {
	flags := pflag.NewFlagSet("scaffold", pflag.ContinueOnError)
	flags.SetOutput(stderr)
	schemaPath := flags.String("schema", "", "MCP `schema.json` the bindings were generated from (\"-\": standard input); without it, --revision names an embedded official schema")
	side := flags.String("side", "server", "which interface to implement: `server` or client")
	importPath := flags.String("import", "", "import `path` of the generated bindings package (required)")
	out := flags.String("out", "", "`file` to write (required)")
	pkg := flags.String("package", "main", "Go package `name` of the written file")
	typ := flags.String("type", "", "name of the implementing `type` (default Server or Client)")
	revision := flags.String("revision", "", "protocol `revision` (YYYY-MM-DD): the embedded official schema to read, or the revision of --schema")
	force := flags.Bool("force", false, "overwrite --out if it exists")
	flags.Usage = func() {
		fmt.Fprint(flags.Output(), "usage: mcpgen scaffold (--revision YYYY-MM-DD | --schema FILE) --import PATH --out FILE [--side server|client] [--package NAME] [--type NAME] [--force]\n\n"+
			"Scaffold writes a user-owned file with a type that implements the server (or\n"+
			"client) interface of generated bindings: every method stubbed, with a comment\n"+
			"showing how to honour ctx. It never overwrites a file without --force.\n\nFlags:\n")
		flags.PrintDefaults()
	}
	if code, done := parseFlags(flags, args, stdout); done {
		return code
	}
	switch {
	case flags.NArg() > 0:
		fmt.Fprintf(stderr, "mcpgen scaffold: unexpected argument %q\n", flags.Arg(0))
		return 2
	case *schemaPath == "" && *revision == "" || *importPath == "" || *out == "":
		fmt.Fprintln(stderr, "mcpgen scaffold: --schema or --revision, --import and --out are required")
		return 2
	case *side != "server" && *side != "client":
		fmt.Fprintf(stderr, "mcpgen scaffold: --side must be server or client, not %q\n", *side)
		return 2
	}
	in := schemaInput{path: *schemaPath, revision: *revision}
	if msg := in.usageError(); msg != "" {
		fmt.Fprintf(stderr, "mcpgen scaffold: %s\n", msg)
		return 2
	}
	if err := checkIdentifier(*pkg); err != nil {
		fmt.Fprintf(stderr, "mcpgen scaffold: --package %v\n", err)
		return 2
	}
	if err := checkIdentifier(*typ); *typ != "" && err != nil {
		fmt.Fprintf(stderr, "mcpgen scaffold: --type %v\n", err)
		return 2
	}
	if err := checkImportPath(*importPath); err != nil {
		fmt.Fprintf(stderr, "mcpgen scaffold: --import: %v\n", err)
		return 2
	}
	if err := checkIdentifier(path.Base(*importPath)); err != nil {
		// The stub qualifies the bindings by the path's last element.
		fmt.Fprintf(stderr, "mcpgen scaffold: --import %q: its last element %v, so it cannot name the bindings' package\n", *importPath, err)
		return 2
	}
	if _, err := os.Stat(*out); err == nil && !*force {
		fmt.Fprintf(stderr, "mcpgen: %s: exists; it is yours, so scaffold will not overwrite it (use --force)\n", *out)
		return 1
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(stderr, "mcpgen: %s: %v\n", *out, unwrapPath(err))
		return 1
	}
	m, err := in.load()
	if err != nil {
		return reportLoadError(stderr, "scaffold", err)
	}
	src, err := generator.Scaffold(m, generator.ScaffoldOptions{Side: *side, ImportPath: *importPath, Package: *pkg, Type: *typ})
	if err != nil {
		fmt.Fprintf(stderr, "mcpgen: %s\n", firstLine(err.Error()))
		return 1
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fmt.Fprintf(stderr, "mcpgen: %s: cannot write: %v\n", *out, unwrapPath(err))
		return 1
	}
	return 0
}
