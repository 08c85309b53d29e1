// Package kitchen is the tools package "mcpgen tools" generates from
// generator/tools/testdata/kitchen.json (every supported schema keyword)
// for the bindings of 2025-11-25, with a Handler20260728 for those of
// 2026-07-28. Its tests run the generated code; regenerate it with
// "go generate ./internal/testsupport/toolstest/...".
package kitchen

//go:generate go run ../../../../cmd/mcpgen tools --tools ../../../../generator/tools/testdata/kitchen.json --import github.com/mcpgen/mcpgen/generated/mcp20251125 --import github.com/mcpgen/mcpgen/generated/mcp20260728 --package kitchen --out .
