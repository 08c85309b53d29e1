package schema

import (
	"strings"
	"testing"
)

// TestRequiredCycles: a definition that must contain itself by value is
// refused naming the member that closes the loop; a loop that can end
// (array, map, union, optional or nullable member) is fine.
func TestRequiredCycles(t *testing.T) {
	const head = `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{`
	refused := map[string]struct{ defs, pointer string }{
		"direct": {`"X":{"type":"object","properties":{"next":{"$ref":"#/definitions/X"}},"required":["next"]}`,
			"#/definitions/X/properties/next"},
		"mutual": {`"X":{"type":"object","properties":{"y":{"$ref":"#/definitions/Y"}},"required":["y"]},
			"Y":{"type":"object","properties":{"x":{"$ref":"#/definitions/X"}},"required":["x"]}`,
			"#/definitions/Y/properties/x"},
		"through an inline object": {`"X":{"type":"object","properties":{"a":{"type":"object","properties":{"x":{"$ref":"#/definitions/X"}},"required":["x"]}},"required":["a"]}`,
			"#/definitions/X/properties/a/properties/x"},
		"through an alias": {`"X":{"type":"object","properties":{"z":{"$ref":"#/definitions/Z"}},"required":["z"]},"Z":{"$ref":"#/definitions/X"}`,
			"#/definitions/X/properties/z"},
		"through allOf": {`"X":{"allOf":[{"$ref":"#/definitions/B"},{"type":"object","properties":{"x":{"$ref":"#/definitions/X"}},"required":["x"]}]},
			"B":{"type":"object","properties":{"b":{"type":"string"}}}`,
			"#/definitions/X/allOf/1/properties/x"},
	}
	for name, c := range refused {
		t.Run(name, func(t *testing.T) {
			_, err := LoadBytes("test.json", []byte(head+c.defs+`}}`), Options{Revision: "2099-01-01"})
			if err == nil || !strings.Contains(err.Error(), "test.json: "+c.pointer+": ") || !strings.Contains(err.Error(), "contain itself") {
				t.Errorf("err = %v, want one naming %s", err, c.pointer)
			}
		})
	}
	accepted := map[string]string{
		"optional":   `"X":{"type":"object","properties":{"next":{"$ref":"#/definitions/X"}}}`,
		"array":      `"X":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/definitions/X"}}},"required":["kids"]}`,
		"map":        `"X":{"type":"object","properties":{"kids":{"type":"object","additionalProperties":{"$ref":"#/definitions/X"}}},"required":["kids"]}`,
		"union":      `"X":{"type":"object","properties":{"n":{"anyOf":[{"$ref":"#/definitions/X"},{"type":"string"}]}},"required":["n"]}`,
		"no loop":    `"X":{"type":"object","properties":{"y":{"$ref":"#/definitions/Y"}},"required":["y"]},"Y":{"type":"object","properties":{"s":{"type":"string"}},"required":["s"]}`,
		"diamond":    `"X":{"type":"object","properties":{"a":{"$ref":"#/definitions/Y"},"b":{"$ref":"#/definitions/Y"}},"required":["a","b"]},"Y":{"type":"object"}`,
		"alias ring": `"X":{"type":"object","properties":{"y":{"$ref":"#/definitions/Y"}}},"Y":{"$ref":"#/definitions/X"}`,
	}
	for name, defs := range accepted {
		t.Run(name, func(t *testing.T) {
			if _, err := LoadBytes("test.json", []byte(head+defs+`}}`), Options{Revision: "2099-01-01"}); err != nil {
				t.Errorf("refused: %v", err)
			}
		})
	}
}
