package modeltest

import (
	"bytes"
	"errors"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// The checks below are shared by the generated packages of every revision:
// each calls them from its own Test functions with its DecodeDefinition.

// Populated builds, from the schema Model and not by hand, a maximal
// valid instance of every definition (every request, notification and
// result type among them) in as many variants as the largest union has
// branches, so every union branch, enum value, explicit false/0 and null
// is reached, and again with the required members only (absent members
// must stay absent). Each must decode into its Go type and re-encode to
// JSON that is equal to it and valid against the definition (jsonschema/v5).
func Populated(t *testing.T, rev string, decode Decoder) {
	m, c := Load(t, rev)
	variants := MaxBranches(m)
	messages := 0
	for _, d := range m.Definitions {
		if IsMessageType(d.Name) {
			messages++
		}
		t.Run(d.Name, func(t *testing.T) {
			var seen [][]byte
			for v := 0; v < 2*variants; v++ {
				build := Instance
				if v >= variants {
					build = MinimalInstance
				}
				data, err := build(m, d.Name, v%variants)
				if err != nil {
					t.Fatal(err)
				}
				if containsBytes(seen, data) {
					continue
				}
				seen = append(seen, data)
				if err := Validate(c, d.Name, data); err != nil {
					t.Fatalf("variant %d: the instance built from the model is not valid (a modeltest bug): %v\n%s", v, err, data)
				}
				if _, err := RoundTrip(c, decode, d.Name, data); err != nil {
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

// ValidMutationsDecode is differential: random mutations of the
// populated instances that jsonschema/v5 still accepts must decode and
// round-trip too (the decoders never refuse a valid document). Invalid
// mutations may decode or not: the types are lenient where the schema is
// not structural (enum values, bounds, unknown discriminators).
func ValidMutationsDecode(t *testing.T, rev string, decode Decoder) {
	m, c := Load(t, rev)
	valid := 0
	tolerated := map[string]int{}
	for i, d := range m.Definitions {
		for v := 0; v < 2; v++ {
			data, err := Instance(m, d.Name, v)
			if err != nil {
				t.Fatal(err)
			}
			for _, mut := range Mutations(data, int64(i*2+v), 40) {
				if Validate(c, d.Name, mut) != nil {
					continue
				}
				valid++
				_, err := RoundTrip(c, decode, d.Name, mut)
				switch {
				case err == nil:
				case errors.Is(err, jsonrpc2.ErrInvalidID):
					// Ids are integer literals or strings only (jsonrpc2.RequestID,
					// as JSON-RPC expects), where JSON Schema also counts 2.0.
					tolerated["id written as a non-literal integer"]++
				case SpecDivergence(m, c, d.Name, mut) != "":
					tolerated[SpecDivergence(m, c, d.Name, mut)]++
				default:
					t.Errorf("%s: a valid document does not round-trip: %v", d.Name, err)
				}
			}
		}
	}
	t.Logf("%d valid mutations", valid)
	for why, n := range tolerated {
		t.Logf("%d refused by design: %s", n, why)
	}
}
