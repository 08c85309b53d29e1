package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestValidateCLI: exit 0 for valid messages, 1 with FILE:LINE: POINTER for
// invalid ones, 2 for bad usage.
func TestValidateCLI(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.jsonl")
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(good, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"), 0o644)
	os.WriteFile(bad, []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n"+`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{}}`+"\n"), 0o644)
	if code, _, errs := runCLI("validate", "--revision", "2025-11-25", good); code != 0 || !strings.Contains(errs, "1 message(s) valid") {
		t.Errorf("good: exit %d, %q", code, errs)
	}
	code, out, _ := runCLI("validate", "--revision", "2025-11-25", bad)
	if code != 1 || !strings.HasPrefix(out, bad+":2: /params: missing properties: 'name'") {
		t.Errorf("bad: exit %d, stdout %q", code, out)
	}
	for _, args := range [][]string{
		{"validate", good},
		{"validate", "--revision", "2025-11-25", good, bad},
		{"validate", "--schema", "-", good},
	} {
		if code, _, _ := runCLI(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
