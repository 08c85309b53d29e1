package mcp20260728

// The bindings in this directory are generated from the official schema of
// MCP revision 2026-07-28; regenerate them with "go generate ./generated/...".

//go:generate go run -tags mcpgen_bootstrap ../../cmd/mcpgen generate --revision 2026-07-28 --package mcp20260728 --out .
