//go:build mcpgen_debugstats

package main

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// debugStatsMethod is answered only by a server built with
// -tags mcpgen_debugstats, which e2e's soak and hostile tests do to watch
// the server process from outside: its goroutines and its memory must come
// back to their post-initialize baseline once a client's work has settled.
// The default build has no such method, in the example or in the library.
const debugStatsMethod = "mcpgen/debug/stats"

// debugStats is the method's result. Memory is measured after a collection
// and after returning freed memory to the OS (debug.FreeOSMemory), so that
// it shows what the process still holds rather than what the collector has
// not yet got round to: heap in use, and the resident set from
// /proc/self/status (0 where there is no /proc).
type debugStats struct {
	Goroutines int    `json:"goroutines"`
	HeapInuse  uint64 `json:"heapInuse"`
	RSS        int64  `json:"rss"`
}

func debugOptions() []session.ServerOption {
	return []session.ServerOption{session.WithHandler(debugStatsMethod,
		func(context.Context, *jsonrpc2.Request) (any, error) {
			debug.FreeOSMemory() // runs a collection first
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			return debugStats{Goroutines: runtime.NumGoroutine(), HeapInuse: ms.HeapInuse, RSS: selfRSS()}, nil
		})}
}

// selfRSS is VmRSS from /proc/self/status, in bytes, or 0.
func selfRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range bytes.Split(b, []byte("\n")) {
		if f := bytes.Fields(l); len(f) >= 2 && string(f[0]) == "VmRSS:" {
			kb, _ := strconv.ParseInt(string(f[1]), 10, 64)
			return kb << 10
		}
	}
	return 0
}
