package tools

import (
	"encoding/json"
	goparser "go/parser"
	"go/token"
	"os"
	"strings"
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

// FuzzWildSchema: any JSON value as a member's schema in a snapshot
// generates (schemas from the wild are never a failure to generate), the
// source parses, and every raw-JSON value's check names a fragment of the
// published schema that exists.
func FuzzWildSchema(f *testing.F) {
	data, err := os.ReadFile("testdata/wild.json")
	if err != nil {
		f.Fatal(err)
	}
	var snap struct {
		Tools []struct {
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(data, &snap); err != nil {
		f.Fatal(err)
	}
	for _, t := range snap.Tools {
		f.Add([]byte(t.InputSchema))
	}
	for _, s := range []string{`true`, `false`, `{"$ref":"#"}`, `{"$ref":"#/properties/x"}`, `{"type":["null"]}`, `{"properties":{"a b":{},"a_b":{},"aB":{}}}`,
		`{"type":"object","properties":{"x,y":{"type":"string"},"-":{}}}`, `{"enum":[]}`, `{"type":"string","pattern":"("}`, `{"allOf":[{"$ref":"#"}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, schema []byte) {
		if !json.Valid(schema) {
			return
		}
		doc := `{"mcpgenSnapshot":1,"protocolVersion":"2025-11-25","tools":[{"name":"t","inputSchema":{"type":"object","properties":{"m":` + string(schema) + `}},"outputSchema":{"type":"object","properties":{"m":` + string(schema) + `}}}]}`
		files, err := Generate([]byte(doc), Options{Package: "p", Import: "example.com/mcp20251125"})
		if err != nil {
			t.Fatalf("schema %s: %v", schema, err)
		}
		// Every raw-JSON value is checked against a fragment that exists.
		rawRefsOf(t, doc)
		// At the root too, unless it says it is not an object (the Tool
		// definition requires one).
		var root map[string]json.RawMessage
		if json.Unmarshal(schema, &root) == nil && root != nil && (root["type"] == nil || string(root["type"]) == `"object"`) {
			doc := `{"mcpgenSnapshot":1,"tools":[{"name":"t","inputSchema":` + string(schema) + `,"outputSchema":` + string(schema) + `}]}`
			if _, err := Generate([]byte(doc), Options{Package: "p", Import: "example.com/mcp20251125"}); err != nil {
				t.Fatalf("root schema %s: %v", schema, err)
			}
			rawRefsOf(t, doc)
		}
		for name, src := range files {
			if _, err := goparser.ParseFile(token.NewFileSet(), name, src, 0); err != nil {
				t.Fatalf("%s does not parse: %v\n%s", name, err, src)
			}
		}
	})
}

// TestSnapshotNames: a snapshot's tool and property names that a tools
// file would reject (outside the spec's SHOULD, or colliding in Go) still
// generate, numbered where they collide.
func TestSnapshotNames(t *testing.T) {
	doc := `{"mcpgenSnapshot":1,"tools":[
		{"name":"get weather","inputSchema":{"type":"object","properties":{"a_b":{"type":"string"},"aB":{"type":"integer"},"x,y":{}}}},
		{"name":"get_weather","inputSchema":{"type":"object"}}]}`
	files, err := Generate([]byte(doc), Options{Package: "p", Import: "example.com/mcp20251125"})
	if err != nil {
		t.Fatal(err)
	}
	src := string(files["tools.go"])
	for _, want := range []string{"GetWeather(ctx context.Context, args *GetWeatherArgs)", "GetWeather2(ctx context.Context, args *GetWeather2Args)",
		"AB  *int64", "AB2 *string"} {
		if !strings.Contains(src, want) {
			t.Errorf("tools.go lacks %q", want)
		}
	}
	// The same names in a tools file are errors.
	if _, err := Generate([]byte(`[{"name":"get weather","inputSchema":{"type":"object"}}]`), Options{Package: "p", Import: "example.com/mcp20251125"}); err == nil {
		t.Error("a tools file with a tool name outside the rule generated")
	}
}
