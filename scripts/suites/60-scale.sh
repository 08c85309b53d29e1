#!/usr/bin/env bash
# Scale: the official 2025-11-25 schema plus 1,000 extra definitions of 50
# properties each generates within 10 s of CPU and 500 MB (TestScale, in
# its own process), and a short run of the load benchmark shows linear
# growth over 100 / 400 / 1,600 extra definitions (ns/op, B/op).
set -euo pipefail
cd "$(dirname "$0")/../.."
MCPGEN_SCALE=1 go test -count=1 -run '^TestScale$' -v ./cmd/mcpgen | grep -E '^(=== RUN|--- |ok|FAIL|PASS)|scale_test.go'
go test -run '^$' -bench '^BenchmarkLoadScale$' -benchtime 1x -benchmem ./schema | grep -E '^(Benchmark|ok|FAIL)'
