#!/usr/bin/env bash
# The optional JWT/introspection verifier, auth/jwtverify, is its own module
# (go-jose v4) so that the main module stays free of it: its tests (locally
# generated RSA and EC keys, an httptest JWKS server with rotation and
# outages, the verifier behind runtime/auth's resource server) and tidiness.
# Under 30 s after the first module download.
set -euo pipefail
cd "$(dirname "$0")/../../auth/jwtverify"
if ! out=$(go mod tidy -diff 2>&1); then
  echo "$out"; echo "auth/jwtverify: go.mod/go.sum are not tidy"; exit 1
fi
go vet ./...
go test -race -count=1 ./...
