// Command cluster runs one MCP server as three replicas behind a
// round-robin load balancer, with their shared state on NATS: with no
// arguments it starts
//
//   - a NATS server with JetStream, as its own process ("cluster nats": the
//     nats-server/v2 module embedded in a child process of this same
//     binary, so the example needs nothing installed and the server can be
//     killed and restarted like any other; its data directory survives
//     restarts),
//   - three replicas of the HTTP server ("cluster replica"), each its own
//     process: the generated mcp.NewServer on the 2026-07-28 bindings with
//     session.WithLegacy, typed tools (tools/), tasks.WithTasks with a
//     Manager whose Store is natscluster.TaskStore (JetStream key-value)
//     and whose Bus carries task cancellations between replicas,
//   - and a round-robin reverse proxy (net/http/httputil) in this process,
//     with no session affinity,
//
// then prints the proxy's URL and runs until SIGINT or SIGTERM, which it
// passes on. Everything in one command:
//
//	cd cluster && go run ./examples/cluster
//	go run ./examples/cluster -addr 127.0.0.1:8080 -lease 5s
//
// The example lives in the cluster/ module, not at the repository's
// examples/cluster: it imports NATS, and the main module must not depend on
// it (a user who never runs replicas never builds NATS).
//
// A replica killed with SIGKILL leaves its running tasks "working" until
// its lease passes; any other replica's sweeper then marks them failed
// ("replica rN stopped"), within lease + lease/3.
//
// A replica sent SIGTERM drains instead (streamhttp.Handler.Drain and
// tasks.Manager.Drain, -grace, default 10 s): its /readyz fails at once
// and the proxy, which probes every replica's /readyz, stops sending it
// requests; what still reaches it is refused with 503 and Retry-After,
// which the proxy retries on the next replica; its running calls and
// tasks get the grace to finish, and those that run past it end with the
// drain's reason (an error response; a failed task); its legacy sessions
// stay in the store and continue on the other replicas. A rolling restart
// (TestRollingRestart; SIGHUP to this command restarts the three in turn;
// "docker compose restart r1", then r2 and r3, under compose.yaml)
// thus fails no call but those past the grace. /healthz is the liveness
// probe. Other subcommands:
//
//	cluster probe URL    exit 0 when URL answers 200 (compose.yaml's healthcheck)
//	cluster bench -write ../bench/BENCHMARKS.md
//	                     calls/s through the proxy with 1, 2, 3 replicas, and a rolling restart's failed calls
package main

import (
	"fmt"
	"os"
)

func main() {
	var err error
	cmd := ""
	if len(os.Args) > 1 {
		cmd = os.Args[1]
	}
	switch cmd {
	case "nats":
		err = runNATS(os.Args[2:])
	case "replica":
		err = runReplica(os.Args[2:])
	case "proxy":
		err = runProxy(os.Args[2:])
	case "probe":
		err = runProbe(os.Args[2:])
	case "bench":
		err = runBench(os.Args[2:])
	default:
		err = runAll(os.Args[1:])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "cluster:", err)
		os.Exit(1)
	}
}
