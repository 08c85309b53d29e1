#!/usr/bin/env bash
# The release checks (RELEASING.md): licences and upstream notices, the API
# of every published module against the last release's baseline (api/),
# govulncheck over every module (scripts/release --check); the Go API view
# of regenerating the committed bindings against each newer revision; and a
# self-test of the compatibility gate on a deliberate break applied to a
# temporary copy. About a minute on 2 cores once the modules and the
# vulnerability database (golang.org/x/vulndb, ~25 MB) are downloaded.
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$SECONDS

bash scripts/release --check

bin="${TMPDIR:-/tmp}/mcpgen-release-tools"   # built by scripts/release
echo "== regenerating the committed bindings against each newer revision (MIGRATING.md is the prose)"
"$bin/apicompat" regen . generated/mcp20241105 generated/mcp20250326 generated/mcp20250618 generated/mcp20251125 generated/mcp20260728 |
  awk '/->/ { print; n = 0; next } n++ < 5 { print } n == 6 { print "  ..." }'

echo "== self-test: a deliberate break must fail the compatibility check"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
git ls-files -z -- . ':!bench' ':!interop' ':!cluster' ':!auth' ':!examples/downstream' | tar -c --null -T - | tar -x -C "$tmp"
(
  cd "$tmp"
  "$bin/apicompat" write -o api/v0.1.0 otel >/dev/null
  sed -i 's|^const ScopeName = ".*"$|const ScopeName = "mcpgen/otel/broken"|' otel/mcpotel.go
  grep -q 'mcpgen/otel/broken' otel/mcpotel.go || { echo "self-test: could not apply the break"; exit 1; }
  printf '# Changelog\n\n## [Unreleased]\n\n### Changed\n\n- something\n' > CHANGELOG.md
  if out=$("$bin/apicompat" check -baseline api/v0.1.0 -changelog CHANGELOG.md otel 2>&1); then
    echo "$out"; echo "self-test: an unlisted break passed the check"; exit 1
  fi
  grep -q 'name it as mcpotel.ScopeName' <<<"$out" || { echo "$out"; echo "self-test: the failure does not name mcpotel.ScopeName"; exit 1; }
  echo "unlisted break fails, as it should:"; sed 's/^/  /' <<<"$out"
  printf '# Changelog\n\n## [Unreleased]\n\n### Breaking\n\n- `mcpotel.ScopeName` is now "mcpgen/otel/broken".\n' > CHANGELOG.md
  "$bin/apicompat" check -baseline api/v0.1.0 -changelog CHANGELOG.md otel >/dev/null ||
    { echo "self-test: a break listed under ### Breaking failed before v1"; exit 1; }
  echo "listed under ### Breaking: passes before v1"
  mv api/v0.1.0 api/v1.0.0
  if "$bin/apicompat" check -baseline api/v1.0.0 -changelog CHANGELOG.md otel >/dev/null 2>&1; then
    echo "self-test: a break after v1 passed"; exit 1
  fi
  echo "after v1: fails even when listed"
)
echo "== self-test: a reached vulnerability of a dependency must fail the vulnerability gate"
finding='{"finding":{"osv":"GO-0000-0001","fixed_version":"v1.2.4","trace":[{"module":"example.com/m","version":"v1.2.3","package":"example.com/m/p","function":"F"}]}}'
if "$bin/vulngate" -name self-test <<<"$finding"; then echo "self-test: vulngate passed a reached vulnerability"; exit 1; fi
"$bin/vulngate" -name self-test <<<"${finding/\"function\":\"F\"/\"function\":\"\"}" >/dev/null ||
  { echo "self-test: vulngate failed an unreached vulnerability"; exit 1; }
echo "release checks: $((SECONDS - start)) s"
