package streamhttp

import (
	"encoding/json"
	"testing"
)

// requestVersionSlow is requestVersion's encoding/json reading.
func requestVersionSlow(params json.RawMessage) string {
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if len(params) == 0 || json.Unmarshal(params, &p) != nil {
		return ""
	}
	var v string
	_ = json.Unmarshal(p.Meta["io.modelcontextprotocol/protocolVersion"], &v)
	return v
}

// The plain reading gives encoding/json's answer wherever it answers.
func TestRequestVersionPlain(t *testing.T) {
	const k = `"io.modelcontextprotocol/protocolVersion"`
	for _, params := range []string{``, `{}`, `null`, `[]`, `{"_meta":null}`, `{"_meta":{}}`, `{"_meta":"x"}`,
		`{"_meta":{` + k + `:"2026-07-28"}}`, `{"_meta":{` + k + `:"2026-07-28"},"_meta":{` + k + `:"x"}}`,
		`{"_META":{` + k + `:"2026-07-28"}}`, `{"_m\u0065ta":{` + k + `:"2026-07-28"}}`, `{"_meta":{` + k + `:1}}`,
		`{"_meta":{` + k + `:null}}`, `{"_meta":{` + k + `:"a\"b"}}`, `{"_meta":{` + k + `:"\u00e9"}}`,
		`{"_meta":{"io.modelcontextprotocol/protocolversion":"x"}}`, `{"a":1,"_meta":{` + k + `:"v"}} `, `{"_meta":{` + k + `:"v"}`,
	} {
		want := requestVersionSlow(json.RawMessage(params))
		if got := requestVersion(json.RawMessage(params), []string{"2026-07-28"}); got != want {
			t.Errorf("%s: %q, encoding/json %q", params, got, want)
		}
	}
}
