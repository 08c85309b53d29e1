package tools

import (
	goparser "go/parser"
	"go/token"
	"os"
	"testing"
)

// FuzzGenerate: whatever the tools file, Generate returns an error or Go
// source that parses; it never panics.
func FuzzGenerate(f *testing.F) {
	for _, path := range []string{"testdata/kitchen.json", "../../examples/stdio-server/tools/tools.json"} {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`[{"name":"x","inputSchema":{"type":"object","properties":{"a":{"type":"string","enum":["1","1"]}}}}]`))
	f.Add([]byte(`[{"name":"","inputSchema":{}}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		files, err := Generate(data, Options{Package: "p", Import: imp, AlsoImport: []string{"example.com/mcp20260728"}})
		if err != nil {
			return
		}
		for name, src := range files {
			if _, err := goparser.ParseFile(token.NewFileSet(), name, src, 0); err != nil {
				t.Fatalf("%s does not parse: %v\n%s", name, err, src)
			}
		}
	})
}
