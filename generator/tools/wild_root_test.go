package tools

import (
	"encoding/json"
	"testing"
)

// TestWildRootsGenerate: a server's tool schema whose root is not an object
// once its allOf or $ref is read, or whose "type" is not a type name, still
// generates, and the whole value is then checked against the published
// schema (loose); keywords for another type than the node's assert nothing
// and are dropped without making it loose. FuzzWildSchema found the first.
func TestWildRootsGenerate(t *testing.T) {
	for _, c := range []struct {
		schema string
		loose  bool
	}{
		{`{"allOf":[{"type":{}}]}`, true},
		{`{"type":"object","allOf":[{"type":{}}]}`, true},
		{`{"allOf":[{"type":{},"minLength":1}]}`, true},
		{`{"allOf":[{"type":"null"}]}`, true},
		{`{"allOf":[{"type":"string"}]}`, true},
		{`{"allOf":[{"type":["string"]}]}`, true},
		{`{"allOf":[{"type":[1]}]}`, true},
		{`{"allOf":[{"type":"foo"}]}`, true},
		{`{"allOf":[{"allOf":[{"type":"array"}]}]}`, true},
		{`{"type":"object","allOf":[{"type":"string"}]}`, true},
		{`{"$ref":"#/$defs/a","$defs":{"a":{"type":"integer"}}}`, true},
		{`{"minLength":1}`, false},
		{`{"type":"object","minLength":1,"items":{},"minimum":2}`, false},
		{`{"type":"object","properties":{"n":{"type":"integer","minimum":1,"pattern":"x","properties":{}}}}`, false},
	} {
		for _, in := range []bool{true, false} {
			_, loose, err := normalize(json.RawMessage(c.schema), in)
			if err != nil || loose != c.loose {
				t.Errorf("normalize(%s, input %v): loose %v, %v; want loose %v", c.schema, in, loose, err, c.loose)
			}
			doc := `{"mcpgenSnapshot":1,"tools":[{"name":"t","inputSchema":` + c.schema + `}]}`
			if !in {
				doc = `{"mcpgenSnapshot":1,"tools":[{"name":"t","inputSchema":{"type":"object"},"outputSchema":` + c.schema + `}]}`
			}
			if _, err := Generate([]byte(doc), Options{Package: "p", Import: "example.com/mcp20251125"}); err != nil {
				t.Errorf("%s: %v", doc, err)
			}
		}
	}
	// A member whose "type" is not a type name is raw JSON, as any member
	// parse cannot bind.
	norm, _, err := normalize(json.RawMessage(`{"type":"object","properties":{"m":{"type":{}}}}`), true)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(norm, &got); err != nil || got.Properties["m"][fallbackKey] == nil {
		t.Errorf("member with type {} normalized to %s, want a fallback", norm)
	}
}
