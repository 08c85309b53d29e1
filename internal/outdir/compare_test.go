package outdir

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestCompare(t *testing.T) {
	gen := func(body string) []byte { return []byte(Header + "\n\npackage mcp\n" + body) }
	files := map[string][]byte{
		"same.go":    gen("// same\n"),
		"crlf.go":    gen("// a\n// b\n"),
		"edited.go":  gen("// a\n// b\n"),
		"missing.go": gen(""),
	}
	dir := t.TempDir()
	write := func(name string, data []byte) {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("same.go", files["same.go"])
	write("crlf.go", []byte(Header+"\r\n\r\npackage mcp\r\n// a\r\n// b\r\n"))
	write("edited.go", gen("// a\n// hand edit\n"))
	write("old.go", gen("// from an older run\n"))
	write("mine.go", []byte("package mcp // the user's\n"))

	got, err := Compare(dir, files)
	if err != nil {
		t.Fatal(err)
	}
	want := []Difference{
		{File: "edited.go", Kind: "changed", Line: 5},
		{File: "missing.go", Kind: "missing"},
		{File: "old.go", Kind: "stale"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Compare = %v, want %v", got, want)
	}

	for name, data := range files {
		write(name, data)
	}
	os.Remove(filepath.Join(dir, "old.go"))
	if got, err := Compare(dir, files); err != nil || got != nil {
		t.Fatalf("after writing the files: %v, %v; want no difference", got, err)
	}
}
