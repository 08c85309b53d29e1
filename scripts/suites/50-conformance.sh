#!/usr/bin/env bash
# The official MCP conformance suite (@modelcontextprotocol/conformance
# 0.1.16): every server scenario against examples/conformance-server, and
# the client scenarios without OAuth against examples/conformance-client.
# Node 22 comes from npm's node@22 package (the machine's node may be
# older); both land in the gitignored .cache/. Loopback only.
#
# Exits non-zero if any scenario fails other than those listed in
# scripts/suites/conformance-expected-failures.yaml (with the reason).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
cache=$root/.cache
version=0.1.16
node=$cache/node22/node_modules/node/bin/node
cli=$cache/conformance/node_modules/@modelcontextprotocol/conformance/dist/index.js

if ! command -v npm >/dev/null; then
	echo "50-conformance: SKIPPED: npm not found (the suite and Node 22 come from npm)" >&2
	exit 0
fi
if [[ ! -x $node ]]; then
	timeout 300 npm install --silent --no-audit --no-fund --prefix "$cache/node22" node@22
fi
if [[ ! -f $cli ]] || ! grep -q "\"version\": \"$version\"" "$(dirname "$cli")/../package.json"; then
	timeout 300 npm install --silent --no-audit --no-fund --prefix "$cache/conformance" "@modelcontextprotocol/conformance@$version"
fi

bin=$(mktemp -d)
pid=
trap 'kill $pid 2>/dev/null || true; rm -rf "$bin"' EXIT
go build -o "$bin/conformance-server" ./examples/conformance-server
go build -o "$bin/conformance-client" ./examples/conformance-client
# Two runs: responses as JSON where possible (the default) and always SSE.
rc=0
for mode in json sse; do
	port=${MCPGEN_CONFORMANCE_PORT:-39217}
	flags=()
	if [[ $mode == sse ]]; then
		port=$((port + 1))
		flags=(--sse)
	fi
	"$bin/conformance-server" --addr "127.0.0.1:$port" "${flags[@]}" 2>"$bin/server-$mode.log" &
	pid=$!
	for _ in $(seq 100); do
		if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
		sleep 0.1
	done
	set +e
	timeout 120 "$node" "$cli" server --url "http://127.0.0.1:$port/mcp" \
		--expected-failures "$root/scripts/suites/conformance-expected-failures.yaml" \
		-o "$bin/results-$mode" >"$bin/run-$mode.log" 2>&1
	r=$?
	set -e
	echo "== conformance $version, server scenarios, responses: $mode (exit $r)"
	sed -n '/SUMMARY/,$p' "$bin/run-$mode.log"
	if [[ $r -ne 0 ]]; then
		rc=$r
		tail -n 80 "$bin/run-$mode.log"
	fi
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
done
# The client scenarios that need no OAuth, against examples/conformance-client.
for scenario in initialize tools_call elicitation-sep1034-client-defaults sse-retry; do
	set +e
	timeout 60 "$node" "$cli" client --command "$bin/conformance-client" --scenario "$scenario" \
		--expected-failures "$root/scripts/suites/conformance-expected-failures.yaml" >"$bin/client-$scenario.log" 2>&1
	r=$?
	set -e
	echo "== conformance $version, client scenario $scenario (exit $r): $(grep -E '^Passed:' "$bin/client-$scenario.log" | tail -1)"
	if [[ $r -ne 0 ]]; then
		rc=$r
		tail -n 40 "$bin/client-$scenario.log"
	fi
done
exit $rc
