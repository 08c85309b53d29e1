#!/usr/bin/env bash
# Issue 11: short fixed-size fuzz runs of the stdio framing and the
# connection router (the hostile-peer subprocess tests and the soak test run
# in short form inside `go test ./e2e`; their full size is
# `go test ./e2e -run Hostile -hostile.long`).
# Issue 35: the HTTP body flood and slowloris tests run inside
# `go test -race ./...` (runtime/streamhttp TestBodyFloodServesSmallRequests,
# TestSlowlorisHeaders; e2e TestHTTPHostileBodies); the slowloris test at
# NewHTTPServer's full 10 s ReadHeaderTimeout is
# `MCPGEN_HOSTILE_FULL=1 go test ./runtime/streamhttp -run Slowloris`.
set -euo pipefail
# Fuzz budgets are execution counts (-fuzztime Nx), not durations: with a
# duration, Go 1.26's fuzz coordinator can fail a clean run with "context
# deadline exceeded" at the deadline (golang/go#75804, fixed in Go 1.27).
cd "$(dirname "$0")/../.."
go test -run '^$' -fuzz '^FuzzStdioFraming$' -fuzztime 200000x ./runtime/jsonrpc2
go test -run '^$' -fuzz '^FuzzConnRoute$' -fuzztime 300000x ./runtime/jsonrpc2
# Issue 22: the Tasks extension's decoders against encoding/json (the core
# packages' codec fuzz runs in 60-bench.sh).
go test -run '^$' -fuzz '^FuzzCodecVsEncodingJSON$' -fuzztime 50000x ./generated/mcp20260728/exttasks
