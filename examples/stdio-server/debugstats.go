//go:build mcpgen_debugstats

package main

import (
	"context"
	"runtime"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// debugStatsMethod is answered only by a server built with
// -tags mcpgen_debugstats, which e2e's soak test does to watch the server
// process from outside: its goroutines must come back to their
// post-initialize baseline once a client's work has settled. The default
// build has no such method, in the example or in the library.
const debugStatsMethod = "mcpgen/debug/stats"

func debugOptions() []session.ServerOption {
	return []session.ServerOption{session.WithHandler(debugStatsMethod,
		func(context.Context, *jsonrpc2.Request) (any, error) {
			return map[string]any{"goroutines": runtime.NumGoroutine()}, nil
		})}
}
