#!/usr/bin/env bash
# Interop of runtime/streamhttp with real peers, in the separate module
# interop/http (the main module stays free of peer SDKs):
#   - go-sdk v1.8, client and server, both eras (Go modules);
#   - the TypeScript SDK (@modelcontextprotocol/sdk 1.32.2), client and
#     server, legacy era, and its 2.x line (@modelcontextprotocol/server
#     2.4.0, both eras), on Node 22 from npm's node@22 package.
# era_test.go runs streamhttp.Dial + the generated Connect (defaults) of
# each era's bindings against every server here, cancellation included.
# npm installs land in the gitignored .cache/. Loopback only; bounded.
set -euo pipefail
cd "$(dirname "$0")/../.."
cache=$PWD/.cache
node=$cache/node22/node_modules/node/bin/node
env=()
if command -v npm >/dev/null; then
	if [[ ! -x $node ]]; then
		timeout 300 npm install --silent --no-audit --no-fund --prefix "$cache/node22" node@22
	fi
	if [[ ! -d $cache/ts-sdk/node_modules/@modelcontextprotocol/sdk ]]; then
		timeout 300 npm install --silent --no-audit --no-fund --prefix "$cache/ts-sdk" @modelcontextprotocol/sdk@1.32.2 zod@4
	fi
	if [[ ! -d $cache/ts-sdk2/node_modules/@modelcontextprotocol/server ]]; then
		timeout 300 npm install --silent --no-audit --no-fund --prefix "$cache/ts-sdk2" @modelcontextprotocol/server@2.4.0 zod@4
	fi
	env=(MCPGEN_NODE="$node" MCPGEN_TS_SDK="$cache/ts-sdk" MCPGEN_TS_SDK2="$cache/ts-sdk2")
else
	echo "40-interop-http: SKIPPING the TypeScript SDK tests: npm not found (go-sdk tests still run)" >&2
fi
cd interop/http
env "${env[@]}" timeout 240 go test -race -count=1 -timeout 180s ./...
