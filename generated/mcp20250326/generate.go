package mcp20250326

// The bindings in this directory are generated from the official schema of
// MCP revision 2025-03-26; regenerate them with "go generate ./generated/...".

//go:generate go run -tags mcpgen_bootstrap ../../cmd/mcpgen generate --revision 2025-03-26 --package mcp20250326 --out .
