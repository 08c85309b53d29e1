package mcp20251125

import (
	"bytes"
	"testing"

	"github.com/mcpgen/mcpgen/internal/modeltest"
)

// TestPopulated builds, from the schema Model and not by hand, a maximal
// valid instance of every definition (every request, notification and
// result type among them) in as many variants as the largest union has
// branches, so every union branch, enum value, explicit false/0 and null
// is reached, and again with the required members only (absent members
// must stay absent). Each must decode into its Go type and re-encode to
// JSON that is equal to it and valid against the definition (jsonschema/v5).
func TestPopulated(t *testing.T) {
	m, c := modeltest.Load(t, "2025-11-25")
	variants := modeltest.MaxBranches(m)
	messages := 0
	for _, d := range m.Definitions {
		if modeltest.IsMessageType(d.Name) {
			messages++
		}
		t.Run(d.Name, func(t *testing.T) {
			var seen [][]byte
			for v := 0; v < 2*variants; v++ {
				build := modeltest.Instance
				if v >= variants {
					build = modeltest.MinimalInstance
				}
				data, err := build(m, d.Name, v%variants)
				if err != nil {
					t.Fatal(err)
				}
				if containsBytes(seen, data) {
					continue
				}
				seen = append(seen, data)
				if err := modeltest.Validate(c, d.Name, data); err != nil {
					t.Fatalf("variant %d: the instance built from the model is not valid (a modeltest bug): %v\n%s", v, err, data)
				}
				if _, err := modeltest.RoundTrip(c, DecodeDefinition, d.Name, data); err != nil {
					t.Errorf("variant %d: %v", v, err)
				}
			}
		})
	}
	if messages == 0 {
		t.Fatal("no request, notification or result definitions found")
	}
}

func containsBytes(list [][]byte, b []byte) bool {
	for _, x := range list {
		if bytes.Equal(x, b) {
			return true
		}
	}
	return false
}
