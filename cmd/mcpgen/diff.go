package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mcpgen/mcpgen/schema"
)

func runDiff(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("diff", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	asJSON := fs.Bool("json", false, "print the changes as JSON (from, to, changes: [{kind, subject, detail}])")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: mcpgen diff [--json] A B\n\n"+
			"Diff prints what changed at the API level from A to B, each an embedded official\n"+
			"revision (YYYY-MM-DD), an embedded extension (ext-tasks: only what the\n"+
			"extension is about is compared) or a schema file: methods added and removed,\n"+
			"and changed\n"+
			"(params, result, direction, cancellability); types and fields added, removed or\n"+
			"changed (required ↔ optional, type); union members; cancellation and lifecycle\n"+
			"facts. One change per line, grouped; --json for tools. Exit status 0 whether or\n"+
			"not anything changed.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args, stdout); done {
		return code
	}
	if fs.NArg() != 2 {
		fmt.Fprintln(stderr, "mcpgen diff: want two revisions or schema files, A and B")
		return 2
	}
	var models [2]*schema.Model
	for i, arg := range fs.Args() {
		in := schemaInput{path: arg}
		if isRevision(arg) {
			in = schemaInput{revision: arg}
		} else if e, ok := lookupExtension(arg); ok && strings.HasPrefix(arg, "ext-") {
			// ext-tasks: an embedded extension composed with its core.
			in = schemaInput{extension: e.Name}
		}
		m, err := in.load()
		if err != nil {
			return reportLoadError(stderr, "diff", err)
		}
		models[i] = m
	}
	d := schema.Compare(models[0], models[1])
	if *asJSON {
		data, err := json.MarshalIndent(d, "", "  ")
		if err != nil {
			fmt.Fprintf(stderr, "mcpgen: %v\n", err)
			return 1
		}
		stdout.Write(append(data, '\n'))
		return 0
	}
	io.WriteString(stdout, DiffText(d))
	return 0
}

// DiffText is diff's text output: a title line, then the changes grouped by
// kind, one per line.
func DiffText(d *schema.Diff) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s → %s: %d changes\n", d.From, d.To, len(d.Changes))
	last := ""
	for _, c := range d.Changes {
		if c.Kind != last {
			fmt.Fprintf(&b, "\n%s:\n", c.Kind)
			last = c.Kind
		}
		if c.Detail == "" {
			fmt.Fprintf(&b, "  %s\n", c.Subject)
		} else {
			fmt.Fprintf(&b, "  %s: %s\n", c.Subject, c.Detail)
		}
	}
	return b.String()
}
