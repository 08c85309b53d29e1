// Package interophttp holds interoperability tests of the mcpgen Streamable
// HTTP transport (runtime/streamhttp) against real peers: go-sdk v1.8 as
// client and server, and the TypeScript SDK. It is its own module so that
// the main module never depends on a peer SDK. The side-by-side benchmarks
// against go-sdk (and mcp-go) live in the bench module (bench/http.go,
// BenchmarkHTTP* in bench/bench_test.go, cmd/mcpbench).
package interophttp
