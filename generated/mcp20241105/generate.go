package mcp20241105

// The bindings in this directory are generated from the official schema of
// MCP revision 2024-11-05; regenerate them with "go generate ./generated/...".

//go:generate go run -tags mcpgen_bootstrap ../../cmd/mcpgen generate --revision 2024-11-05 --package mcp20241105 --out .
