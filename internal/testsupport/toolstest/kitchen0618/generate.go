// Package kitchen0618 is the tools package "mcpgen tools" generates from
// generator/tools/testdata/kitchen.json for the bindings of 2025-06-18,
// where invalid arguments are a protocol error. Regenerate it with
// "go generate ./internal/testsupport/toolstest/...".
package kitchen0618

//go:generate go run ../../../../cmd/mcpgen tools --tools ../../../../generator/tools/testdata/kitchen.json --import github.com/mcpgen/mcpgen/generated/mcp20250618 --package kitchen0618 --out .
