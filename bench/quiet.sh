#!/usr/bin/env bash
# The stdio figures of issue 32 on a quiet multi-core machine, in one call.
#
# The headline ratios (mcpgen ÷ mcp-go, ÷ go-sdk; the round trip ÷ the
# four-wake-up floor; wrapped writers ÷ raw files) are meant to come from an
# idle machine with many cores, where every goroutine wake-up crosses cores:
# the shared 2-core CI host under load measures something else (see
# BENCHMARKS.md, "Which machine"). Such a machine (DEVELOPERS.md, "A quiet
# machine") reaches nothing outside itself, so this script has two halves:
#
#   bench/quiet.sh build [BASE [HEAD]]   here, with Go and the module cache:
#       builds static binaries (CGO_ENABLED=0) of cmd/mcpbench and of the
#       runtime/jsonrpc2 benchmarks for two revisions (default: the merge
#       base with main, and the work tree) into bench/bin/quiet/ (ignored by
#       git; about 45 MB stripped: carry it to the machine, whose carry
#       limit is 64 MiB).
#   bench/quiet.sh run                   there, with nothing but the binaries:
#       for each revision and GOMAXPROCS 2, 4 and 16, runs
#       `mcpbench -short -wrapped -count 3 -run '^(echo|cancel)$'` (stdio:
#       echo at 1 and 16 callers, raw and wrapped writers, both floors,
#       cancel latency and cancel under load, every peer at both protocol
#       revisions) and the in-package round-trip and floor benchmarks,
#       then packs everything
#       with the machine's description into $OUT/quiet-<date>.tar.gz
#       (OUT defaults to bench/bin/quiet/out).
#
# About 20-30 s per mcpbench run on 16 idle cores, so about 4 minutes in all;
# QUIET_PROCS and QUIET_RUN narrow it (QUIET_RUN=echo: the echo tables only).
set -euo pipefail
cd "$(dirname "$0")"
bin=bin/quiet

build() {
  local base=${1:-} head=${2:-}
  if [ -z "$base" ]; then
    base=$(git merge-base HEAD main 2>/dev/null || git rev-parse HEAD~1)
  fi
  rm -rf "$bin" && mkdir -p "$bin"
  local tmp
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  for side in base head; do
    local rev src
    if [ "$side" = base ]; then rev=$base; else rev=${head:-worktree}; fi
    if [ "$rev" = worktree ]; then
      src=$(cd .. && pwd)
    else
      src=$tmp/$side
      mkdir -p "$src"
      git -C .. archive "$rev" | tar -x -C "$src"
      # The floors and wrapped-writer benchmarks of issue 32, so both
      # revisions run the same in-package benchmarks.
      cp ../runtime/jsonrpc2/bench_stdio_test.go "$src/runtime/jsonrpc2/" 2>/dev/null || true
    fi
    local id
    if [ "$rev" = worktree ]; then id="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- .. || echo -dirty)"; else id=$(git rev-parse --short "$rev"); fi
    echo "$side $rev $id" >>"$bin/revisions.txt"
    (cd "$src/bench" && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$OLDPWD/$bin/mcpbench-$side" ./cmd/mcpbench)
    (cd "$src" && CGO_ENABLED=0 go test -c -trimpath -ldflags="-s -w" -o "$OLDPWD/$bin/jsonrpc2-$side.test" ./runtime/jsonrpc2)
  done
  go version >"$bin/go-version.txt"
  cp quiet.sh "$bin/"
  du -sh "$bin"
}

run() {
  local out=${OUT:-$bin/out}
  local stamp
  stamp=$(date -u +%Y%m%dT%H%M%SZ)
  local dir
  dir=$(mktemp -d)/quiet-$stamp
  mkdir -p "$dir"
  {
    echo "date: $(date -u)"
    echo "cores: $(nproc)"
    echo "load: $(cat /proc/loadavg 2>/dev/null)"
    grep -m1 'model name' /proc/cpuinfo 2>/dev/null || true
    uname -a
    cat "$bin/revisions.txt" "$bin/go-version.txt" 2>/dev/null
    command -v nvidia-smi >/dev/null && nvidia-smi -L || true
  } >"$dir/machine.txt"
  local sections=${QUIET_RUN:-echo|cancel}
  local wrapped=""
  # -wrapped (every peer's wrapped-writers row) where the binary has it.
  wrappedFor() {
    local usage
    usage=$("$bin/mcpbench-$1" -h 2>&1 || true)
    case $usage in *-wrapped*) echo -wrapped ;; esac
  }
  for procs in ${QUIET_PROCS:-2 4 16}; do
    for side in base head; do
      echo "== GOMAXPROCS $procs, $side" >&2
      wrapped=$(wrappedFor "$side")
      # -run '^(…)$': the stdio sections only, not http-echo/http-cancel.
      GOMAXPROCS=$procs "$bin/mcpbench-$side" -short -count 3 -run "^($sections)\$" $wrapped \
        >"$dir/mcpbench-$side-p$procs.md" 2>"$dir/mcpbench-$side-p$procs.err" || echo "exit $?" >>"$dir/mcpbench-$side-p$procs.err"
      GOMAXPROCS=$procs "$bin/jsonrpc2-$side.test" -test.run XXX -test.benchmem -test.count 3 -test.benchtime 300ms \
        -test.bench 'RoundTripOSPipe$|RoundTripOSPipe16Callers$|RoundTripOSPipeWrapped$|PipeFloor|FourWakeFloor' \
        >"$dir/jsonrpc2-$side-p$procs.txt" 2>&1 || echo "exit $?" >>"$dir/jsonrpc2-$side-p$procs.txt"
    done
  done
  echo "load after: $(cat /proc/loadavg 2>/dev/null)" >>"$dir/machine.txt"
  mkdir -p "$out"
  tar -czf "$out/quiet-$stamp.tar.gz" -C "$(dirname "$dir")" "quiet-$stamp"
  echo "$out/quiet-$stamp.tar.gz"
}

case "${1:-}" in
build) shift; build "$@" ;;
run) run ;;
*) echo "usage: bench/quiet.sh build [BASE [HEAD]] | bench/quiet.sh run" >&2; exit 2 ;;
esac
