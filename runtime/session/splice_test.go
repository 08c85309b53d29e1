package session

import (
	"encoding/json"
	"reflect"
	"testing"
)

// sameJSON reports whether a and b decode to the same value.
func sameJSON(a, b []byte) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

var spliceSamples = []string{
	``, `null`, ` {} `, `{"a":1}`, `{"_meta":null}`, `{"_meta":{}}`,
	`{"name":"echo","arguments":{"text":"<&>"},"_meta":{"progressToken":7}}`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"x","other":[1,{"b":2}]},"z":true}`,
	`{"_m\u0065ta":{"io.modelcontextprotocol/clientInfo":null}}`,
	`{ "a" : [ 1 , 2 ] , "_meta" : { "io.modelcontextprotocol/logLevel" : "debug" } , "b" : "s" }`,
	`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientInfo":{"name":"c"},"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/logLevel":"info"}}`,
	// What the splice leaves to the encoding/json path.
	`[]`, `"s"`, `{"_meta":[]}`, `{"_meta":1}`, `{"_meta":{},"_meta":{"a":1}}`, `{`, `{"a":}`,
}

// TestSpliceMetaMatchesEditObject: MapLegacyParams and UnmapLegacyParams
// give what the map edit (addMeta, removeMeta) gave, member for member,
// and the same errors.
func TestSpliceMetaMatchesEditObject(t *testing.T) {
	lcs := []LegacyContext{
		{Version: "2025-11-25", ClientInfo: json.RawMessage(`{"name":"c","version":"1"}`), ClientCapabilities: json.RawMessage(`{"roots":{}}`), LogLevel: "info"},
		{Version: "2024-11-05"},
		{Version: "v\"<x>\u00e9"},
	}
	for _, s := range spliceSamples {
		for _, lc := range lcs {
			got, gerr := MapLegacyParams(json.RawMessage(s), lc)
			caps := lc.ClientCapabilities
			if len(caps) == 0 {
				caps = json.RawMessage(`{}`)
			}
			add := map[string]json.RawMessage{MetaProtocolVersion: mustJSON(lc.Version), MetaClientCapabilities: caps}
			if len(lc.ClientInfo) > 0 {
				add[MetaClientInfo] = lc.ClientInfo
			}
			if lc.LogLevel != "" {
				add[MetaLogLevel] = mustJSON(lc.LogLevel)
			}
			want, werr := addMeta(json.RawMessage(s), add)
			if (gerr != nil) != (werr != nil) || (gerr == nil && !sameJSON(got, want)) || (gerr != nil && gerr.Error() != werr.Error()) {
				t.Errorf("map %s (%+v):\n got %s %v\nwant %s %v", s, lc, got, gerr, want, werr)
			}
		}
		for _, hadMeta := range []bool{false, true} {
			got, gerr := UnmapLegacyParams(json.RawMessage(s), hadMeta)
			want, werr := removeMeta(json.RawMessage(s), modernMetaKeys, hadMeta)
			if (gerr != nil) != (werr != nil) || (gerr == nil && !sameJSON(got, want)) || (gerr != nil && gerr.Error() != werr.Error()) {
				t.Errorf("unmap %s (hadMeta %v):\n got %s %v\nwant %s %v", s, hadMeta, got, gerr, want, werr)
			}
		}
	}
}

// TestMapModernResultSplice: the one-pass removal gives what the three
// map edits gave.
func TestMapModernResultSplice(t *testing.T) {
	for _, s := range []string{
		`{"content":[],"resultType":"complete"}`,
		`{"resultType":"complete","tools":[{"name":"a"}],"cacheScope":"public","ttlMs":5,"nextCursor":"c"}`,
		`{ "result\u0054ype" : "complete" , "x" : { "resultType" : 1 } }`,
		`{"resultType":null,"ttlMs":1}`, `{"resultType":"","a":1,"resultType":"complete"}`,
	} {
		for _, cacheable := range []bool{false, true} {
			got, err := MapModernResult(json.RawMessage(s), cacheable)
			if err != nil {
				t.Fatalf("%s: %v", s, err)
			}
			want, _ := jsonscanWithout([]byte(s), cacheable)
			if !sameJSON(got, want) {
				t.Errorf("%s (cacheable %v): got %s, want %s", s, cacheable, got, want)
			}
		}
	}
	if _, err := MapModernResult(json.RawMessage(`{"resultType":"input_required"}`), false); err == nil {
		t.Error("input_required mapped")
	}
}

// jsonscanWithout is MapModernResult's removal as it was written: a map
// without the members.
func jsonscanWithout(b []byte, cacheable bool) ([]byte, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	delete(m, memberResultType)
	if cacheable {
		delete(m, memberCacheScope)
		delete(m, memberTTL)
	}
	return json.Marshal(m)
}

// TestMarshalResult: a generated result's own encoding is json.Marshal's.
func TestMarshalResult(t *testing.T) {
	type plain struct{ A string }
	for _, v := range []any{nil, plain{"<x>"}, (*plain)(nil)} {
		got, gerr := marshalResult(v)
		want, werr := json.Marshal(v)
		if string(got) != string(want) || (gerr == nil) != (werr == nil) {
			t.Errorf("%#v: got %s %v, want %s %v", v, got, gerr, want, werr)
		}
	}
}

func BenchmarkMapLegacyParams(b *testing.B) {
	params := json.RawMessage(`{"name":"echo","arguments":{"text":"hello"}}`)
	lc := LegacyContext{Version: "2025-11-25", ClientInfo: json.RawMessage(`{"name":"c","version":"1"}`), ClientCapabilities: json.RawMessage(`{"roots":{}}`), LogLevel: "info"}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := MapLegacyParams(params, lc); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMetaString: metaString reads a _meta member as json.Unmarshal into a
// string did.
func TestMetaString(t *testing.T) {
	for _, v := range []string{`"2026-07-28"`, `"a\"b"`, `"\u00e9"`, `null`, `1`, `{}`, `[]`, `true`} {
		params := json.RawMessage(`{"_meta":{"k":` + v + `}}`)
		got, gok := metaString(params, "k")
		var want string
		wok := json.Unmarshal([]byte(v), &want) == nil
		if got != want || gok != wok {
			t.Errorf("%s: %q %v, want %q %v", v, got, gok, want, wok)
		}
	}
	if _, ok := metaString(json.RawMessage(`{}`), "k"); ok {
		t.Error("absent member found")
	}
}
