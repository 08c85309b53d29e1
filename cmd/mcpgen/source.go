package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mcpgen/mcpgen/official"
	"github.com/mcpgen/mcpgen/schema"
)

// stdin is what --schema - reads; tests replace it.
var stdin io.Reader = os.Stdin

// stdinName names standard input in errors and generated headers.
const stdinName = "<stdin>"

// schemaInput is where a command's schema comes from: the --schema and
// --revision flags, which every command that reads a schema shares.
type schemaInput struct {
	// path is --schema: a file, "-" for standard input, or empty for the
	// embedded official schema of revision.
	path string
	// revision is --revision: which embedded schema to read when path is
	// empty, else the declared revision of the file.
	revision string
	// extension is --extension: the schema is that extension's (embedded,
	// or path), composed with its core revision (extension.go).
	extension string
}

// isRevision reports whether s has the form of a protocol revision, a
// date: YYYY-MM-DD.
func isRevision(s string) bool {
	if len(s) != len("2006-01-02") {
		return false
	}
	for i, c := range []byte(s) {
		if i == 4 || i == 7 {
			if c != '-' {
				return false
			}
		} else if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// officialName is how an embedded schema is named in errors and headers.
func officialName(rev string) string { return "official schema " + rev }

// usageError reports a combination of flags that names no schema, or ""
// when the input is well specified.
func (in schemaInput) usageError() string {
	if in.path == "" && in.revision == "" && in.extension == "" {
		return "--schema or --revision is required (or --extension)"
	}
	if in.revision != "" && !isRevision(in.revision) {
		return fmt.Sprintf("--revision %q is not a protocol revision (YYYY-MM-DD)", in.revision)
	}
	return ""
}

// load reads and builds the model. An error is about the input (status 1),
// except for an unknown embedded revision, which is a bad flag value and
// comes back as a *usageErr (status 2).
func (in schemaInput) load() (*schema.Model, error) {
	if in.extension != "" {
		return in.loadExtension()
	}
	opts := schema.Options{Revision: in.revision}
	var data []byte
	var rerr error
	switch in.path {
	case "":
		if data, rerr = official.Schema(in.revision); rerr != nil {
			return nil, &usageErr{fmt.Sprintf("--revision: %v; pass --schema for any other schema", rerr)}
		}
	case "-":
		if data, rerr = readSchema(stdin); rerr != nil {
			return nil, &schema.Error{File: stdinName, Msg: "cannot read schema", Err: rerr}
		}
	default:
		f, err := os.Open(in.path)
		if err != nil {
			return nil, &schema.Error{File: in.path, Msg: "cannot read schema", Err: unwrapPath(err)}
		}
		data, rerr = readSchema(f)
		f.Close()
		if rerr != nil {
			return nil, &schema.Error{File: in.path, Msg: "cannot read schema", Err: unwrapPath(rerr)}
		}
	}
	if budgetMemory != nil {
		budgetMemory(len(data))
	}
	m, err := schema.LoadBytes(in.name(), data, opts)
	if err != nil {
		return nil, err
	}
	if len(m.Methods) == 0 {
		// A valid JSON Schema that describes no MCP message would give an
		// empty package that builds and does nothing.
		return nil, &schema.Error{File: in.name(), Pointer: "#/" + m.DefsKey,
			Msg: "not an MCP schema: it defines no request or notification (no ClientRequest, ServerRequest, ClientNotification or ServerNotification union)"}
	}
	return m, nil
}

// name is how errors name the schema: as the user gave it.
func (in schemaInput) name() string {
	switch {
	case in.path == "" && in.extension != "":
		if e, ok := lookupExtension(in.extension); ok {
			return extensionName(e.Name)
		}
		return extensionName(in.extension)
	case in.path == "":
		return officialName(in.revision)
	case in.path == "-":
		return stdinName
	}
	return in.path
}

// openSchema reads --schema (a file or "-"), bounded like load.
func openSchema(in schemaInput) ([]byte, error) {
	if in.path == "-" {
		data, err := readSchema(stdin)
		if err != nil {
			return nil, &schema.Error{File: stdinName, Msg: "cannot read schema", Err: err}
		}
		return data, nil
	}
	f, err := os.Open(in.path)
	if err != nil {
		return nil, &schema.Error{File: in.path, Msg: "cannot read schema", Err: unwrapPath(err)}
	}
	defer f.Close()
	data, err := readSchema(f)
	if err != nil {
		return nil, &schema.Error{File: in.path, Msg: "cannot read schema", Err: unwrapPath(err)}
	}
	return data, nil
}

// reportLoadError prints a load error as one line and returns the exit
// status: 2 when the flags were wrong, 1 when the input was.
func reportLoadError(stderr io.Writer, cmd string, err error) int {
	var ue *usageErr
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "mcpgen %s: %v\n", cmd, err)
		return 2
	}
	fmt.Fprintf(stderr, "mcpgen: %v\n", err)
	return 1
}

// maxSchemaBytes bounds what mcpgen reads: building a schema takes some
// 35 times its size in memory, so a larger input (or /dev/zero, or an
// endless pipe) is refused rather than exhaust the machine.
var maxSchemaBytes int64 = 256 << 20

// readSchema reads all of r, up to maxSchemaBytes.
func readSchema(r io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxSchemaBytes+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > maxSchemaBytes {
		return nil, fmt.Errorf("larger than %d MiB, the most mcpgen reads", maxSchemaBytes>>20)
	}
	return data, nil
}

// sourceName is how a generated header names the schema: "official schema
// R", "<stdin>", or the file's path relative to the output directory, so
// the header reads the same wherever the generator ran from.
func (in schemaInput) sourceName(outDir string) string {
	if in.path == "" || in.path == "-" {
		return in.name()
	}
	absFile, err1 := filepath.Abs(in.path)
	absOut, err2 := filepath.Abs(outDir)
	if err1 == nil && err2 == nil {
		if rel, err := filepath.Rel(absOut, absFile); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(in.path)
}

// usageErr is an error that is the user's invocation, not the input: the
// command exits with status 2.
type usageErr struct{ msg string }

func (e *usageErr) Error() string { return e.msg }
