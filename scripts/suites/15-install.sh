#!/usr/bin/env bash
# The README's install recipes, on fresh modules beside nothing but this
# clone (issue 36). The local-clone recipe is the README block annotated
# "readme: suite scripts/suites/15-install.sh", run line by line in a new
# module whose ../mcpgen is this repository; the module then builds the
# quickstart the way the README shows it (tools.json, the go:generate line,
# the server), and the quickstart's client gets its answers from it. The
# published recipe (go get -tool ...@v0.1.0) cannot be fetched here (no
# network beyond the proxy, and CI runs before the tag exists), so it is
# checked for syntax only: the go command must accept the line and fail
# only on the module lookup that GOPROXY=off forbids.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# block ANNOTATION: the command lines of the README block after it.
block() {
  awk -v ann="$1" '
    index($0, ann) { found = 1; next }
    found && /^```/ { if (inside) exit; inside = 1; next }
    inside && $0 !~ /^#/ && NF { print }
  ' "$root/README.md"
}

local_recipe="$(block '<!-- readme: suite scripts/suites/15-install.sh local -->')"
published_recipe="$(block '<!-- readme: suite scripts/suites/15-install.sh published -->')"
if [ -z "$local_recipe" ] || [ -z "$published_recipe" ]; then
  echo "README.md: no install blocks annotated for scripts/suites/15-install.sh"
  exit 1
fi

# The local clone: ../mcpgen is this repository.
ln -s "$root" "$tmp/mcpgen"
mkdir "$tmp/first"
cd "$tmp/first"
go mod init example.com/first >/dev/null 2>&1
while IFS= read -r line; do
  echo "+ $line"
  bash -c "$line"
done <<<"$local_recipe"
grep -q '^tool github.com/mcpgen/mcpgen/cmd/mcpgen' go.mod || { echo "go.mod has no tool directive after the recipe:"; cat go.mod; exit 1; }
go tool mcpgen version

# The quickstart, as the README shows it: tools.json and the go:generate
# line in tools/, the server in main.go.
mkdir tools
cp "$root/examples/quickstart/tools/tools.json" tools/
cp "$root/examples/downstream/tools/gen.go" tools/
sed 's|github.com/mcpgen/mcpgen/examples/quickstart/tools|example.com/first/tools|' \
  "$root/examples/quickstart/stdio-server/main.go" >main.go
go generate ./...
go mod tidy
go build ./...
go vet ./...
go build -o "$tmp/server" .
(cd "$root" && go build -o "$tmp/client" ./examples/quickstart/client)
out="$("$tmp/client" "$tmp/server")"
echo "$out"
grep -q '^add: 2 + 3 = 5$' <<<"$out" || { echo "the quickstart built by the local-clone recipe did not answer add"; exit 1; }

# The published recipe: syntax only (see above).
mkdir "$tmp/published"
cd "$tmp/published"
go mod init example.com/published >/dev/null 2>&1
while IFS= read -r line; do
  echo "+ $line (GOPROXY=off: syntax only)"
  if out="$(GOPROXY=off GOFLAGS=-mod=mod bash -c "$line" 2>&1)"; then
    echo "unexpected success without a proxy: $out"; exit 1
  fi
  case "$out" in
    *"module lookup disabled by GOPROXY=off"*) ;;
    *) echo "the go command refused the published recipe's line for another reason:"; echo "$out"; exit 1 ;;
  esac
done <<<"$published_recipe"
echo "install recipes: the local clone builds and serves the quickstart; the published recipe parses"
