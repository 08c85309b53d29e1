package main

import (
	"fmt"
	"io"
	"runtime"

	"github.com/spf13/pflag"

	"github.com/mcpgen/mcpgen/internal/toolversion"
)

// mcpgenVersion is the version this mcpgen reports and writes into the
// header of every generated file (internal/toolversion decides it).
var mcpgenVersion = toolversion.String()

func runVersion(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("version", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: mcpgen version\n\nVersion prints the mcpgen version and the Go toolchain it was built with.\nThe version is the one the header of every file mcpgen generates names.\n")
	}
	if code, done := parseFlags(fs, args, stdout); done {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "mcpgen version: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	fmt.Fprintf(stdout, "mcpgen %s %s %s/%s\n", mcpgenVersion, runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return 0
}
