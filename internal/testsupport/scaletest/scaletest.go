// Package scaletest makes large schemas for the scale benchmarks and
// tests: an official schema plus any number of extra definitions, each
// with any number of properties of every shape mcpgen maps (scalars,
// enums, arrays, maps, references to official and to other extra
// definitions, unions).
package scaletest

import (
	"encoding/json"
	"fmt"

	"github.com/mcpgen/mcpgen/official"
)

// Schema returns the official schema of rev with n extra definitions of
// props properties each, named Extra0000, Extra0001, …. The result is
// deterministic.
func Schema(rev string, n, props int) ([]byte, error) {
	data, err := official.Schema(rev)
	if err != nil {
		return nil, err
	}
	var root map[string]any
	if err := json.Unmarshal(data, &root); err != nil {
		return nil, err
	}
	defsKey := "definitions"
	if _, ok := root["$defs"]; ok {
		defsKey = "$defs"
	}
	defs := root[defsKey].(map[string]any)
	ref := func(name string) map[string]any { return map[string]any{"$ref": "#/" + defsKey + "/" + name} }
	for i := 0; i < n; i++ {
		properties := map[string]any{}
		var required []string
		for j := 0; j < props; j++ {
			name := fmt.Sprintf("field%02d", j)
			var p map[string]any
			switch j % 10 {
			case 0:
				p = map[string]any{"type": "string", "description": fmt.Sprintf("Field %d of extra definition %d.", j, i)}
			case 1:
				p = map[string]any{"type": "integer", "minimum": 0}
			case 2:
				p = map[string]any{"type": "boolean"}
			case 3:
				p = map[string]any{"type": "number"}
			case 4:
				p = map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
			case 5:
				p = map[string]any{"type": "string", "enum": []any{"alpha", "beta", "gamma"}}
			case 6:
				p = ref("Annotations") // an official definition
			case 7:
				// Another extra definition: a chain through the whole set,
				// optional so the loop it makes can end.
				p = ref(fmt.Sprintf("Extra%04d", (i+1)%n))
			case 8:
				p = map[string]any{"type": "object", "additionalProperties": map[string]any{"type": "integer"}}
			case 9:
				p = map[string]any{"anyOf": []any{map[string]any{"type": "string"}, ref("Annotations")}}
			}
			properties[name] = p
			if j%10 < 6 {
				required = append(required, name)
			}
		}
		defs[fmt.Sprintf("Extra%04d", i)] = map[string]any{
			"type":        "object",
			"description": fmt.Sprintf("Extra definition %d, for scale tests.", i),
			"properties":  properties,
			"required":    required,
		}
	}
	return json.MarshalIndent(root, "", "  ")
}
