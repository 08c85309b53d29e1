package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mcpgen/mcpgen/generator"
	"github.com/mcpgen/mcpgen/internal/outdir"
	"github.com/mcpgen/mcpgen/schema"
)

// generatedHeader starts every file mcpgen writes; files in the output
// directory that start with it and are no longer produced are removed.
const generatedHeader = outdir.Header

func runGenerate(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("generate", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	schemaPath := fs.String("schema", "", "MCP `schema.json` to read (\"-\": standard input); without it, --revision names an embedded official schema")
	pkg := fs.String("package", "", "Go package `name` of the output (default: base name of --out)")
	out := fs.String("out", "", "output `directory` (created if missing)")
	revision := fs.String("revision", "", "protocol `revision` (YYYY-MM-DD): the embedded official schema to read, or the revision of --schema (default: recognised from its content or its directory)")
	dump := fs.Bool("dump-model", false, "print the schema model as JSON to stdout instead of generating code")
	ext := addExtensionFlags(fs, true)
	force := fs.Bool("force", false, "overwrite files in --out that do not start with the mcpgen header (they are refused otherwise)")
	sum := addSummary(fs)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: mcpgen generate (--revision YYYY-MM-DD | --schema FILE [--revision YYYY-MM-DD] | --extension NAME [--schema FILE] [--core-package PATH]) (--out DIR [--package NAME] [--force] [-q] | --dump-model)\n\n"+
			"Generate reads an MCP schema.json of any revision (draft-07 or 2020-12), or\n"+
			"the official schema of --revision embedded in mcpgen (see mcpgen revisions),\n"+
			"compiles it with jsonschema/v5 and writes a Go package with a type for every\n"+
			"definition, the method table, the cancellation decoder and policy, and the\n"+
			"handler interfaces and callers.\n\n"+
			"Files in --out that start with \""+generatedHeader+"\" are mcpgen's: they are\n"+
			"replaced, or removed when no longer generated. Any other file is yours: it is\n"+
			"never removed, and generation stops rather than overwrite it (unless --force).\n"+
			"The files are written to temporary files first and then renamed, so a run that\n"+
			"fails leaves the previous bindings as they were.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args, stdout); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "mcpgen generate: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	in := schemaInput{path: *schemaPath, revision: *revision, extension: *ext.name}
	if msg := in.usageError(); msg != "" {
		fmt.Fprintf(stderr, "mcpgen generate: %s\n", msg)
		return 2
	}
	if !*dump && *out == "" {
		fmt.Fprintln(stderr, "mcpgen generate: --out is required (or --dump-model)")
		return 2
	}
	if msg := outDirError(*out); msg != "" {
		fmt.Fprintf(stderr, "mcpgen generate: %s\n", msg)
		return 2
	}
	if *dump && (*out != "" || *pkg != "" || *force) {
		fmt.Fprintln(stderr, "mcpgen generate: --dump-model prints the model to standard output; it takes no --out, --package or --force")
		return 2
	}
	name := *pkg
	if !*dump {
		if name == "" {
			abs, err := filepath.Abs(*out)
			if err != nil {
				fmt.Fprintf(stderr, "mcpgen: %s: %v\n", *out, err)
				return 1
			}
			name = filepath.Base(abs)
		}
		if err := checkIdentifier(name); err != nil {
			if *pkg != "" {
				fmt.Fprintf(stderr, "mcpgen generate: --package: %v, so it cannot name a Go package\n", err)
			} else {
				fmt.Fprintf(stderr, "mcpgen generate: the package is named after --out by default, but %v: pass --package\n", err)
			}
			return 2
		}
		if msg := packageClash(*out, name, "--package", "", true); msg != "" {
			fmt.Fprintf(stderr, "mcpgen generate: %s\n", msg)
			return 2
		}
	}

	m, err := in.load()
	if err != nil {
		return reportLoadError(stderr, "generate", err)
	}
	if *dump {
		b, err := DumpModel(m)
		if err != nil {
			fmt.Fprintf(stderr, "mcpgen: %v\n", err)
			return 1
		}
		stdout.Write(b)
		return 0
	}

	files, err := generator.Generate(m, generator.Options{Package: name, SchemaFile: in.sourceName(*out), Version: mcpgenVersion, CorePackage: ext.corePackageOf(m)})
	if err != nil {
		// One line: a formatting error would otherwise carry the whole
		// unformatted source with it.
		fmt.Fprintf(stderr, "mcpgen: %s: %s\n", in.name(), firstLine(err.Error()))
		return 1
	}
	changed := changedFiles(*out, files)
	if err := outdir.Write(*out, files, outdir.Options{Force: *force, Foreign: notBindings}); err != nil {
		fmt.Fprintf(stderr, "mcpgen: %v\n", err)
		return 1
	}
	sum.wroteFiles(stdout, *out, files, changed, fmt.Sprintf("package %s, bindings of %s", name, in.name()))
	return 0
}

// firstLine is s up to its first line break.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimRight(line, "\r :")
}

// DumpModel renders the model as indented JSON, the format of
// --dump-model.
func DumpModel(m *schema.Model) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

// outDirError says what is wrong with an --out value, or "": --out names
// the directory the package is written to, so a path ending in ".go" is a
// mistake (the package would land in a directory named like a file).
func outDirError(out string) string {
	if strings.HasSuffix(strings.TrimRight(out, `/\`), ".go") {
		return fmt.Sprintf("--out %q ends in .go, but --out is the directory the package's files are written to (e.g. --out %s)", out, filepath.Dir(filepath.Clean(out)))
	}
	return ""
}

// toolsMarker is in the Source line of every file mcpgen tools writes.
const toolsMarker = ", for the bindings "

// isToolsFile reports whether a generated file was written by mcpgen tools.
func isToolsFile(data []byte) bool {
	src := headerLine(data, "// Source: ")
	return strings.Contains(src, toolsMarker)
}

// notBindings is generate's outdir.Options.Foreign: typed tools in the
// output directory are mcpgen tools' files, not stale bindings.
func notBindings(data []byte) string {
	if isToolsFile(data) {
		return "typed tools, written by mcpgen tools"
	}
	return ""
}

// notTools is the tools command's outdir.Options.Foreign: bindings in the
// output directory are mcpgen generate's files, not stale tools.
func notTools(data []byte) string {
	if src := headerLine(data, "// Source: "); strings.Contains(src, "(MCP revision ") && !strings.Contains(src, toolsMarker) {
		return "bindings, written by mcpgen generate"
	}
	return ""
}

// parseFlags parses args. An explicit --help prints the usage to stdout
// and succeeds, as go help does; a bad flag prints it to stderr and
// fails with status 2. done reports that the command must return code.
func parseFlags(fs *pflag.FlagSet, args []string, stdout io.Writer) (code int, done bool) {
	for _, a := range args {
		if a == "--" {
			break
		}
		if a == "-h" || a == "--help" || a == "-help" {
			fs.SetOutput(stdout)
			fs.Usage()
			return 0, true
		}
	}
	err := fs.Parse(args)
	if err == pflag.ErrHelp {
		return 0, true
	}
	if err != nil {
		fmt.Fprintf(fs.Output(), "mcpgen %s: %v%s\nRun 'mcpgen help %s' for usage.\n", fs.Name(), err, suggestFlag(fs, err), fs.Name())
		return 2, true
	}
	return 0, false
}
