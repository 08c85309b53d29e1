package main

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/bench"
)

// TestShort writes the whole report in -short mode, one round, failing if
// any peer's measurement breaks, so neither the harness nor the peers' APIs
// it calls can rot (go test without -short; CI runs the same measurements
// through "mcpbench -short -gate", scripts/suites/60-bench.sh).
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

// TestGate: a target is held to the value within the band, a
// known miss to its recorded level within the band.
func TestGate(t *testing.T) {
	path := t.TempDir() + "/known.txt"
	if err := os.WriteFile(path, []byte("# comment\n\nstdio echo: mcpgen ÷ mcp-go | 2026-07-28 | 1.8 | mcp-go does half the work\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	k, why, err := readKnown(path)
	if err != nil {
		t.Fatal(err)
	}
	if why["stdio echo: mcpgen ÷ mcp-go | 2026-07-28"] != "mcp-go does half the work" {
		t.Errorf("why: %q", why)
	}
	known, knownWhy, seen = k, why, map[string]bool{}
	defer func() { known, knownWhy, seen = nil, nil, map[string]bool{} }()
	for _, c := range []struct {
		t    target
		band float64
		want bool
	}{
		{target{name: "x", rev: "r", got: 3.0, want: 4}, 0.3, true},
		{target{name: "x", rev: "r", got: 2.7, want: 4}, 0.3, false},
		{target{name: "x", rev: "r", got: 0.3, want: 0.25, atMost: true}, 0.3, true},
		{target{name: "x", rev: "r", got: 0.4, want: 0.25, atMost: true}, 0.3, false},
		{target{name: "stdio echo: mcpgen ÷ mcp-go", rev: "2026-07-28", got: 1.5, want: 4}, 0.3, true},
		{target{name: "stdio echo: mcpgen ÷ mcp-go", rev: "2026-07-28", got: 1.2, want: 4}, 0.3, false},
	} {
		if got := c.t.within(c.band); got != c.want {
			t.Errorf("%+v within %v = %v, want %v", c.t, c.band, got, c.want)
		}
	}
	if !seen["stdio echo: mcpgen ÷ mcp-go | 2026-07-28"] {
		t.Error("the known miss was not marked seen")
	}
	if err := os.WriteFile(path, []byte("no level here\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readKnown(path); err == nil || !strings.Contains(err.Error(), "known.txt:1") {
		t.Errorf("a malformed line: %v, want an error naming the line", err)
	}
	// A known miss without its one-line why is refused: a green run's
	// table explains every miss it shows.
	if err := os.WriteFile(path, []byte("stdio echo: mcpgen ÷ mcp-go | 2026-07-28 | 1.8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readKnown(path); err == nil || !strings.Contains(err.Error(), "why") {
		t.Errorf("a line without its why: %v, want an error asking for it", err)
	}
	// The table labels the known miss as known, with its why.
	targets = []target{{name: "stdio echo: mcpgen ÷ mcp-go", rev: "2026-07-28", got: 1.7, want: 4, unit: "×"}}
	defer func() { targets = nil }()
	var b strings.Builder
	writeTargets(&b, 0.3)
	if !strings.Contains(b.String(), "| known miss, gated at 1.80×: mcp-go does half the work |") || strings.Contains(b.String(), "**missed**") {
		t.Errorf("the known miss's row:\n%s", b.String())
	}
}

func TestOtherSectionsKept(t *testing.T) {
	old := "# report\n\nold tables\n\n<!-- cluster:begin -->\n## Cluster\nrows\n<!-- cluster:end -->\n\n<!-- replicas:begin -->\n## Replicas\nrows\n<!-- replicas:end -->\n"
	want := "\n<!-- cluster:begin -->\n## Cluster\nrows\n<!-- cluster:end -->\n\n<!-- replicas:begin -->\n## Replicas\nrows\n<!-- replicas:end -->\n"
	if got := keptSections(old); got != want {
		t.Fatalf("keptSections = %q, want %q", got, want)
	}
	if got := keptSections("no section"); got != "" {
		t.Fatalf("keptSections without markers = %q", got)
	}
}

// TestRoundRatio: a latency target is the median of the per-round ratios,
// so one round whose tail a stall of the host inflated (here mcpgen's, 2 ms
// in round 2) does not decide it, where the pooled p99 would.
func TestRoundRatio(t *testing.T) {
	round := func(a, b time.Duration) []bench.Samples {
		mk := func(tail time.Duration) bench.Samples {
			var s bench.Samples
			for k := range 1000 {
				d := 50 * time.Microsecond
				if k >= 985 {
					d = tail
				}
				s.Handler = append(s.Handler, d)
				s.Returned = append(s.Returned, d)
			}
			return s
		}
		return []bench.Samples{mk(a), mk(b)}
	}
	each := [][]bench.Samples{
		round(100*time.Microsecond, 400*time.Microsecond),
		round(2*time.Millisecond, 400*time.Microsecond),
		round(120*time.Microsecond, 400*time.Microsecond),
	}
	if got := roundRatio(each, 1, p99); got != 0.3 {
		t.Errorf("roundRatio = %v, want 0.3 (the middle round's 120µs ÷ 400µs)", got)
	}
	if got := roundRatio(each, 1, p50); got != 1 {
		t.Errorf("roundRatio p50 = %v, want 1", got)
	}
}
