#!/usr/bin/env bash
# The bench module (mcpgen vs go-sdk vs mcp-go, every peer pinned to the same
# revision, 2025-11-25 and 2026-07-28, over stdio and Streamable HTTP, each
# through its documented path). `go test -short` checks that every peer
# connects at every revision, negotiates exactly it, echoes and cancels
# (seconds). Then the ratio gate: `mcpbench -short` measures every table
# briefly (3 interleaved rounds; the latency targets' rows 7 rounds of 1,000
# samples, the peers in turn, runtime.GC() before each batch, the target
# the median of per-round ratios; every batch, rates too, after
# runtime.GC(); 108-113 s on 2 shared cores, the whole suite 217 s) and fails when
# one of issue 25's targets is missed by more than the noise band measured
# in bench/notes.md ("Noise band"), or when a known miss
# (bench/known-misses.txt, each with a one-line why that the table shows in its row, and its profile in notes.md) gets worse
# than its recorded level by more than that band. Figures from CI are not
# recorded: BENCHMARKS.md is written by a full run,
# `cd bench && go run ./cmd/mcpbench -write`. The recorded levels are the
# shared 2-core host's until a quiet multi-core run is done (bench/quiet.sh,
# DEVELOPERS.md); issue 32's targets (wrapped writers, the four-wake-up
# floor: about 4 s of this suite) are reported and not gated until then.
# Then short fixed-size runs of the codec's differential fuzz targets, and of
# each revision's runtime cancellation differential (a Conn holding the
# generated Policy against jsonschema/v5).
set -euo pipefail
# Fuzz budgets are execution counts (-fuzztime Nx), not durations: with a
# duration, Go 1.26's fuzz coordinator can fail a clean run with "context
# deadline exceeded" at the deadline (golang/go#75804, fixed in Go 1.27).
cd "$(dirname "$0")/../.."

# The noise band (a fraction of each target) is measured and documented in
# bench/notes.md; change both together. p99 targets get twice it (90 %):
# measured 2026-11-25 22:01-22:24 UTC on the shared 2 cores (8 runs), the
# closed-stream p99 ratios now stay within +20 % of their median run to run
# (÷ go-sdk 0.21-0.30×, ÷ mcp-go 0.87-1.09×; with the old 3 × 150 pooled
# samples 0.09-0.36× and 0.43-1.14× in 10 runs, and one CI run's 1.37× was a
# host stall in one batch), stdio cancel p99 within +70-80 % (0.17-0.46× at
# 2025-11-25, 0.15-0.36× at 2026-07-28): notes.md, "p99 targets: what the
# 1.37× was".
BENCH_NOISE_BAND="${BENCH_NOISE_BAND:-0.45}"
(
  cd bench
  go mod download
  go vet ./...
  go test -short -count=1 -timeout 300s ./...
  go run ./cmd/mcpbench -short -count 3 -gate "$BENCH_NOISE_BAND" -known known-misses.txt | sed -n "1,/^## echo/p"
)

# CI's fuzz budget is short and fixed (the whole of CI must stay under 20
# minutes on 2 cores); MCPGEN_FUZZ_LONG=1 runs four times the executions and
# the cancellation decoder of every revision, not only the two newest.
scale=1
revs="mcp20251125 mcp20260728"
if [ "${MCPGEN_FUZZ_LONG:-}" = 1 ]; then
  scale=4
  revs="mcp20241105 mcp20250326 mcp20250618 mcp20251125 mcp20260728"
fi
for target in FuzzValue FuzzValidatorSkip FuzzDecodeObject FuzzDecodeInto FuzzAppendString FuzzAppendValue FuzzDiscriminator; do
  go test -run XXX -fuzz "^${target}\$" -fuzztime "$((75000 * scale))x" ./runtime/genimpl
done
go test -run XXX -fuzz '^FuzzCodecVsEncodingJSON$' -fuzztime "$((5000 * scale))x" ./generated/mcp20251125
for rev in $revs; do
  go test -run XXX -fuzz '^FuzzCancelledRuntime$' -fuzztime "$((10000 * scale))x" "./generated/$rev"
done
# The session client's _meta splices against the map edits they replace.
go test -run XXX -fuzz '^FuzzSpliceMeta$' -fuzztime "$((20000 * scale))x" ./runtime/session
# Load's keyword checks against the meta-schemas: whatever Load accepts,
# jsonschema/v5 compiles.
go test -run XXX -fuzz '^FuzzLoadAcceptsOnlyValid$' -fuzztime "$((50000 * scale))x" ./schema
