#!/usr/bin/env bash
# examples/downstream is a separate module that uses mcpgen as a tool, the way
# docs/bindings.md ("Generating your own bindings") says. Regenerate its bindings,
# fail on drift (go generate changed committed files, or mcpgen check
# disagrees), then build, vet and test it. Modules come from the proxy.
set -euo pipefail
cd "$(dirname "$0")/../../examples/downstream"
go generate ./...
go tool mcpgen check --revision 2025-11-25 --package mcp --dir mcp
if command -v git >/dev/null && git rev-parse --git-dir >/dev/null 2>&1; then
  if ! git diff --exit-code -- . ; then
    echo "examples/downstream: go generate changed committed files (above): regenerate and commit"
    exit 1
  fi
  untracked=$(git ls-files --others --exclude-standard -- .)
  if [ -n "$untracked" ]; then
    echo "examples/downstream: go generate wrote files that are not committed: $untracked"
    exit 1
  fi
fi
go build ./...
go vet ./...
go test -race ./...
echo "examples/downstream: generate, check, build, vet and test passed"
