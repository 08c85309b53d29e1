package main

import (
	"os"
	"path/filepath"
	"testing"
)

// replaceSection appends the markers once, then replaces only what is
// between them; unbalanced markers are an error, the file untouched.
func TestReplaceSection(t *testing.T) {
	p := filepath.Join(t.TempDir(), "B.md")
	os.WriteFile(p, []byte("# head\ntext"), 0o644)
	if err := replaceSection(p, "one\n"); err != nil {
		t.Fatal(err)
	}
	if err := replaceSection(p, "two\n"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if want := "# head\ntext\n\n" + beginMarker + "\ntwo\n" + endMarker + "\n"; string(b) != want {
		t.Fatalf("got %q, want %q", b, want)
	}
	os.WriteFile(p, []byte("a\n"+endMarker+"\n"+beginMarker+"\n"), 0o644)
	if err := replaceSection(p, "x\n"); err == nil {
		t.Fatal("unbalanced markers accepted")
	}
}
