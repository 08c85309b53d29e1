#!/usr/bin/env bash
# Issue 11: short fixed-time fuzz runs of the stdio framing and the
# connection router (the hostile-peer subprocess tests and the soak test run
# in short form inside `go test ./e2e`; their full size is
# `go test ./e2e -run Hostile -hostile.long`).
set -euo pipefail
cd "$(dirname "$0")/../.."
go test -run '^$' -fuzz '^FuzzStdioFraming$' -fuzztime 10s ./runtime
go test -run '^$' -fuzz '^FuzzConnRoute$' -fuzztime 10s ./runtime
