#!/usr/bin/env bash
# go.mod and go.sum are what "go mod tidy" makes them: every direct
# dependency is listed without "// indirect", nothing is missing or extra.
# "go mod tidy -diff" (Go 1.23+) changes nothing and fails with the diff.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! out=$(go mod tidy -diff 2>&1); then
  echo "$out"
  echo "go.mod/go.sum are not tidy: run go mod tidy and commit"
  exit 1
fi
echo "go.mod and go.sum are tidy"
