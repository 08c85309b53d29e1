package schema

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// keywordValues are values put under every keyword: of each JSON kind, and
// the near misses the meta-schemas refuse (repeats, empty arrays, bad URIs,
// fragments in $id, fractions and negatives where integers go).
var keywordValues = []string{
	`5`, `-1`, `1.5`, `0`, `"x"`, `""`, `"string"`, `"#/$defs/A"`, `"#/definitions/A"`, `"a\\b"`,
	`"http://[::1"`, `"http://[zz::1]/x"`, `"%zz"`, `"#frag"`, `"http://x/y#z"`, `"http://x/y#"`, `"urn:x"`,
	`true`, `false`, `null`, `[]`, `["string"]`, `["string","string"]`, `["string","null"]`, `["strin"]`,
	`["a"]`, `["a","a"]`, `[1,1.0]`, `[1,2]`, `[{"a":1},{"a":1.0}]`, `{}`, `{"type":"string"}`, `{"type":5}`,
	`[{"type":5}]`, `[{}]`, `{"a":{"type":5}}`, `{"a":{}}`, `{"a":true}`, `{"a":5}`,
}

// keywordNames are mcpgen's vocabulary and a few keywords outside it.
var keywordNames = []string{
	"type", "$ref", "properties", "required", "additionalProperties", "items", "anyOf", "allOf",
	"const", "enum", "format", "minimum", "maximum", "maxItems", "propertyNames", "not",
	"description", "title", "$comment", "examples", "deprecated", "readOnly", "writeOnly", "default",
	"$schema", "$id", "oneOf", "minLength", "definitions", "$defs", "patternProperties", "pattern",
}

// keywordPlaces wrap a schema in each place a schema can be: a definition,
// a property, items, a union branch, additionalProperties, an allOf member.
var keywordPlaces = []string{
	`%s`,
	`{"type":"object","properties":{"a":%s}}`,
	`{"type":"array","items":%s}`,
	`{"anyOf":[%s,{"type":"integer"}]}`,
	`{"type":"object","additionalProperties":%s}`,
	`{"allOf":[%s,{"type":"object"}]}`,
}

// TestKeywordsRefuseWhatTheMetaSchemaRefuses holds Load to the meta-schemas:
// whatever Load accepts, jsonschema/v5 (which validates the document
// against its dialect's meta-schema) compiles. Every keyword of mcpgen's
// vocabulary and some beyond it, under every kind of value and in every
// place a schema can be, in both dialects, at the root and in a
// definition.
func TestKeywordsRefuseWhatTheMetaSchemaRefuses(t *testing.T) {
	dialects := []struct{ schema, defs string }{
		{"http://json-schema.org/draft-07/schema#", "definitions"},
		{"https://json-schema.org/draft/2020-12/schema", "$defs"},
	}
	var accepted, refusedByMeta int
	for _, d := range dialects {
		for _, place := range keywordPlaces {
			for _, key := range keywordNames {
				for _, v := range keywordValues {
					node := fmt.Sprintf(`{%q:%s}`, key, v)
					docs := []string{
						fmt.Sprintf(`{"$schema":%q,%q:{"A":{"type":"string"},"X":%s}}`, d.schema, d.defs, fmt.Sprintf(place, node)),
					}
					if place == `%s` {
						// The same keyword at the root.
						docs = append(docs, fmt.Sprintf(`{"$schema":%q,%q:{"A":{"type":"string"}},%q:%s}`, d.schema, d.defs, key, v))
					}
					for _, doc := range docs {
						if !json.Valid([]byte(doc)) {
							t.Fatalf("bad test document %s", doc)
						}
						_, loadErr := LoadBytes("2025-06-18/x.json", []byte(doc), Options{})
						_, compileErr := Compile("x.json", []byte(doc))
						if compileErr != nil {
							refusedByMeta++
						}
						if loadErr == nil {
							accepted++
							if compileErr != nil {
								t.Errorf("Load accepted what jsonschema/v5 refuses: %s\n  jsonschema/v5: %v", doc, compileErr)
							}
						}
					}
				}
			}
		}
	}
	// Both sides must be exercised, or the test proves nothing.
	t.Logf("%d documents accepted by Load, %d refused by jsonschema/v5", accepted, refusedByMeta)
	if accepted < 500 || refusedByMeta < 500 {
		t.Fatalf("too few accepted (%d) or refused (%d) documents to compare", accepted, refusedByMeta)
	}
}

// FuzzLoadAcceptsOnlyValid: whatever Load accepts, jsonschema/v5 compiles.
func FuzzLoadAcceptsOnlyValid(f *testing.F) {
	for _, key := range keywordNames {
		for _, v := range []string{`5`, `"x"`, `["a","a"]`, `{"type":"string"}`, `[{}]`} {
			f.Add([]byte(fmt.Sprintf(`{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{"A":{"type":"object","properties":{"a":{%q:%s}}}}}`, key, v)))
			f.Add([]byte(fmt.Sprintf(`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"A":{"anyOf":[{%q:%s},{"type":"null"}]}}}`, key, v)))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<12 {
			return
		}
		if _, err := LoadBytes("2025-06-18/x.json", data, Options{}); err != nil {
			return
		}
		if _, err := Compile("x.json", data); err != nil {
			t.Fatalf("Load accepted what jsonschema/v5 refuses: %s\n  jsonschema/v5: %v", data, err)
		}
	})
}

// TestKeywordRefusalIsDeterministic: of several faults, the one under the
// smallest key is reported, every time, whatever order the maps iterate in.
func TestKeywordRefusalIsDeterministic(t *testing.T) {
	doc := []byte(`{"$schema":"https://json-schema.org/draft/2020-12/schema","$defs":{
		"B":{"type":"object","properties":{"y":{"title":1},"x":{"type":"strin","format":2}}},
		"A":{"type":"object","properties":{"q":{"readOnly":"no"},"p":{"description":3,"examples":{}}}}}}`)
	const want = "#/$defs/A/properties/p/description"
	for i := 0; i < 50; i++ {
		_, err := LoadBytes("2025-06-18/x.json", doc, Options{})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("run %d: %v, want the refusal at %s", i, err, want)
		}
	}
}
