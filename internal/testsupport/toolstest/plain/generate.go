// Package plain is the tools package "mcpgen tools" generates from
// generator/tools/testdata/plain.json: schemas the generated fast binders
// handle. Its tests check that a fast binder accepts only what the bind
// function accepts, with the same value; regenerate it with
// "go generate ./internal/testsupport/toolstest/...".
package plain

//go:generate go run ../../../../cmd/mcpgen tools --tools ../../../../generator/tools/testdata/plain.json --import github.com/mcpgen/mcpgen/generated/mcp20260728 --package plain --out .
