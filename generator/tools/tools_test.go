package tools

import (
	"strings"
	"testing"
)

const imp = "github.com/mcpgen/mcpgen/generated/mcp20251125"

// TestErrorsNamePointer: each unsupported or malformed construct is one
// error naming the tools file and the JSON pointer of the culprit.
func TestErrorsNamePointer(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{`{}`, `t.json: #: want a JSON array of Tool objects`},
		{`[{"inputSchema":{"type":"object"}}]`, `t.json: #/0/name: missing`},
		{`[{"name":"x"}]`, `t.json: #/0/inputSchema: missing`},
		{`[{"name":"x","inputSchema":true}]`, `t.json: #/0/inputSchema: a schema must be a JSON object`},
		{`[{"name":"x","inputSchema":{"type":["object","null"]}}]`, `t.json: #/0/inputSchema/type: only a single type name`},
		{`[{"name":"x","inputSchema":{"type":"object","additionalProperties":{"type":"string"}}}]`,
			`t.json: #/0/inputSchema/additionalProperties: only true or false`},
		{`[{"name":"x","inputSchema":{"type":"object","properties":{"a":{"type":"array","contains":{"type":"string"}}}}}]`,
			`t.json: #/0/inputSchema/properties/a/contains: unsupported keyword "contains"`},
		{`[{"name":"x","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"string","format":"email"}}}}]`,
			`t.json: #/0/inputSchema/properties/a/format: "format" is only supported in JSON Schema 2020-12`},
		{`[{"name":"x","inputSchema":{"type":"object","properties":{"a,b":{}}}}]`,
			`t.json: #/0/inputSchema/properties/a,b: encoding/json cannot name a struct field "a,b"`},
		{`[{"name":"x","inputSchema":{"type":"object","properties":{"a":{"type":"number","multipleOf":0}}}}]`,
			`t.json: #/0/inputSchema/properties/a/multipleOf: must be greater than 0`},
		{`[{"name":"x","inputSchema":{"type":"object","properties":{"a/b":{"type":"null"}}}}]`,
			`t.json: #/0/inputSchema/properties/a~1b/type: unsupported type "null"`},
		{`[{"name":"x","inputSchema":{"type":"object","properties":{"a_b":{},"aB":{}}}}]`,
			`t.json: #/0/inputSchema/properties/a_b: Go field name AB is also the name of property "aB"`},
		{`[{"name":"x","inputSchema":{"type":"object","properties":{"a":{"type":"string","minLength":-1}}}}]`,
			`t.json: #/0/inputSchema/properties/a/minLength: must be a non-negative integer`},
		{`[{"name":"x","inputSchema":{"type":"object"},"outputSchema":{"type":"array"}}]`,
			`t.json: #/0/outputSchema/type: must be "object"`},
		{`[{"name":"x","inputSchema":{"type":"object","properties":{"result":{"type":"object","properties":{"c":{}}}}}},` +
			`{"name":"x_args","inputSchema":{"type":"object"},"outputSchema":{"type":"object"}}]`,
			`t.json: #/1/outputSchema: Go type name XArgsResult is already used by #/0/inputSchema/properties/result`},
	} {
		_, err := Generate([]byte(c.file), Options{Package: "p", Import: imp, ToolsFile: "t.json"})
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s:\n got %v\nwant %s…", c.file, err, c.want)
		}
	}
}

func TestGoName(t *testing.T) {
	for in, want := range map[string]string{
		"get_weather": "GetWeather", "maxResults": "MaxResults", "id": "ID", "user-id": "UserID",
		"admin.tools.list": "AdminToolsList", "DATA_EXPORT_v2": "DATAEXPORTV2", "2fa": "X2fa", "": "X", "ms": "Ms",
	} {
		if got := goName(in); got != want {
			t.Errorf("goName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestNameClashes: identifiers the generated code declares never collide;
// a clash is an error, not uncompilable output.
func TestNameClashes(t *testing.T) {
	for _, c := range []struct{ file, want string }{
		{`[{"name":"x","inputSchema":{"type":"object"}},{"name":"decode_x","inputSchema":{"type":"object"}}]`, `Go type name DecodeXArgs`},
		{`[{"name":"handler","inputSchema":{"type":"object"}},{"name":"a","inputSchema":{"type":"object","properties":{"s":{"type":"string","enum":["args"]}}}},` +
			`{"name":"a_args_s","inputSchema":{"type":"object"}}]`, `#/2/inputSchema: Go type name AArgsSArgs is already used by #/1/inputSchema/properties/s/enum/0`},
		{`[{"name":"json","inputSchema":{"type":"object"}},{"name":"tools_json","inputSchema":{"type":"object"}}]`, ``},
		{`[{"name":"s","inputSchema":{"type":"object","properties":{"e":{"type":"string","enum":["a-b","a_b"]}}}}]`, ``},
	} {
		files, err := Generate([]byte(c.file), Options{Package: "p", Import: imp, ToolsFile: "t.json"})
		if c.want == "" {
			if err != nil {
				t.Errorf("%s: %v", c.file, err)
			} else if !strings.Contains(string(files["tools.go"]), "SArgsE1  SArgsE = \"a_b\"") && strings.Contains(c.file, "a-b") {
				t.Errorf("%s: the second constant is not numbered:\n%s", c.file, files["tools.go"])
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %s", c.file, err, c.want)
		}
	}
}
