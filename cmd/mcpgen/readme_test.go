package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generator"
	"github.com/mcpgen/mcpgen/official"
)

// TestReadmeListsGeneratedFiles: the bindings guide (docs/bindings.md,
// linked from the README) names every file generate writes for any
// official revision, so users know what is theirs and what is mcpgen's.
func TestReadmeListsGeneratedFiles(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "docs", "bindings.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, rev := range official.Revisions() {
		m, err := schemaInput{revision: rev}.load()
		if err != nil {
			t.Fatal(err)
		}
		files, err := generator.Generate(m, generator.Options{Package: "mcp", SchemaFile: officialName(rev)})
		if err != nil {
			t.Fatal(err)
		}
		for name := range files {
			if !strings.Contains(string(readme), "`"+name+"`") {
				t.Errorf("docs/bindings.md does not list %s, which generate writes for %s", name, rev)
			}
		}
	}
}
