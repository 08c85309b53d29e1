package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/schema"
)

// TestDiff: the changes a user meets from 2025-06-18 to 2025-11-25 are
// reported, in text and JSON, and a revision against itself has none.
func TestDiff(t *testing.T) {
	code, out, errs := runCLI("diff", "2025-06-18", "2025-11-25")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{
		"method added:\n  notifications/elicitation/complete: notification, server-to-client\n",
		"  tasks/cancel: request, client-to-server, server-to-client\n",
		"  elicitation/create: params object → union\n",
		"  tools/call: task-augmentable false → true\n",
		"type removed:\n  JSONRPCError\n",
		"  cancelRequestIdRequired: true → false\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("diff output lacks %q", want)
		}
	}
	code, out, _ = runCLI("diff", "--json", "2025-11-25", "2026-07-28")
	var d schema.Diff
	if code != 0 || json.Unmarshal([]byte(out), &d) != nil || d.From != "2025-11-25" || d.To != "2026-07-28" {
		t.Fatalf("--json: exit %d, %q", code, out)
	}
	removed := map[string]bool{}
	for _, c := range d.Changes {
		if c.Kind == "method removed" {
			removed[c.Subject] = true
		}
	}
	if !removed["initialize"] || !removed["ping"] || removed["tools/call"] {
		t.Errorf("--json: methods removed = %v", removed)
	}
	if code, out, _ := runCLI("diff", "2025-11-25", "2025-11-25"); code != 0 || out != "2025-11-25 → 2025-11-25: 0 changes\n" {
		t.Errorf("same revision: exit %d, %q", code, out)
	}
	for _, args := range [][]string{{"diff", "2025-11-25"}, {"diff", "2025-11-25", "1999-01-01"}} {
		if code, _, _ := runCLI(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
