package interophttp

import (
	"context"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// goSDKVersions is what go-sdk v1.8's handler speaks: its stateless
// handler serves 2026-07-28 and the legacy versions (without sessions);
// its sessionful one lists only the legacy versions in server/discover.
func goSDKVersions(stateless bool) []string {
	if stateless {
		return []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"}
	}
	return []string{"2025-11-25", "2025-06-18", "2025-03-26"}
}

// tsServer runs a TypeScript-SDK server script from ts/ with the SDK that
// the environment variable env points at (scripts/suites/40-interop-http.sh
// sets MCPGEN_TS_SDK for 1.32.2 and MCPGEN_TS_SDK2 for 2.4.0).
func tsServer(env, name string, versions []string) func(t *testing.T) peerServer {
	return func(t *testing.T) peerServer {
		node, dir := os.Getenv("MCPGEN_NODE"), os.Getenv(env)
		if node == "" || dir == "" {
			t.Skipf("MCPGEN_NODE and %s not set (scripts/suites/40-interop-http.sh sets them)", env)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		cmd := exec.CommandContext(ctx, node, script(t, dir, name))
		ev := events(t, cmd)
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait(); cancel() })
		port := next(t, ev, "listening").Port
		started, ended := make(chan struct{}, 8), make(chan string, 8)
		go func() {
			for e := range ev {
				switch e.Event {
				case "started":
					started <- struct{}{}
				case "cancelled":
					ended <- "abort signal: " + e.Reason
				}
			}
		}()
		return peerServer{url: "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp", started: started, ended: ended, versions: versions}
	}
}
