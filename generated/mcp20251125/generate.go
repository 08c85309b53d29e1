package mcp20251125

// The bindings in this directory are generated from the official schema of
// MCP revision 2025-11-25; regenerate them with "go generate ./generated/...".

//go:generate go run -tags mcpgen_bootstrap ../../cmd/mcpgen generate --revision 2025-11-25 --package mcp20251125 --out .
