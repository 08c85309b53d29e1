#!/usr/bin/env bash
# otel/ is the separate module github.com/mcpgen/mcpgen/otel (package
# mcpotel): OpenTelemetry spans and metrics over the runtime's interceptor
# and Observer seams, so the main module stays standard-library only. Its
# go.mod must be tidy; its tests run a client and a server over stdio (a
# pipe, and two processes: TestStdioSubprocess re-executes the test binary
# as the server, which writes its spans to a file at exit) and Streamable
# HTTP (httptest) with the SDK's in-memory exporters and check one trace
# across both, a cancelled call included. About 10 s
# once the modules are in the cache; bounded at 2 minutes.
set -euo pipefail
cd "$(dirname "$0")/../../otel"
if ! out=$(go mod tidy -diff 2>&1); then
  echo "$out"
  echo "otel/go.mod or go.sum is not tidy: run go mod tidy in otel/ and commit"
  exit 1
fi
go build ./...
go vet ./...
timeout 120 go test -race -count=1 ./...
echo "otel: tidy, build, vet and tests passed"
