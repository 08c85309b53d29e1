package toolsupport

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

// TestSchemaCheck runs each keyword the interpreter asserts against a value
// it admits and one it rejects, with the pointer and message the rejection
// must carry.
func TestSchemaCheck(t *testing.T) {
	for _, c := range []struct {
		name, schema, good, bad, ptr, msg string
	}{
		{"type list", `{"type":["string","number"]}`, `3`, `true`, "/v", "want string or number, got boolean"},
		{"integer", `{"type":"integer"}`, `7.0`, `7.5`, "/v", "want integer"},
		{"null", `{"type":"null"}`, `null`, `0`, "/v", "want null"},
		{"enum mixed", `{"enum":[1,"one",null]}`, `1.0`, `"two"`, "/v", "must be one of"},
		{"const", `{"const":{"a":[1]}}`, `{"a":[1]}`, `{"a":[2]}`, "/v", "must be {"},
		{"oneOf none", `{"oneOf":[{"type":"object","required":["r"]},{"type":"object","required":["w","h"]}]}`, `{"r":1}`, `{"w":1}`, "/v", "matches none"},
		{"oneOf two", `{"oneOf":[{"type":"number"},{"type":"integer"}]}`, `1.5`, `1`, "/v", "matches 2"},
		{"anyOf", `{"anyOf":[{"type":"string"},{"type":"number","minimum":0}]}`, `"s"`, `-1`, "/v", "at least one schema of anyOf"},
		{"allOf", `{"allOf":[{"type":"number"},{"maximum":3}]}`, `3`, `4`, "/v", "at most 3"},
		{"not", `{"not":{"type":"string"}}`, `1`, `"s"`, "/v", "must not match"},
		{"if then else", `{"if":{"type":"string"},"then":{"minLength":2},"else":{"type":"number"}}`, `"ab"`, `"a"`, "/v", "at least 2 characters"},
		{"else", `{"if":{"type":"string"},"then":{"minLength":2},"else":{"type":"number"}}`, `1`, `true`, "/v", "want number"},
		{"false", `false`, ``, `1`, "/v", "no value is allowed"},
		{"prefixItems", `{"type":"array","prefixItems":[{"type":"string"},{"type":"number"}],"items":false}`, `["a",1]`, `["a","b"]`, "/v/1", "want number"},
		{"prefixItems extra", `{"type":"array","prefixItems":[{"type":"string"}],"items":false}`, `["a"]`, `["a",1]`, "/v/1", "no value is allowed"},
		{"draft-07 tuple", `{"type":"array","items":[{"type":"string"}],"additionalItems":{"type":"integer"}}`, `["a",1,2]`, `["a",1.5]`, "/v/1", "want integer"},
		{"contains", `{"contains":{"const":"x"},"maxContains":1}`, `["x","y"]`, `["y"]`, "/v", "at least 1 items matching"},
		{"maxContains", `{"contains":{"const":"x"},"maxContains":1}`, `["x"]`, `["x","x"]`, "/v", "at most 1 items"},
		{"uniqueItems", `{"uniqueItems":true}`, `[1,2]`, `[1,1.0]`, "/v", "are equal"},
		{"pattern", `{"pattern":"^a+$"}`, `"aa"`, `"ab"`, "/v", "must match the pattern"},
		{"ECMA pattern skipped", `{"pattern":"^(?!x)"}`, `"x"`, ``, "", ""},
		{"bounds", `{"exclusiveMinimum":0,"multipleOf":0.5}`, `1.5`, `1.25`, "/v", "multiple of 0.5"},
		{"draft-04 exclusive", `{"minimum":0,"exclusiveMinimum":true}`, `1`, `0`, "/v", "greater than 0"},
		{"patternProperties", `{"patternProperties":{"^n_":{"type":"number"}},"additionalProperties":false}`, `{"n_a":1}`, `{"n_a":"x"}`, "/v/n_a", "want number"},
		{"additionalProperties false", `{"properties":{"a":{}},"additionalProperties":false}`, `{"a":1}`, `{"b":1}`, "/v/b", "not allowed"},
		{"additionalProperties schema", `{"additionalProperties":{"type":"string"}}`, `{"k":"v"}`, `{"k":7}`, "/v/k", "want string"},
		{"propertyNames", `{"propertyNames":{"maxLength":2}}`, `{"ab":1}`, `{"abc":1}`, "/v/abc", "property name"},
		{"dependentRequired", `{"dependentRequired":{"a":["b"]}}`, `{"a":1,"b":2}`, `{"a":1}`, "/v", "missing required property \"b\""},
		{"dependencies", `{"dependencies":{"a":{"required":["c"]}}}`, `{"a":1,"c":2}`, `{"a":1}`, "/v", "missing required property \"c\""},
		{"required", `{"required":["x"]}`, `{"x":1}`, `{}`, "/v", "missing required property"},
		{"min/maxProperties", `{"maxProperties":1}`, `{"a":1}`, `{"a":1,"b":2}`, "/v", "at most 1 properties"},
		{"ref recursive", `{"$defs":{"n":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/n"}},"v":{"type":"integer"}}}},"$ref":"#/$defs/n"}`,
			`{"v":1,"kids":[{"v":2,"kids":[]}]}`, `{"kids":[{"kids":[{"v":"x"}]}]}`, "/v/kids/0/kids/0/v", "want integer"},
		{"ref with siblings (2020-12)", `{"$defs":{"s":{"type":"string"}},"$ref":"#/$defs/s","maxLength":1}`, `"a"`, `"ab"`, "/v", "at most 1 characters"},
		{"ref siblings ignored (draft-07)", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},"$ref":"#/definitions/s","maxLength":1}`, `"ab"`, `1`, "/v", "want string"},
		{"ref cycle", `{"$ref":"#"}`, `1`, ``, "", ""},
		{"ref fan-out", `{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/b"},{"$ref":"#/$defs/b"}]},"b":{"allOf":[{"$ref":"#/$defs/a"},{"$ref":"#/$defs/a"}]}},"$ref":"#/$defs/a"}`, `1`, ``, "", ""},
		{"remote ref", `{"$ref":"https://example.com/s.json"}`, `1`, ``, "", ""},
		{"format not asserted", `{"format":"email"}`, `"nope"`, ``, "", ""},
	} {
		s := NewSchema(c.schema)
		if c.good != "" {
			if err := s.Check(parse(t, c.good), "", "/v"); err != nil {
				t.Errorf("%s: %s rejected: %v", c.name, c.good, err)
			}
		}
		if c.bad != "" {
			wantViolation(t, c.name+": "+c.bad, s.Check(parse(t, c.bad), "", "/v"), c.ptr, c.msg)
		}
	}
}

// TestSchemaFragment checks a value against a fragment of the document,
// whose $refs still resolve against the whole document.
func TestSchemaFragment(t *testing.T) {
	s := NewSchema(`{"type":"object","$defs":{"pt":{"type":"object","required":["x"]}},"properties":{"shape":{"oneOf":[{"$ref":"#/$defs/pt"},{"type":"string"}]}}}`)
	if err := s.Check(parse(t, `{"x":1}`), "/properties/shape", "/shape"); err != nil {
		t.Errorf("valid shape rejected: %v", err)
	}
	wantViolation(t, "shape", s.Check(parse(t, `{"y":1}`), "/properties/shape", "/shape"), "/shape", "oneOf")
	if err := s.Check(nil, "/properties/nothing", ""); err == nil || errors.As(err, new(*ValidationError)) {
		t.Errorf("a pointer to nothing: got %v, want an error that is not a violation", err)
	}
	if err := NewSchema(`{`).Check(nil, "", ""); err == nil {
		t.Error("a schema that does not parse: no error")
	}
}

// TestCheckArguments walks the checks' paths into the encoded arguments:
// members, every item, every member of a map, and an absent member.
func TestCheckArguments(t *testing.T) {
	s := NewSchema(`{"properties":{"v":{"type":["string","number"]},"tree":{"properties":{"kids":{"items":{"type":"object","required":["n"]}}}},"tags":{"additionalProperties":{"type":"string"}}}}`)
	checks := []RawCheck{
		{Path: []Step{{Name: "v"}}, Schema: s, At: "/properties/v"},
		{Path: []Step{{Name: "tree"}, {Name: "kids"}, {Each: true}}, Schema: s, At: "/properties/tree/properties/kids/items"},
		{Path: []Step{{Name: "tags"}, {Each: true}}, Schema: s, At: "/properties/tags/additionalProperties"},
	}
	args := func(s string) map[string]json.RawMessage {
		var m map[string]json.RawMessage
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	if err := CheckArguments(args(`{"v":"s","tree":{"kids":[{"n":1}]},"tags":{"a":"b"}}`), checks); err != nil {
		t.Errorf("valid arguments rejected: %v", err)
	}
	if err := CheckArguments(args(`{}`), checks); err != nil {
		t.Errorf("absent members rejected: %v", err)
	}
	err := CheckArguments(args(`{"v":true,"tree":{"kids":[{"n":1},{}]},"tags":{"a":"b","c":1}}`), checks)
	var list ValidationErrors
	if !errors.As(err, &list) || len(list) != 3 {
		t.Fatalf("got %v, want three violations", err)
	}
	for i, want := range []string{"/v", "/tree/kids/1", "/tags/c"} {
		if list[i].Pointer != want {
			t.Errorf("violation %d at %q, want %q (%v)", i, list[i].Pointer, want, list[i])
		}
	}
	wantViolation(t, "one violation", CheckArguments(args(`{"v":false}`), checks), "/v", "want string or number")
	wantViolation(t, "not JSON", CheckArguments(map[string]json.RawMessage{"v": json.RawMessage(`{`)}, checks), "/v", "not JSON")
	root := []RawCheck{{Schema: NewSchema(`{"required":["a"]}`)}}
	wantViolation(t, "the arguments themselves", CheckArguments(args(`{}`), root), "", "missing required property")
}

// FuzzSchemaCheck: any schema document and any value are checked without a
// panic or a hang (the schema comes from a server someone else wrote).
func FuzzSchemaCheck(f *testing.F) {
	f.Add(`{"oneOf":[{"$ref":"#"},{"type":"string"}]}`, `"x"`)
	f.Add(`{"$defs":{"a":{"allOf":[{"$ref":"#/$defs/a"}]}},"items":{"$ref":"#/$defs/a"}}`, `[1,[2]]`)
	f.Add(`{"patternProperties":{"(":{}},"minLength":1e999,"multipleOf":0}`, `{"a":"b"}`)
	f.Add(`{"prefixItems":[true,false],"contains":{"not":{}},"dependencies":{"a":["b"]}}`, `[1,2]`)
	f.Fuzz(func(t *testing.T, schema, value string) {
		v, err := Parse([]byte(value))
		if err != nil {
			return
		}
		_ = NewSchema(schema).Check(v, "", "")
	})
}

// TestSchemaConcurrent: a generated package's Schema is shared by every
// call: first use (parsing) and the pattern cache are safe from many
// goroutines (run with -race).
func TestSchemaConcurrent(t *testing.T) {
	s := NewSchema(`{"properties":{"id":{"pattern":"^[a-z]+$"}}}`)
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		go func() {
			v := map[string]any{"id": "abc"}
			if i%2 == 1 {
				v["id"] = "ABC"
			}
			err := s.Check(v, "", "")
			if (err == nil) == (i%2 == 1) {
				errs <- fmt.Errorf("goroutine %d: %v", i, err)
				return
			}
			errs <- nil
		}()
	}
	for i := 0; i < 8; i++ {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
