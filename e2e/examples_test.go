package e2e

import (
	"strings"
	"testing"
)

// runClient runs the stdio-client example with args and returns its stdout
// lines once it has exited 0.
func runClient(t *testing.T, env []string, args ...string) (*proc, []string) {
	t.Helper()
	p := startProc(t, true, env, clientBin, args...)
	p.closeStdin() // the client reads nothing from its own stdin
	out := p.out.waitClosed(t, "the client's stdout")
	p.waitExit(t)
	p.log.waitClosed(t, "the client's stderr")
	return p, out
}

// expectLines checks that out has, in order, a line matching each pattern
// (prefix match; "…" in a pattern splits it into a prefix and a suffix).
func expectLines(t *testing.T, out []string, patterns ...string) {
	t.Helper()
	i := 0
	for _, line := range out {
		if i == len(patterns) {
			break
		}
		pre, suf, _ := strings.Cut(patterns[i], "…")
		if strings.HasPrefix(line, pre) && strings.HasSuffix(line, suf) {
			i++
		}
	}
	if i < len(patterns) {
		t.Errorf("client stdout lacks %q; it was:\n%s", patterns[i], dump(out))
	}
}

// TestExampleClientAgainstServer runs the two examples together, as the
// README does: the client exits 0 and reports the cancellation, and the
// server (whose stderr the client passes through) logs the handler's
// cancellation with the client's reason.
func TestExampleClientAgainstServer(t *testing.T) {
	t.Parallel()
	p, out := runClient(t, nil, "--", serverBin)
	expectLines(t, out,
		"initialized: mcpgen-stdio-server 0.1.0, protocol 2026-07-28",
		"sleep cancelled after …: stdio-client gave up after 200ms",
		"echo: hello from stdio-client",
		"server exited cleanly")
	p.log.waitFor(t, "the server's log of the cancelled handler", logHas(
		"msg", "sleep interrupted", "ms", "10000", "source", "peer notification", "reason", "stdio-client gave up after 200ms"))
	p.log.waitFor(t, "the server's exit", logHas("msg", "stdio-server exiting", "source", "transport closed"))
}

// TestExampleClientAgainstOtherServer runs the client example against the
// fake server, which is not built on the runtime and answers initialize with
// 2024-11-05 and the cancelled sleep with a late response: the client
// accepts the older revision, still reports the cancellation, and exits 0.
func TestExampleClientAgainstOtherServer(t *testing.T) {
	t.Parallel()
	p, out := runClient(t, []string{fakeServerEnv + "=late", "E2E_FAKE_VERSION=2024-11-05"}, "--", selfExe(t))
	expectLines(t, out,
		"initialized: e2e-fake 0, protocol 2024-11-05",
		"sleep cancelled after …: stdio-client gave up after 200ms",
		"echo: hello from stdio-client",
		"server exited cleanly")
	p.log.waitFor(t, "the fake to read the cancellation", func(l string) bool {
		rec := logRecord(l)
		return rec["msg"] == "recv" && strings.Contains(rec["line"], `"method":"notifications/cancelled"`) &&
			strings.Contains(rec["line"], `"reason":"stdio-client gave up after 200ms"`)
	})
}

// Issue 11, must-show 7: the client works with any server that has sleep:
// when tools/list does not offer echo, it skips it and still succeeds.
func TestExampleClientSkipsMissingEcho(t *testing.T) {
	t.Parallel()
	_, out := runClient(t, []string{fakeServerEnv + "=no-echo"}, "--", selfExe(t))
	expectLines(t, out,
		"initialized: e2e-fake 0, protocol 2025-11-25",
		"sleep cancelled after …: stdio-client gave up after 200ms",
		"echo: not offered by the server; skipped",
		"server exited cleanly")
}
