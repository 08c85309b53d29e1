#!/usr/bin/env bash
# Interop of runtime/streamhttp with go-sdk v1.8 (client and server, both
# eras), in the separate module interop/http so the main module stays free
# of peer SDKs. Loopback only; bounded in time.
set -euo pipefail
cd "$(dirname "$0")/../../interop/http"
timeout 240 go test -race -count=1 -timeout 180s ./...
