#!/usr/bin/env bash
# No committed file is over 1 MiB, and none is a compiled binary (ELF,
# Mach-O, PE, wasm): build outputs belong in .gitignore, not in the
# repository (issue 36 found two 13 MB conformance binaries at its root).
# The largest legitimate files, the official schemas, are under 200 KB.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! git rev-parse --git-dir >/dev/null 2>&1; then
  echo "not a git checkout: the committed-files check needs git ls-files"
  exit 1
fi
# tools/cmd/committedfiles does the reading (one process, not three per file).
root=$PWD
git ls-files -z | (cd tools && go run ./cmd/committedfiles -C "$root")
