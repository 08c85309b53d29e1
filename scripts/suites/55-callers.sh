#!/usr/bin/env bash
# Typed callers for servers nobody here wrote (issue 34): interop/callers
# is its own module with, per server, the snapshot "mcpgen tools
# --from-server" took and the package it generated. Against the live
# servers (the npm reference servers server-everything, server-filesystem
# and server-memory at the versions package.json pins, a go-sdk server and a
# TypeScript SDK server with tools of their own) the tests run the drift
# check (--check-server), snapshot again and compare bytes, and call every
# tool through the typed Caller with valid and with rejected arguments.
# Node 22 from npm's node@22, as the other suites install it.
# docs/typed-callers.md's two Go blocks are compiled and run by
# TestDocsExample here (cmd/mcpgen's README test checks these two lines):
#   <!-- readme: suite scripts/suites/55-callers.sh memory/generate.go -->
#   <!-- readme: suite scripts/suites/55-callers.sh cmd/remember/main.go -->
set -euo pipefail
cd "$(dirname "$0")/../../interop/callers"

if ! command -v node >/dev/null || [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 18 ]; then
  npm install --no-audit --no-fund --prefix .node node@22 >/dev/null
  export PATH="$PWD/.node/node_modules/node/bin:$PATH"
fi
# package-lock.json pins the servers' own dependencies too.
npm ci --no-audit --no-fund --silent
go test -count=1 ./...
