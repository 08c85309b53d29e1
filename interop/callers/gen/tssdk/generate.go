// Package tssdk is the typed caller mcpgen generated from a snapshot of a
// server it did not write (see ../../callers_test.go).
package tssdk

//go:generate go tool mcpgen tools --tools snapshot.json --import github.com/mcpgen/mcpgen/generated/mcp20260728 --out .
