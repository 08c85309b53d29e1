package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/spf13/pflag"

	"github.com/mcpgen/mcpgen/generator"
	"github.com/mcpgen/mcpgen/schema"
)

func runScaffold(args []string, stdout, stderr io.Writer) int {
	flags := pflag.NewFlagSet("scaffold", pflag.ContinueOnError)
	flags.SetOutput(stderr)
	schemaPath := flags.String("schema", "", "path of the MCP `schema.json` the bindings were generated from (required)")
	side := flags.String("side", "server", "which interface to implement: `server` or client")
	importPath := flags.String("import", "", "import `path` of the generated bindings package (required)")
	out := flags.String("out", "", "`file` to write (required)")
	pkg := flags.String("package", "main", "Go package `name` of the written file")
	typ := flags.String("type", "", "name of the implementing `type` (default Server or Client)")
	revision := flags.String("revision", "", "protocol `revision` (YYYY-MM-DD); default: recognised from the file or its directory")
	force := flags.Bool("force", false, "overwrite --out if it exists")
	flags.Usage = func() {
		fmt.Fprint(flags.Output(), "usage: mcpgen scaffold --schema FILE --import PATH --out FILE [--side server|client] [--package NAME] [--type NAME] [--force]\n\n"+
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
	case *schemaPath == "" || *importPath == "" || *out == "":
		fmt.Fprintln(stderr, "mcpgen scaffold: --schema, --import and --out are required")
		return 2
	case *side != "server" && *side != "client":
		fmt.Fprintf(stderr, "mcpgen scaffold: --side must be server or client, not %q\n", *side)
		return 2
	case !isIdentifier(*pkg) || *typ != "" && !isIdentifier(*typ):
		fmt.Fprintln(stderr, "mcpgen scaffold: --package and --type must be Go identifiers")
		return 2
	}
	if _, err := os.Stat(*out); err == nil && !*force {
		fmt.Fprintf(stderr, "mcpgen: %s: exists; it is yours, so scaffold will not overwrite it (use --force)\n", *out)
		return 1
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(stderr, "mcpgen: %s: %v\n", *out, unwrapPath(err))
		return 1
	}
	m, err := schema.Load(*schemaPath, schema.Options{Revision: *revision})
	if err != nil {
		fmt.Fprintf(stderr, "mcpgen: %v\n", err)
		return 1
	}
	src, err := generator.Scaffold(m, generator.ScaffoldOptions{Side: *side, ImportPath: *importPath, Package: *pkg, Type: *typ})
	if err != nil {
		fmt.Fprintf(stderr, "mcpgen: %v\n", err)
		return 1
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fmt.Fprintf(stderr, "mcpgen: %s: cannot write: %v\n", *out, unwrapPath(err))
		return 1
	}
	return 0
}
