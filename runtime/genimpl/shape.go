package genimpl

import (
	"encoding/json"
	"slices"
)

// Shape is what a structural union branch demands of a value: required
// members, constant and enum members, and shapes of nested required objects.
// Generated packages declare one per branch of such a union.
type Shape struct {
	// Required lists the members that must be present.
	Required []string
	// Consts maps members to the JSON text of their constant value.
	Consts map[string]string
	// Enums maps members to the strings they may hold.
	Enums map[string][]string
	// Nested maps required object members to their own shape.
	Nested map[string]*Shape
	// Declared lists every member the branch declares.
	Declared []string
}

// match reports whether data meets s, and how many of its members s does
// not declare.
func (s *Shape) match(data []byte) (bool, int) {
	m, err := DecodeObject(data)
	if err != nil {
		return false, 0
	}
	for _, r := range s.Required {
		if _, ok := m[r]; !ok {
			return false, 0
		}
	}
	for k, want := range s.Consts {
		if v, ok := m[k]; ok && !SameJSON(v, want) {
			return false, 0
		}
	}
	for k, allowed := range s.Enums {
		if v, ok := m[k]; ok {
			var str string
			if json.Unmarshal(v, &str) != nil || !slices.Contains(allowed, str) {
				return false, 0
			}
		}
	}
	for k, n := range s.Nested {
		if v, ok := m[k]; ok {
			if ok, _ := n.match(v); !ok {
				return false, 0
			}
		}
	}
	undeclared := 0
	for k := range m {
		if !slices.Contains(s.Declared, k) {
			undeclared++
		}
	}
	return true, undeclared
}

// BestShape returns the index of the shape data meets with the fewest
// undeclared members, the earliest on a tie, or -1.
func BestShape(data []byte, shapes []*Shape) int {
	best, fewest := -1, 0
	for i, s := range shapes {
		if ok, n := s.match(data); ok && (best < 0 || n < fewest) {
			best, fewest = i, n
		}
	}
	return best
}
