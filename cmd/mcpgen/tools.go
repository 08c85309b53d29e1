package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/mcpgen/mcpgen/generator/tools"
	"github.com/mcpgen/mcpgen/internal/outdir"
)

func runTools(args []string, stdout, stderr io.Writer) int {
	if liveFlag(args) { // fromserver.go
		return runFromServer(args, stdout, stderr)
	}
	flags := pflag.NewFlagSet("tools", pflag.ContinueOnError)
	flags.SetOutput(stderr)
	toolsPath := flags.String("tools", "", "the tools `file`: a JSON array of Tool objects as tools/list returns them (required)")
	imports := flags.StringArray("import", nil, "import `path` of the bindings package to target, e.g. github.com/mcpgen/mcpgen/generated/mcp20260728 (required; repeat it to also get a HandlerYYYYMMDD for each further revision)")
	pkg := flags.String("package", "", "Go package `name` of the output (default: base name of --out)")
	out := flags.String("out", "", "output `directory` (required; created if missing)")
	revision := flags.String("revision", "", "MCP `revision` of the bindings (YYYY-MM-DD), with a single --import; default: read from the import path's mcpYYYYMMDD")
	sum := addSummary(flags)
	flags.Usage = func() {
		fmt.Fprint(flags.Output(), "usage: mcpgen tools --tools FILE --import PATH [--import PATH...] --out DIR [--package NAME] [--revision YYYY-MM-DD] [-q]\n\n"+
			"Tools reads tool definitions (name, description, inputSchema, outputSchema,\n"+
			"and any other Tool member) from a JSON file and writes a Go package with,\n"+
			"per tool, an argument struct and (given an output schema) a result struct;\n"+
			"a Tools interface with one context-first method per tool; and a Handler\n"+
			"that answers tools/list with the schemas as written and tools/call by\n"+
			"validating the arguments with generated code, calling the method and\n"+
			"filling structuredContent. Embed *Handler in your server type. With more\n"+
			"than one --import, one Tools interface is served by a Handler for the first\n"+
			"bindings and a HandlerYYYYMMDD for each other (a dual-era server).\n\n"+
			"Supported schema keywords: type, properties, required, additionalProperties\n"+
			"(true/false), items, enum, const, minimum, maximum, exclusiveMinimum,\n"+
			"exclusiveMaximum, minLength, maxLength, pattern, minItems, maxItems, and\n"+
			"annotations; any other keyword is an error naming its JSON pointer.\n\n"+
			"--tools also takes a snapshot file; to take one from a live server and check\n"+
			"it for drift, see mcpgen tools --from-server --help (docs/typed-callers.md).\n\nFlags:\n")
		flags.PrintDefaults()
	}
	if code, done := parseFlags(flags, args, stdout); done {
		return code
	}
	switch {
	case flags.NArg() > 0:
		fmt.Fprintf(stderr, "mcpgen tools: unexpected argument %q\n", flags.Arg(0))
		return 2
	case *toolsPath == "" || len(*imports) == 0 || *out == "":
		fmt.Fprintln(stderr, "mcpgen tools: --tools, --import and --out are required")
		return 2
	case *revision != "" && len(*imports) > 1:
		fmt.Fprintln(stderr, "mcpgen tools: --revision needs a single --import")
		return 2
	}
	if msg := outDirError(*out); msg != "" {
		fmt.Fprintf(stderr, "mcpgen tools: %s\n", msg)
		return 2
	}
	for i, imp := range *imports {
		if err := checkImportPath(imp); err != nil {
			fmt.Fprintf(stderr, "mcpgen tools: --import %s: %v\n", imp, err)
			return 2
		}
		if !tools.RevisionFromImport(imp) && (i > 0 || *revision == "") {
			if i > 0 {
				fmt.Fprintf(stderr, "mcpgen tools: cannot tell the MCP revision of --import %s from its path (it does not end in mcpYYYYMMDD), and --revision applies to the first --import only: import bindings whose path ends in mcpYYYYMMDD\n", imp)
			} else {
				fmt.Fprintf(stderr, "mcpgen tools: cannot tell the MCP revision of --import %s from its path (it does not end in mcpYYYYMMDD): pass --revision YYYY-MM-DD, the revision those bindings were generated for\n", imp)
			}
			return 2
		}
	}
	name := *pkg
	if name == "" {
		abs, err := filepath.Abs(*out)
		if err != nil {
			fmt.Fprintf(stderr, "mcpgen: %s: %v\n", *out, err)
			return 1
		}
		name = filepath.Base(abs)
	}
	if err := checkIdentifier(name); err != nil {
		fmt.Fprintf(stderr, "mcpgen tools: package name %q: %v; pass --package\n", name, err)
		return 2
	}
	if msg := packageClash(*out, name, "--package", "", true); msg != "" {
		fmt.Fprintf(stderr, "mcpgen tools: %s\n", msg)
		return 2
	}
	data, err := os.ReadFile(*toolsPath)
	if err != nil {
		fmt.Fprintf(stderr, "mcpgen: %s: %v\n", *toolsPath, unwrapPath(err))
		return 1
	}
	files, err := tools.Generate(data, tools.Options{
		Package: name, Import: (*imports)[0], AlsoImport: (*imports)[1:], Revision: *revision, ToolsFile: filepath.ToSlash(*toolsPath), Version: mcpgenVersion,
	})
	if err != nil {
		fmt.Fprintf(stderr, "mcpgen: %v\n", err)
		return 1
	}
	changed := changedFiles(*out, files)
	if err := outdir.Write(*out, files, outdir.Options{Foreign: notTools}); err != nil {
		fmt.Fprintf(stderr, "mcpgen: %v\n", err)
		return 1
	}
	sum.wroteFiles(stdout, *out, files, changed, fmt.Sprintf("package %s, %s from %s", name, toolCount(data), *toolsPath))
	return 0
}

// toolCount says how many tools the (valid) tools file data defines, for
// the summary line.
func toolCount(data []byte) string {
	var entries []json.RawMessage
	if json.Unmarshal(data, &entries) != nil {
		// A snapshot file (mcpgen tools --from-server): its tools member.
		var snap struct {
			Tools []json.RawMessage `json:"tools"`
		}
		json.Unmarshal(data, &snap)
		entries = snap.Tools
	}
	if len(entries) == 1 {
		return "1 tool"
	}
	return fmt.Sprintf("%d tools", len(entries))
}
