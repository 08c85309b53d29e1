package main

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"
)

func runScaffold(args []string, stdout, stderr io.Writer) int {
	fs := pflag.NewFlagSet("scaffold", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), "usage: mcpgen scaffold --schema FILE --side server|client --import PATH --out FILE [--force]\n\n"+
			"Scaffold writes a user-owned implementation file with every method of one side stubbed.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	if code, done := parseFlags(fs, args, stdout); done {
		return code
	}
	fmt.Fprintln(stderr, "mcpgen scaffold: not implemented yet")
	return 1
}
