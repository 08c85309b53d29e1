package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/mcpgen/mcpgen/official"
)

func runRevisions(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("revisions", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: mcpgen revisions\n\n"+
			"Revisions lists the official MCP schemas embedded in mcpgen, oldest first:\n"+
			"the revision (what --revision takes), its JSON Schema dialect and the sha256\n"+
			"of the file as published (what a generated header records); then the embedded\n"+
			"extension schemas: the name --extension takes, the extension's identifier,\n"+
			"the core revision it is composed with and the file's sha256.\n")
	}
	if code, done := parseFlags(fs, args, stdout); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "mcpgen revisions: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "REVISION\tDIALECT\tSHA256")
	for _, rev := range official.Revisions() {
		data, err := official.Schema(rev)
		if err != nil {
			fmt.Fprintf(stderr, "mcpgen: %v\n", err)
			return 1
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(tw, "%s\t%s\t%s\n", rev, dialectName(data), hex.EncodeToString(sum[:]))
	}
	tw.Flush()
	tw = tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\nEXTENSION\tIDENTIFIER\tEXTENDS\tSHA256")
	for _, e := range official.Extensions() {
		data, err := official.ExtensionSchema(e.Name)
		if err != nil {
			fmt.Fprintf(stderr, "mcpgen: %v\n", err)
			return 1
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.Name, e.Identifier, e.Extends, hex.EncodeToString(sum[:]))
	}
	tw.Flush()
	return 0
}

// dialectName is the short name of a schema's $schema URL, as the
// README's table of revisions spells it.
func dialectName(data []byte) string {
	var root struct {
		Schema string `json:"$schema"`
	}
	if json.Unmarshal(data, &root) != nil {
		return "?"
	}
	switch u := strings.TrimSuffix(root.Schema, "#"); {
	case strings.HasSuffix(u, "/draft-07/schema"):
		return "draft-07"
	case strings.HasSuffix(u, "/draft/2020-12/schema"):
		return "2020-12"
	default:
		return u
	}
}
