#!/usr/bin/env bash
# Short fuzz runs of "mcpgen tools": the generator on arbitrary tools files,
# and the code it generates (the kitchen golden package): the tools/call
# dispatcher and an argument decoder, each checked against jsonschema/v5.
# Bounded: 10 s per target.
set -euo pipefail
cd "$(dirname "$0")/../.."
for target in FuzzCallTool FuzzDecodeSearchItemsArgs; do
  go test -run '^$' -fuzz "^${target}\$" -fuzztime 10s ./generator/tools/internal/kitchen
done
go test -run '^$' -fuzz '^FuzzGenerate$' -fuzztime 10s ./generator/tools
