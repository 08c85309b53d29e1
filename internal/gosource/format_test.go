package gosource

import (
	"go/format"
	"os"
	"path/filepath"
	"testing"
)

// TestFormatIsGofmt: Format agrees byte for byte with format.Source over
// unformatted input (spacing, unsorted imports, literals gofmt
// normalises) and every committed generated file.
func TestFormatIsGofmt(t *testing.T) {
	inputs := map[string]string{
		"unformatted": "package p\nimport (\n\"os\"\n\"example.com/z\"\n\"fmt\"\n)\nvar   x = 0X1F+1E5 + 0o17\ntype T struct{A int `json:\"a\"`\nLonger string}\nfunc f( ) {fmt.Println(os.Args,x)}\n",
	}
	files, _ := filepath.Glob("../../generated/*/*.go")
	if len(files) < 10 {
		t.Fatalf("found %d generated files; the test needs the committed bindings", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inputs[f] = string(b)
	}
	for name, in := range inputs {
		want, err := format.Source(groupImports([]byte(in)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := Format([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if string(got) != string(want) {
			t.Errorf("%s: Format differs from format.Source:\n%s\nwant\n%s", name, got, want)
		}
	}
}

// TestGroupImportsInPlace: with room in src's array the grouping is made
// there, and the result is the same as with a fresh one.
func TestGroupImportsInPlace(t *testing.T) {
	in := "package p\n\nimport (\n\t\"example.com/a\"\n\t\"fmt\"\n)\n\nvar _ = 1\n"
	fresh := string(groupImports([]byte(in)))
	roomy := make([]byte, len(in), len(in)+8)
	copy(roomy, in)
	got := groupImports(roomy)
	if string(got) != fresh || &got[0] != &roomy[0] {
		t.Fatalf("in place: %q (same array %v), fresh: %q", got, &got[0] == &roomy[0], fresh)
	}
}
