// Package interophttp holds interoperability tests and benchmarks of the
// mcpgen Streamable HTTP transport (runtime/streamhttp) against real peers:
// go-sdk v1.8 as client and server. It is its own module so that the main
// module never depends on a peer SDK.
package interophttp
