#!/usr/bin/env bash
# The bench module (mcpgen vs go-sdk vs mcp-go, stdio, in memory and
# Streamable HTTP) in short mode, so the harness and the peers' APIs it calls
# cannot rot: cmd/mcpbench's TestShort writes the whole report with every
# measurement brief and fails if any peer's breaks (~20 s). Then short
# fixed-size runs of the codec's differential fuzz targets, and of each
# revision's runtime cancellation differential (a Conn holding the generated
# Policy against jsonschema/v5). Figures from CI
# are not recorded: BENCHMARKS.md is written by a full run,
# `cd bench && go run ./cmd/mcpbench -out BENCHMARKS.md`.
set -euo pipefail
# Fuzz budgets are execution counts (-fuzztime Nx), not durations: with a
# duration, Go 1.26's fuzz coordinator can fail a clean run with "context
# deadline exceeded" at the deadline (golang/go#75804, fixed in Go 1.27).
cd "$(dirname "$0")/../.."

(
  cd bench
  go mod download
  go vet ./...
  go test -count=1 -timeout 300s ./...
)

for target in FuzzValue FuzzValidatorSkip FuzzDecodeObject FuzzDecodeInto FuzzAppendString FuzzAppendValue FuzzDiscriminator; do
  go test -run XXX -fuzz "^${target}\$" -fuzztime 150000x ./runtime/genimpl
done
go test -run XXX -fuzz '^FuzzCodecVsEncodingJSON$' -fuzztime 5000x ./generated/mcp20251125
for rev in mcp20241105 mcp20250326 mcp20250618 mcp20251125 mcp20260728; do
  go test -run XXX -fuzz '^FuzzCancelledRuntime$' -fuzztime 10000x "./generated/$rev"
done
