package tools

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateDrift = flag.Bool("update-drift", false, "rewrite testdata/drift/*.golden")

// TestDriftGolden compares two snapshots that differ in every way Drift
// reports (and in ways it must not: descriptions, the server's version)
// and checks the report against testdata/drift/report.golden.
func TestDriftGolden(t *testing.T) {
	before, err := os.ReadFile("testdata/drift/before.json")
	if err != nil {
		t.Fatal(err)
	}
	after, err := os.ReadFile("testdata/drift/after.json")
	if err != nil {
		t.Fatal(err)
	}
	lines, err := Drift(before, after)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(lines, "\n") + "\n"
	golden := filepath.Join("testdata", "drift", "report.golden")
	if *updateDrift {
		os.WriteFile(golden, []byte(got), 0o644)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -run TestDriftGolden -update-drift)", err)
	}
	if got != string(want) {
		t.Errorf("Drift report differs from %s:\ngot:\n%s\nwant:\n%s", golden, got, want)
	}
	// The same snapshot, and one whose only changes are annotations, the
	// server's version and member order: no drift.
	for _, same := range [][]byte{before, []byte(strings.NewReplacer(`"Searches."`, `"Finds."`, `"1.0.0"`, `"9"`).Replace(string(before)))} {
		if lines, err := Drift(before, same); err != nil || len(lines) > 0 {
			t.Errorf("Drift of equal snapshots: %q, %v", lines, err)
		}
	}
}

// TestDriftErrors: a file that is not a snapshot is an error naming it.
func TestDriftErrors(t *testing.T) {
	good, _ := os.ReadFile("testdata/drift/before.json")
	for _, c := range []struct{ committed, live, want string }{
		{`[]`, string(good), "committed snapshot: #: not a snapshot"},
		{string(good), `{"tools":[]}`, "live snapshot: #/mcpgenSnapshot: want 1"},
		{string(good), `{"mcpgenSnapshot":1,"tools":[{"name":"x","inputSchema":3}]}`, "live snapshot: #/tools/0/inputSchema: want a schema object"},
	} {
		_, err := Drift([]byte(c.committed), []byte(c.live))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("Drift(%.20s, %.40s) = %v, want %q…", c.committed, c.live, err, c.want)
		}
	}
}
