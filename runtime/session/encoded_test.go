package session

import (
	"encoding/json"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// mapModernResult in place writes what MapModernResult writes into a new
// slice, over the encoded result itself.
func TestMapModernResultInPlace(t *testing.T) {
	for _, c := range []struct {
		in        string
		cacheable bool
	}{
		{`{"content":[],"resultType":"complete"}`, false},
		{`{"resultType":"complete","content":[{"type":"text","text":"a"}],"isError":true}`, false},
		{`{"resultType":"complete"}`, false},
		{`{"tools":[],"cacheScope":"private","ttlMs":0,"resultType":"complete","nextCursor":"x"}`, true},
		{`{"tools":[],"cacheScope":"private","ttlMs":0,"resultType":"complete"}`, false},
		{`{"a":1}`, true},
		{`{"resultType":""}`, false},
		{`{"resultType":"input_required"}`, false},
	} {
		want, werr := MapModernResult([]byte(c.in), c.cacheable)
		buf := []byte(c.in)
		got, gerr := mapModernResult(buf, c.cacheable, true)
		if (werr == nil) != (gerr == nil) || string(got) != string(want) {
			t.Errorf("%s: in place %s, %v; MapModernResult %s, %v", c.in, got, gerr, want, werr)
		}
		if gerr == nil && len(got) > 0 && &got[0] != &buf[0] {
			t.Errorf("%s: not mapped in place", c.in)
		}
	}
}

// The client transport's one-buffer requests are requestJSON of the
// spliced params, byte for byte, and keep the spliced params in the message.
func TestSpliceRequestInOneBuffer(t *testing.T) {
	info, caps := json.RawMessage(`{"name":"c","version":"1"}`), json.RawMessage(`{"roots":{}}`)
	ids := []jsonrpc2.RequestID{jsonrpc2.Int64ID(7), jsonrpc2.Int64ID(-123456789012), jsonrpc2.StringID("a\"<b")}
	for _, params := range []string{`{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"","x":1}}`,
		`{"name":"echo"}`, `{}`, ``, `null`, `{"_meta":null,"a":[1,2]}`, ` { "a" : 1 } `} {
		for _, id := range ids {
			for _, method := range []string{"tools/call", "m\u2028<x>"} {
				if msg, spliced, ok := spliceModernRequest(id, method, []byte(params), "2026-07-28", info, caps); ok {
					want, _ := spliceModernParams([]byte(params), "2026-07-28", info, caps)
					if string(msg) != string(requestJSON(id, method, want)) || string(spliced) != string(want) {
						t.Errorf("modern %s %s: %s (params %s), want %s", id, params, msg, spliced, requestJSON(id, method, want))
					}
				} else if _, ok := spliceModernParams([]byte(params), "2026-07-28", info, caps); ok {
					t.Errorf("modern %s: spliced alone but not in a request", params)
				}
				for _, hadMeta := range []bool{false, true} {
					if msg, ok := unmapLegacyRequest(id, method, []byte(params), hadMeta); ok {
						want, err := UnmapLegacyParams([]byte(params), hadMeta)
						if err != nil || string(msg) != string(requestJSON(id, method, want)) {
							t.Errorf("legacy %s %s: %s, want %s (%v)", id, params, msg, requestJSON(id, method, want), err)
						}
						// In place, in the Conn's message (params last): the
						// same request, its params within it.
						if params == "" {
							continue // the Conn writes no params member then
						}
						conn := requestJSON(id, method, []byte(params))
						at := len(conn) - 1 - len(params)
						got, in, ok := unmapLegacyInPlace(conn, conn[at:len(conn)-1], hadMeta)
						if ok && (string(got) != string(requestJSON(id, method, want)) || string(in) != string(want) || &got[0] != &conn[0]) {
							t.Errorf("legacy in place %s %s: %s (params %s), want %s", id, params, got, in, requestJSON(id, method, want))
						}
						if !ok && len(want) <= len(params) {
							t.Errorf("legacy in place %s: declined an edit that fits", params)
						}
					}
				}
			}
		}
	}
}
