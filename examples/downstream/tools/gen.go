// Package tools holds this module's typed tools (the quickstart's add and
// slow), generated from tools.json by mcpgen against mcpgen's own bindings
// of 2026-07-28. Every other Go file in this directory is generated.
package tools

//go:generate go tool mcpgen tools --tools tools.json --import github.com/mcpgen/mcpgen/generated/mcp20260728 --package tools --out .
