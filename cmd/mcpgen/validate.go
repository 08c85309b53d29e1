package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/mcpgen/mcpgen/official"
	"github.com/mcpgen/mcpgen/schema"
	"github.com/mcpgen/mcpgen/validate"
)

func runValidate(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("validate", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	schemaPath := fs.String("schema", "", "MCP `schema.json` to validate against; without it, --revision names an embedded official schema")
	revision := fs.String("revision", "", "protocol `revision` (YYYY-MM-DD): the embedded official schema, or the revision of --schema")
	ext := addExtensionFlags(fs, false)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: mcpgen validate (--revision YYYY-MM-DD | --schema FILE) [FILE|-]\n\n"+
			"Validate checks JSON-RPC messages against the revision: one message (or batch)\n"+
			"per line, or one JSON document (a message or an array of messages), read from\n"+
			"FILE or standard input. Each message must be a request or notification of a\n"+
			"method the revision defines, with the definition's params; a response's result\n"+
			"is checked against the result of the request with the same id seen earlier.\n"+
			"Every problem is printed as \"FILE:LINE: POINTER: message\"; the exit status is\n"+
			"1 when anything is invalid.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args, stdout); done {
		return code
	}
	if fs.NArg() > 1 {
		fmt.Fprintf(stderr, "mcpgen validate: unexpected argument %q\n", fs.Arg(1))
		return 2
	}
	input := "-"
	if fs.NArg() == 1 {
		input = fs.Arg(0)
	}
	in := schemaInput{path: *schemaPath, revision: *revision, extension: *ext.name}
	if msg := in.usageError(); msg != "" {
		fmt.Fprintf(stderr, "mcpgen validate: %s\n", msg)
		return 2
	}
	if in.path == "-" {
		// Standard input is where the messages come from.
		fmt.Fprintln(stderr, "mcpgen validate: --schema - is not supported: give a file or --revision")
		return 2
	}
	m, err := in.load()
	if err != nil {
		return reportLoadError(stderr, "validate", err)
	}
	data, err := in.raw()
	if err != nil {
		fmt.Fprintf(stderr, "mcpgen: %s: %v\n", in.name(), err)
		return 1
	}
	c, err := schema.Compile(in.name(), data)
	if err != nil {
		fmt.Fprintf(stderr, "mcpgen: %v\n", err)
		return 1
	}
	r, name := stdin, stdinName
	if input != "-" {
		f, err := os.Open(input)
		if err != nil {
			fmt.Fprintf(stderr, "mcpgen: %s: %v\n", input, unwrapPath(err))
			return 1
		}
		defer f.Close()
		r, name = f, input
	}
	n, problems, err := validate.New(m, c).Stream(r)
	if err != nil {
		fmt.Fprintf(stderr, "mcpgen: %s: %v\n", name, err)
		return 1
	}
	for _, p := range problems {
		fmt.Fprintf(stdout, "%s:%d: %s: %s\n", name, p.Line, pointerText(p.Pointer), p.Msg)
	}
	if len(problems) > 0 {
		fmt.Fprintf(stderr, "mcpgen validate: %d problem(s) in %d message(s) (revision %s)\n", len(problems), n, m.Revision)
		return 1
	}
	fmt.Fprintf(stderr, "mcpgen validate: %d message(s) valid (revision %s)\n", n, m.Revision)
	return 0
}

// pointerText spells the message root, whose pointer is empty.
func pointerText(p string) string {
	if p == "" {
		return "/"
	}
	return p
}

// raw is the schema's bytes, for the validators compiled from them; load has
// already read and checked the same input, so this is a second, cheap read
// (validate refuses --schema -).
func (in schemaInput) raw() ([]byte, error) {
	if in.path == "" && in.extension != "" {
		e, _ := lookupExtension(in.extension)
		return official.ExtensionSchema(e.Name)
	}
	if in.path == "" {
		return official.Schema(in.revision)
	}
	return os.ReadFile(in.path)
}
