package session

import "testing"

// TestJSONStringValueSharedValues checks that the values read on every
// request (result types, and the versions of the revisions a Server or a
// client was built with) decode to themselves without allocating, and that
// escaped spellings and other strings still decode as encoding/json reads
// them.
func TestJSONStringValueSharedValues(t *testing.T) {
	rememberVersions(Revision{Version: "2026-07-28"}, Revision{Version: "2025-11-25"})
	for _, s := range []string{"complete", "input_required", "2026-07-28", "2025-11-25"} {
		lit := []byte(`"` + s + `"`)
		if got := jsonStringValue(lit); got != s {
			t.Errorf("jsonStringValue(%s) = %q", lit, got)
		}
		if n := testing.AllocsPerRun(10, func() { _ = jsonStringValue(lit) }); n != 0 {
			t.Errorf("jsonStringValue(%s): %v allocations, want 0", lit, n)
		}
	}
	for lit, want := range map[string]string{`"comp\u006cete"`: "complete", `"completed"`: "completed", `""`: "", `"2025-06-18"`: "2025-06-18"} {
		if got := jsonStringValue([]byte(lit)); got != want {
			t.Errorf("jsonStringValue(%s) = %q, want %q", lit, got, want)
		}
	}
}
