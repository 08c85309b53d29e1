// Package wild is the typed-tools package generated from the snapshot
// generator/tools/testdata/wild.json: one tool per JSON Schema construct
// found in servers' schemas (allOf, oneOf, $ref/$defs, recursion, mixed
// enums, additionalProperties schemas, formats, prefixItems, draft-07),
// so its test generates, compiles and round-trips each of them.
package wild

//go:generate go run ../../../../cmd/mcpgen tools --tools ../../../../generator/tools/testdata/wild.json --import github.com/mcpgen/mcpgen/generated/mcp20251125 --package wild --out .
