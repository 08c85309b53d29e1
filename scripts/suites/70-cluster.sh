#!/usr/bin/env bash
# cluster/ is the separate module github.com/mcpgen/mcpgen/cluster: the NATS
# implementations of the runtime's cluster seams (natscluster), the cluster
# example and its end-to-end test, all against a real NATS server
# (nats-server/v2 embedded in the test process or run by the example). Its
# go.mod must be tidy. Bounded at 6 minutes. Issue 35 added TestRollingRestart
# (three replicas restarted under load from both eras: about 7 s on a 2-core
# machine), TestComposeMatchesCode (under a second once the example is built,
# which the e2e tests share) and natscluster's TestReachable (a fraction of a
# second).
set -euo pipefail
cd "$(dirname "$0")/../../cluster"
if ! out=$(go mod tidy -diff 2>&1); then
  echo "$out"
  echo "cluster/go.mod or go.sum is not tidy: run go mod tidy in cluster/ and commit"
  exit 1
fi
go build ./...
go vet ./...
timeout 360 go test -race -count=1 ./...
echo "cluster: tidy, build, vet and tests passed"
