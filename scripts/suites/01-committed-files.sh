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
limit=$((1024 * 1024))
bad=0
while IFS= read -r -d '' f; do
  [ -f "$f" ] || continue # deleted in the work tree, or a submodule
  size=$(wc -c <"$f")
  if [ "$size" -gt "$limit" ]; then
    echo "$f: $size bytes, over the 1 MiB limit for a committed file"
    bad=1
  fi
  magic=$(head -c 4 "$f" | od -An -tx1 | tr -d ' \n')
  case "$magic" in
    7f454c46) kind="an ELF executable" ;;
    cffaedfe|cefaedfe|feedfacf|feedface|cafebabe) kind="a Mach-O executable" ;;
    0061736d) kind="a WebAssembly module" ;;
    4d5a*) kind="a PE (Windows) executable" ;;
    *) kind="" ;;
  esac
  if [ -n "$kind" ]; then
    echo "$f: $kind; build outputs are not committed (add it to .gitignore)"
    bad=1
  fi
done < <(git ls-files -z)
if [ "$bad" -ne 0 ]; then
  echo "committed files: fix the files above"
  exit 1
fi
echo "committed files: none over 1 MiB, no binaries"
