#!/usr/bin/env bash
# Short fuzz runs of "mcpgen tools": the generator on arbitrary tools files,
# and the code it generates (internal/testsupport/toolstest/kitchen, from the kitchen
# tools file): the tools/call dispatcher and an argument decoder, each
# checked against jsonschema/v5.
# Bounded: about 10 s per target.
set -euo pipefail
# Fuzz budgets are execution counts (-fuzztime Nx), not durations: with a
# duration, Go 1.26's fuzz coordinator can fail a clean run with "context
# deadline exceeded" at the deadline (golang/go#75804, fixed in Go 1.27).
cd "$(dirname "$0")/../.."
# MCPGEN_FUZZ_LONG=1: four times the executions (CI keeps to a short budget).
scale=1
[ "${MCPGEN_FUZZ_LONG:-}" = 1 ] && scale=4
go test -run '^$' -fuzz '^FuzzCallTool$' -fuzztime "$((100000 * scale))x" ./internal/testsupport/toolstest/kitchen
go test -run '^$' -fuzz '^FuzzDecodeSearchItemsArgs$' -fuzztime "$((50000 * scale))x" ./internal/testsupport/toolstest/kitchen
go test -run '^$' -fuzz '^FuzzGenerate$' -fuzztime 1000x ./generator/tools
go test -run '^$' -fuzz '^FuzzWildSchema$' -fuzztime "$((10000 * scale))x" ./generator/tools
