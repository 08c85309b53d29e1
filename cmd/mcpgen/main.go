// Command mcpgen generates typed Go bindings for a Model Context Protocol
// schema.json and checks them.
//
// Usage:
//
//	mcpgen generate --schema path/to/schema.json --package mcp --out ./mcp
//	mcpgen generate --schema path/to/schema.json --dump-model
//	mcpgen scaffold --dir ./mcp --side server --out server_impl.go
//	mcpgen check --revision 2025-11-25 --dir ./mcp
//	mcpgen diff 2025-06-18 2025-11-25
//	mcpgen validate --revision 2025-11-25 messages.jsonl
//	mcpgen version
//
// Run "mcpgen help <command>" for the flags of each command.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	budgetMemory = setMemoryLimit
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// command is one sub-command of the CLI.
type command struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) int
}

func commands() []command {
	return []command{
		{"generate", "write Go bindings for a schema.json", runGenerate},
		{"revisions", "list the official schemas embedded in mcpgen", runRevisions},
		{"check", "exit 1 when a directory's bindings differ from what generate writes now", runCheck},
		{"diff", "print the API-level changes between two revisions or schema files", runDiff},
		{"validate", "check JSON-RPC messages against a revision's schema", runValidate},
		{"scaffold", "write a user-owned implementation file with every method as a commented-out stub", runScaffold},
		{"tools", "write typed tools (args, results, interface, validating dispatcher) from a tools file", runTools},
		{"version", "print the mcpgen version", runVersion},
	}
}

// run is main without the process: it returns the exit status (0 ok,
// 1 failure, 2 bad usage), so tests drive the whole CLI.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	name := args[0]
	switch name {
	case "-h", "--help", "-help":
		usage(stdout)
		return 0
	case "--version", "-version", "-v":
		return runVersion(nil, stdout, stderr)
	case "help":
		if len(args) == 1 {
			usage(stdout)
			return 0
		}
		for _, c := range commands() {
			if c.name == args[1] {
				return c.run([]string{"--help"}, stdout, stderr)
			}
		}
		fmt.Fprintf(stderr, "mcpgen help %s: unknown command\nRun 'mcpgen help' for usage.\n", args[1])
		return 2
	}
	for _, c := range commands() {
		if c.name == name {
			return c.run(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "mcpgen %s: unknown command\nRun 'mcpgen help' for usage.\n", name)
	return 2
}

func usage(w io.Writer) {
	var b strings.Builder
	b.WriteString("mcpgen generates typed Go bindings and cancellation plumbing for the Model Context Protocol.\n\n")
	b.WriteString("Usage:\n\n\tmcpgen <command> [flags]\n\nThe commands are:\n\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "\t%-10s %s\n", c.name, c.summary)
	}
	b.WriteString("\nUse \"mcpgen help <command>\" for more information about a command.\n")
	io.WriteString(w, b.String())
}
