package session

import (
	"encoding/json"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// FuzzSpliceMeta: whatever the params, the client's splices agree with the
// map edits they replace where they do not decline (modern _meta added,
// legacy _meta stripped, in a new buffer and in the Conn's own message),
// and what they produce is valid JSON.
func FuzzSpliceMeta(f *testing.F) {
	for _, s := range spliceSamples {
		f.Add([]byte(s), false)
	}
	f.Add([]byte(`{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"","x":1}}`), true)
	info, caps := json.RawMessage(`{"name":"c","version":"1"}`), json.RawMessage(`{"roots":{}}`)
	ct := &clientTransport{info: info, caps: caps}
	id := jsonrpc2.Int64ID(7)
	f.Fuzz(func(t *testing.T, params []byte, hadMeta bool) {
		if !json.Valid(params) {
			return
		}
		if got, ok := spliceModernParams(params, "2026-07-28", info, caps); ok {
			want, err := ct.modernParams(params, "2026-07-28")
			if err != nil || !json.Valid(got) || !sameJSON(got, want) {
				t.Fatalf("modern %s:\n got %s\nwant %s (%v)", params, got, want, err)
			}
		}
		msg, ok := unmapLegacyRequest(id, "tools/call", params, hadMeta)
		if !ok {
			return
		}
		want, err := UnmapLegacyParams(params, hadMeta)
		if err != nil || !json.Valid(msg) || string(msg) != string(requestJSON(id, "tools/call", want)) {
			t.Fatalf("legacy %s: %s, want %s (%v)", params, msg, requestJSON(id, "tools/call", want), err)
		}
		if len(params) == 0 {
			return
		}
		conn := requestJSON(id, "tools/call", params)
		at := len(conn) - 1 - len(params)
		got, in, ok := unmapLegacyInPlace(conn, conn[at:len(conn)-1], hadMeta)
		if ok && (string(got) != string(msg) || string(in) != string(want)) {
			t.Fatalf("legacy in place %s: %s (params %s), want %s", params, got, in, msg)
		}
	})
}
