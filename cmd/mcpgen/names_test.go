package main

import "testing"

func TestCheckIdentifier(t *testing.T) {
	for s, ok := range map[string]bool{
		"mcp": true, "mcp20251125": true, "_mcp": true, "mcpé": true, "π": true, "Mcp": true,
		"": false, "_": false, "type": false, "func": false, "package": false,
		"9x": false, "my-mcp": false, "a b": false, "mcp.v2": false, "\xff": false,
	} {
		if err := checkIdentifier(s); (err == nil) != ok {
			t.Errorf("checkIdentifier(%q) = %v, want ok=%v", s, err, ok)
		}
	}
}

// TestCheckImportPath follows the cases of golang.org/x/mod/module's
// CheckImportPath tests.
func TestCheckImportPath(t *testing.T) {
	for p, ok := range map[string]bool{
		"example.com/mcp": true, "example.com/my-mcp": true, "github.com/a/b/v2": true,
		"x": true, "x/.y": true, "gopkg.in/yaml.v3": true, "c++/x": true, "a~b/c": true,
		"": false, "/x": false, "x/": false, "x//y": false, "-x": false,
		"x/./y": false, "x/../y": false, "x/y.": false, "x/y z": false, "x/é": false,
		"x/con": false, "x/NUL.txt": false, "x/lpt1": false, "x/abc~1": false, "x@v1": false,
		"x\\y": false, "\xff": false,
	} {
		if err := checkImportPath(p); (err == nil) != ok {
			t.Errorf("checkImportPath(%q) = %v, want ok=%v", p, err, ok)
		}
	}
}
