#!/usr/bin/env bash
# Wire interop on stdio with real peers as subprocesses: go-sdk v1.8's
# client against examples/stdio-server (2026-07-28 through server/discover,
# and 2025-11-25 when forced), and mcpgen's dual-era client against the
# TypeScript SDK's server (legacy: the probe fails, initialize follows).
# interop/stdio is its own module; the TypeScript SDK is installed into its
# gitignored node_modules.
set -euo pipefail
cd "$(dirname "$0")/../../interop/stdio"

if ! command -v node >/dev/null || [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 18 ]; then
  # The TypeScript SDK needs Node >= 18; npm's node@22 package brings one.
  npm install --no-audit --no-fund --prefix .node node@22 >/dev/null
  export PATH="$PWD/.node/node_modules/node/bin:$PATH"
fi
npm install --no-audit --no-fund --silent
go test -race -count=1 ./...
