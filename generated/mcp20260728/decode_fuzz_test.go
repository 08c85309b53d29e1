package mcp20260728

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/modeltest"
)

var hostileInputs = []string{``, `null`, `[]`, `"x"`, `1`, `1.5`, `true`, `{}`, `{"type":1}`, `{"method":null}`,
	`{"jsonrpc":"2.0"}`, `{"content":{}}`, `[{}]`, `{"_meta":[]}`, `{"resultType":"input_required"}`, `{"a":`}

// TestHostileInputs: no definition's decoder panics on malformed or
// mistyped input, and every struct refuses a value that is not an object.
func TestHostileInputs(t *testing.T) {
	m, _ := modeltest.Load(t, "2026-07-28")
	for _, d := range m.Definitions {
		for _, in := range hostileInputs {
			v, err := DecodeDefinition(d.Name, []byte(in))
			if err != nil {
				continue
			}
			if _, err := json.Marshal(v); err != nil && !strings.Contains(err.Error(), "required member") {
				t.Errorf("%s: %s decoded but does not encode: %v", d.Name, in, err)
			}
		}
	}
}

// FuzzDecodeEncode: whatever decodes must encode, and decoding that
// encoding must give the same JSON again (the round trip is a fixed
// point). The seeds are the official examples.
func FuzzDecodeEncode(f *testing.F) {
	root := filepath.Join(filepath.Dir(modeltest.SchemaPath("2026-07-28")), "examples")
	files, _ := filepath.Glob(filepath.Join(root, "*", "*.json"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(filepath.Base(filepath.Dir(file)), data)
	}
	f.Fuzz(func(t *testing.T, def string, data []byte) {
		v, err := DecodeDefinition(def, data)
		if err != nil {
			return
		}
		out, err := json.Marshal(v)
		if err != nil {
			return // e.g. a union field the input left unset
		}
		v2, err := DecodeDefinition(def, out)
		if err != nil {
			t.Fatalf("%s: re-decoding %s: %v", def, out, err)
		}
		out2, err := json.Marshal(v2)
		if err != nil {
			t.Fatal(err)
		}
		if err := modeltest.Equal(out, out2); err != nil {
			t.Fatalf("%s: not a fixed point: %v\n%s\n%s", def, err, out, out2)
		}
	})
}
