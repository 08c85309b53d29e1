package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mcpgen/mcpgen/generator"
)

func runScaffold(args []string, stdout, stderr io.Writer) int {
	flags := pflag.NewFlagSet("scaffold", pflag.ContinueOnError)
	flags.SetOutput(stderr)
	dir := flags.String("dir", "", "`directory` of the generated bindings to implement (required); scaffold reads their interfaces")
	side := flags.String("side", "server", "which interface to implement: `server` or client")
	importPath := flags.String("import", "", "import `path` of the bindings (default: from the go.mod above --dir)")
	alias := flags.String("alias", "", "`name` for the bindings package in the written file (default: its package name)")
	out := flags.String("out", "", "`file` to write (required)")
	pkg := flags.String("package", "main", "Go package `name` of the written file")
	typ := flags.String("type", "", "name of the `type` to write (default Server or Client)")
	force := flags.Bool("force", false, "overwrite --out if it exists")
	withMain := flags.Bool("main", true, "with --package main, also write func main: a server served on stdio (go run . serves it), a client connecting to the server command in its arguments; left out when the folder already has one")
	sum := addSummary(flags)
	flags.Usage = func() {
		fmt.Fprint(flags.Output(), "usage: mcpgen scaffold --dir BINDINGS --out FILE [--import PATH] [--alias NAME] [--side server|client] [--package NAME] [--type NAME] [--main=false] [--force] [-q]\n\n"+
			"Scaffold writes a user-owned file with a server (or client) type for the\n"+
			"generated bindings in --dir and, for every method but the lifecycle (which the\n"+
			"session answers), a commented-out stub with its exact signature and handler\n"+
			"interface assertion, grouped by the capability it declares: uncomment a stub to\n"+
			"serve that method. A comment shows how to honour ctx. It reads the bindings\n"+
			"themselves, so the stubs compile with them; it creates --out's directory and\n"+
			"never overwrites a file without --force. In package main (the default) it also\n"+
			"writes func main, so \"go run .\" in --out's folder serves the server on stdio\n"+
			"at once (unless --main=false, or the folder has a main already).\n\nFlags:\n")
		flags.PrintDefaults()
	}
	if code, done := parseFlags(flags, args, stdout); done {
		return code
	}
	switch {
	case flags.NArg() > 0:
		fmt.Fprintf(stderr, "mcpgen scaffold: unexpected argument %q\n", flags.Arg(0))
		return 2
	case *dir == "" || *out == "":
		fmt.Fprintln(stderr, "mcpgen scaffold: --dir and --out are required")
		return 2
	case *alias != "" && checkIdentifier(*alias) != nil:
		fmt.Fprintf(stderr, "mcpgen scaffold: --alias %v\n", checkIdentifier(*alias))
		return 2
	case *side != "server" && *side != "client":
		fmt.Fprintf(stderr, "mcpgen scaffold: --side must be server or client, not %q\n", *side)
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
	if err := checkImportPath(*importPath); *importPath != "" && err != nil {
		fmt.Fprintf(stderr, "mcpgen scaffold: --import: %v\n", err)
		return 2
	}
	if _, err := os.Stat(*out); err == nil && !*force {
		fmt.Fprintf(stderr, "mcpgen: %s: exists; it is yours, so scaffold will not overwrite it (use --force)\n", *out)
		return 1
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		fmt.Fprintf(stderr, "mcpgen: %s: %v\n", *out, unwrapPath(err))
		return 1
	}
	folder := filepath.Dir(*out)
	if msg := packageClash(folder, *pkg, "--package", *out, false); msg != "" {
		fmt.Fprintf(stderr, "mcpgen scaffold: %s\n", msg)
		return 2
	}
	_, _, folderHasMain, err := folderPackage(folder, *out, false)
	if err != nil {
		fmt.Fprintf(stderr, "mcpgen: %v\n", err)
		return 1
	}
	mainWritten := *withMain && *pkg == "main" && !folderHasMain
	b, err := generator.ReadBindings(*dir)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) && filepath.Clean(pe.Path) == filepath.Clean(*dir) {
			fmt.Fprintf(stderr, "mcpgen scaffold: --dir %s: %v\n", *dir, unwrapPath(err))
		} else {
			fmt.Fprintf(stderr, "mcpgen scaffold: --dir %s: %v\n", *dir, err)
		}
		return 1
	}
	if *importPath == "" {
		if *importPath, err = importPathOf(*dir); err != nil {
			fmt.Fprintf(stderr, "mcpgen: %v (give --import)\n", err)
			return 1
		}
	}
	absFolder, err := filepath.Abs(folder)
	if err != nil {
		fmt.Fprintf(stderr, "mcpgen: %s: %v\n", folder, err)
		return 1
	}
	src, err := generator.ScaffoldBindings(b, generator.ScaffoldOptions{Side: *side, ImportPath: *importPath, Alias: *alias, Package: *pkg, Type: *typ,
		Main: mainWritten, Name: filepath.Base(absFolder)})
	if err != nil {
		fmt.Fprintf(stderr, "mcpgen: %v\n", err)
		return 1
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		fmt.Fprintf(stderr, "mcpgen: %s: cannot create its directory: %v\n", *out, unwrapPath(err))
		return 1
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fmt.Fprintf(stderr, "mcpgen: %s: cannot write: %v\n", *out, unwrapPath(err))
		return 1
	}
	typeName := *typ
	if typeName == "" {
		typeName = map[string]string{"server": "Server", "client": "Client"}[*side]
	}
	what := fmt.Sprintf("package %s, type %s with a stub per method of the %s bindings", *pkg, typeName, b.Revision)
	switch {
	case mainWritten && *side == "server":
		what += "; func main serves it on stdio: go run " + runTarget(folder)
	case mainWritten:
		what += "; func main connects to a server: go run " + runTarget(folder) + " SERVER [ARGS...]"
	case *withMain && *pkg == "main":
		what += "; no func main, the folder has one"
	}
	sum.printf(stdout, "wrote %s (%s)", *out, what)
	return 0
}

// runTarget is the go run argument that runs the package in folder.
func runTarget(folder string) string {
	if filepath.IsAbs(folder) || folder == "." || strings.HasPrefix(folder, "..") {
		return folder
	}
	return "./" + filepath.ToSlash(folder)
}

// importPathOf is the import path of dir: the module path of the nearest
// go.mod above it joined with dir's path inside that module.
func importPathOf(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for root := abs; ; root = filepath.Dir(root) {
		data, err := os.ReadFile(filepath.Join(root, "go.mod"))
		if err == nil {
			for _, line := range strings.Split(string(data), "\n") {
				if f := strings.Fields(line); len(f) >= 2 && f[0] == "module" {
					rel, err := filepath.Rel(root, abs)
					if err != nil {
						return "", err
					}
					mod := strings.Trim(f[1], `"`)
					if rel == "." {
						return mod, nil
					}
					return mod + "/" + filepath.ToSlash(rel), nil
				}
			}
			return "", fmt.Errorf("%s: no module line", filepath.Join(root, "go.mod"))
		}
		if filepath.Dir(root) == root {
			return "", fmt.Errorf("%s: not inside a Go module", dir)
		}
	}
}
