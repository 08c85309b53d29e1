package tools

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestCompactExpands: the compact notation expands to exactly the schemas
// written in full, so the generated package (its tools/list JSON included)
// is the same.
func TestCompactExpands(t *testing.T) {
	compact := `[{"name": "add", "description": "Adds.", "input": {"a": "number", "b?": "integer 0..3600", "tags": "string[]", "unit": "c|f", "at": {"x": "number ..1.5"}}, "output": {"sum": "number"}}]`
	full := `[{"name": "add", "description": "Adds.", "inputSchema": {"type": "object", "properties": {
		"a": {"type": "number"}, "b": {"type": "integer", "minimum": 0, "maximum": 3600},
		"tags": {"type": "array", "items": {"type": "string"}}, "unit": {"type": "string", "enum": ["c", "f"]},
		"at": {"type": "object", "properties": {"x": {"type": "number", "maximum": 1.5}}, "required": ["x"]}},
		"required": ["a", "tags", "unit", "at"]}, "outputSchema": {"type": "object", "properties": {"sum": {"type": "number"}}, "required": ["sum"]}}]`
	got, err := expandCompact([]byte(compact))
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	json.Compact(&a, got)
	json.Compact(&b, []byte(full))
	if a.String() != b.String() {
		t.Fatalf("expanded\n%s\nwant\n%s", a.String(), b.String())
	}
	opts := Options{Package: "tools", Import: "github.com/mcpgen/mcpgen/generated/mcp20260728", ToolsFile: "tools.json"}
	gc, err := Generate([]byte(compact), opts)
	if err != nil {
		t.Fatal(err)
	}
	gf, err := Generate([]byte(full), opts)
	if err != nil {
		t.Fatal(err)
	}
	// The Source line carries the file's digest; the rest is identical.
	strip := func(b []byte) string {
		var out []string
		for _, l := range strings.Split(string(b), "\n") {
			if !strings.HasPrefix(l, "// Source: ") {
				out = append(out, l)
			}
		}
		return strings.Join(out, "\n")
	}
	if strip(gc["tools.go"]) != strip(gf["tools.go"]) {
		t.Error("the package generated from the compact notation differs from the one generated from the full schemas")
	}
	// A file in full is passed through byte for byte.
	if got, _ := expandCompact([]byte(full)); string(got) != full {
		t.Error("a tools file without the compact notation was rewritten")
	}
}

// TestCompactErrors: each mistake names its JSON pointer.
func TestCompactErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`[{"name":"a","input":{"x":"float"}}]`, `#/0/input/x: unknown type "float"`},
		{`[{"name":"a","input":{"x":"string 1..2"}}]`, `#/0/input/x: "string 1..2": a range MIN..MAX is for number and integer`},
		{`[{"name":"a","input":{"x":"integer 1..z"}}]`, `#/0/input/x: "integer 1..z": maximum "z" is not a number`},
		{`[{"name":"a","input":{"x":"integer Inf.."}}]`, `minimum "Inf" is not a number`},
		{`[{"name":"a","input":{"x":"integer .."}}]`, `want a range MIN..MAX`},
		{`[{"name":"a","input":{"x":3}}]`, `#/0/input/x: want a type`},
		{`[{"name":"a","input":[1]}]`, `#/0/input: want an object of property names and types`},
		{`[{"name":"a","input":{},"inputSchema":{"type":"object"}}]`, `#/0/input: give "input" or "inputSchema", not both`},
		{`[{"name":"a","input":{"p/q":{"r":"nope"}}}]`, `#/0/input/p~1q/r: unknown type "nope"`},
	} {
		_, err := Generate([]byte(c.in), Options{Package: "tools", Import: "github.com/mcpgen/mcpgen/generated/mcp20260728", ToolsFile: "tools.json"})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "tools.json: ") {
			t.Errorf("%s: %v, want %q", c.in, err, c.want)
		}
	}
}
