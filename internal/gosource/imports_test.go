package gosource

import (
	"go/format"
	"testing"
)

func TestGroupImports(t *testing.T) {
	in := "package p\n\nimport (\n\t\"bytes\"\n\t\"context\"\n\t\"github.com/mcpgen/mcpgen/runtime/jsonrpc2\"\n\tgenimpl \"github.com/mcpgen/mcpgen/runtime/genimpl\"\n\t\"slices\"\n)\n\nvar _ = 1\n"
	// gofmt, which the generators run next, sorts each group.
	want := "package p\n\nimport (\n\t\"bytes\"\n\t\"context\"\n\t\"slices\"\n\n\tgenimpl \"github.com/mcpgen/mcpgen/runtime/genimpl\"\n\t\"github.com/mcpgen/mcpgen/runtime/jsonrpc2\"\n)\n\nvar _ = 1\n"
	got, err := format.Source(groupImports([]byte(in)))
	if err != nil || string(got) != want {
		t.Fatalf("got (%v)\n%s\nwant\n%s", err, got, want)
	}
	for _, same := range []string{
		"package p\n\nimport \"fmt\"\n",                                        // no block
		"package p\n\nimport (\n\t\"fmt\"\n\t\"os\"\n)\n",                      // standard only
		"package p\n\nimport (\n\t\"example.com/a\"\n\t\"example.com/b\"\n)\n", // others only
	} {
		if got := groupImports([]byte(same)); string(got) != same {
			t.Errorf("groupImports changed %q to %q", same, got)
		}
	}
}
