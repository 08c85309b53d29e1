package mcp20251125

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testsupport/modeltest"
	"github.com/mcpgen/mcpgen/runtime/genimpl"
)

// FuzzCodecVsEncodingJSON compares the generated codec with encoding/json on
// every generated type of the revision, for each input: what encoding/json
// rejects as JSON no type accepts; what a type accepts it encodes to JSON
// equal to the input (exactness), byte for byte what json.Marshal writes for
// the value (the encoder's escaping and compaction are encoding/json's), and
// decoding that again gives the same bytes.
func FuzzCodecVsEncodingJSON(f *testing.F) {
	m, _ := modeltest.Load(f, revision)
	var defs []string
	for _, d := range m.Definitions {
		defs = append(defs, d.Name)
		for v := 0; v < 2; v++ {
			if data, err := modeltest.Instance(m, d.Name, v); err == nil {
				f.Add(data)
			}
		}
	}
	f.Add([]byte(`{"type":"text","text":"<a>\u2028","text":"b","x":[1, 2],"_meta":{"k" : 1}}`))
	f.Add([]byte(`{"content":[{"type":"image","data":"AA==","mimeType":"image/png"}],"structuredContent":{"a":1.0}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		valid := json.Valid(data)
		for _, def := range defs {
			v, err := DecodeDefinition(def, data)
			if err != nil {
				continue
			}
			if !valid {
				t.Fatalf("%s accepted invalid JSON %q", def, data)
			}
			want, err := json.Marshal(v)
			if err != nil {
				continue // e.g. a union member the input left unset
			}
			got, err := genimpl.AppendValue(nil, v)
			if err != nil {
				t.Fatalf("%s: the codec fails (%v), json.Marshal does not", def, err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s: MarshalJSON\n%s\njson.Marshal\n%s", def, got, want)
			}
			if err := modeltest.Equal(data, got); err != nil {
				t.Fatalf("%s: not exact: %v\nin:  %s\nout: %s", def, err, data, got)
			}
			v2, err := DecodeDefinition(def, got)
			if err != nil {
				t.Fatalf("%s: re-decoding %s: %v", def, got, err)
			}
			again, _ := json.Marshal(v2)
			if !bytes.Equal(again, got) {
				t.Fatalf("%s: not a fixed point:\n%s\n%s", def, got, again)
			}
		}
	})
}
