package main

import (
	"strings"
	"testing"
)

// TestShort is what CI runs (scripts/suites/60-bench.sh): the whole report
// in -short mode, failing if any peer's measurement breaks, so neither the
// harness nor the peers' APIs it calls can rot.
func TestShort(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: go test -short skips the report; run without -short")
	}
	var b strings.Builder
	failures = 0
	run(&b, true, 1)
	if failures > 0 {
		t.Fatalf("%d measurement(s) failed:\n%s", failures, b.String())
	}
	for _, table := range []string{"## echo round trips, os.Pipe", "## cancel latency", "## cancel under load", "## setup", "### HTTP echo round trips, own client", "### HTTP echo round trips, raw", "### HTTP cancel latency", "### HTTP open streams"} {
		if !strings.Contains(b.String(), table) {
			t.Errorf("report has no %q table", table)
		}
	}
}
