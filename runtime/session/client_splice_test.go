package session

import (
	"encoding/json"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// TestSpliceModernParams: the spliced _meta is what modernParams' map edit
// made of the same params, and what it declines modernParams rejects or
// reads.
func TestSpliceModernParams(t *testing.T) {
	info, caps := json.RawMessage(`{"name":"c","version":"1"}`), json.RawMessage(`{"sampling":{}}`)
	samples := append([]string{
		`{"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"mine"},"io.modelcontextprotocol/clientCapabilities":{"roots":{}}}}`,
		`{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":null,"progressToken":1}}`,
		`{"_meta":{"io.modelcontextprotocol/clientInfo":{"name":"a"},"io.modelcontextprotocol/clientInfo":null}}`,
	}, spliceSamples...)
	for _, s := range samples {
		for _, ct := range []*clientTransport{{info: info, caps: caps}, {}} {
			want, werr := ct.modernParams(json.RawMessage(s), "2026-07-28")
			got, ok := spliceModernParams(json.RawMessage(s), "2026-07-28", ct.info, ct.caps)
			if !ok {
				continue // modernParams decides
			}
			if werr != nil || !sameJSON(got, want) {
				t.Errorf("%s:\n got %s\nwant %s %v", s, got, want, werr)
			}
		}
	}
}

// TestRequestJSON: the request built by appending decodes to the map the
// transport encoded before.
func TestRequestJSON(t *testing.T) {
	for _, id := range []jsonrpc2.RequestID{jsonrpc2.Int64ID(7), jsonrpc2.StringID("a<\"b")} {
		for _, method := range []string{"tools/call", "odd\u2028<é>\x01"} {
			for _, params := range []json.RawMessage{json.RawMessage(`{"a":[1, 2]}`), nil} {
				got := requestJSON(id, method, params)
				want := mustJSON(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
				if !sameJSON(got, want) {
					t.Errorf("got %s, want %s", got, want)
				}
			}
		}
	}
}

// TestResultTypeOf: as json.Unmarshal into a struct with a resultType field.
func TestResultTypeOf(t *testing.T) {
	for _, s := range []string{
		`{"resultType":"input_required"}`, `{"ResultType":"input_required"}`, `{"result\u0054ype":"x"}`,
		`{"resultType":"a","RESULTTYPE":"b"}`, `{"resultType":"a","resultType":1}`, `{"resultType":null}`,
		`{"x":{"resultType":"no"}}`, `null`, `[]`, `{"reſultType":"fold"}`,
	} {
		var want struct {
			ResultType string `json:"resultType"`
		}
		_ = json.Unmarshal([]byte(s), &want)
		if got := resultTypeOf([]byte(s)); got != want.ResultType {
			t.Errorf("%s: %q, want %q", s, got, want.ResultType)
		}
	}
}

// TestOnlyModernMeta: the scan answers as emptyModernMeta's map did.
func TestOnlyModernMeta(t *testing.T) {
	for _, s := range append([]string{`{"_meta":{"io.modelcontextprotocol/logLevel":"x"}}`, `{"_meta":"s"}`}, spliceSamples[:13]...) {
		if got, want := onlyModernMeta([]byte(s)), emptyModernMeta(json.RawMessage(s)); got != want {
			t.Errorf("%s: %v, want %v", s, got, want)
		}
	}
}
