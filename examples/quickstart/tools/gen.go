// Package tools holds the quickstart's typed tools, generated from
// tools.json by "mcpgen tools": AddArgs, SlowArgs and their results, the
// Tools interface a server implements, NewHandler (tools/list and
// tools/call for the server) and NewCaller (typed calls for the client).
// In your module the line is
// "//go:generate go tool mcpgen tools --tools tools.json --import github.com/mcpgen/mcpgen/generated/mcp20260728 --package tools --out .".
package tools

//go:generate go run ../../../cmd/mcpgen tools --tools tools.json --import github.com/mcpgen/mcpgen/generated/mcp20260728 --package tools --out .
