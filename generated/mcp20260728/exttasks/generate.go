package exttasks

// The bindings of the Tasks extension (io.modelcontextprotocol/tasks,
// official/ext-tasks) composed with revision 2026-07-28: its copies of core
// definitions are the types of the parent package mcp20260728. Regenerate
// them with "go generate ./generated/...".

//go:generate go run -tags mcpgen_bootstrap ../../../cmd/mcpgen generate --extension tasks --package exttasks --out .
