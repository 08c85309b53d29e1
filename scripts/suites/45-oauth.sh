#!/usr/bin/env bash
# auth/oauthclient (the OAuth client of the MCP authorization pages, a
# separate module on golang.org/x/oauth2) and auth/oidctest (it against
# zitadel/oidc's OpenID Provider in-process, a separate module because
# zitadel/oidc needs go 1.26): build, vet, test with -race; oidctest's
# TestExampleAuthFlow builds and runs examples/http-server --auth and
# auth/oauthclient/examples/http-client-auth against the op. The suite's
# auth/* client scenarios run in 50-conformance.sh. About 20 s.
set -euo pipefail
cd "$(dirname "$0")/../../auth"
for m in oauthclient oidctest; do
	(cd "$m" && go build ./... && go vet ./... && timeout 110 go test -race -count=1 ./...)
done
echo "auth: oauthclient and oidctest built, vetted and tested"
