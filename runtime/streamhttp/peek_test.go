package streamhttp

import (
	"encoding/json"
	"testing"
)

// peekPlain reads what encoding/json reads wherever it answers.
func TestPeekPlainAgrees(t *testing.T) {
	keys := []string{"io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities", "x"}
	for _, params := range []string{`{}`, `{"_meta":null}`, `{"_meta":{}}`, `{"_meta":"x"}`, `{"_meta":[]}`,
		`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"echo","arguments":{"a":1}}`,
		`{"_meta":{"x":1,"x":2},"_meta":{"x":3}}`, `{"_meta":{"x":1},"_meta":null}`, `{"_meta":{"x":1},"_meta":{"y":2}}`, `{"_meta":{"\u0078":1}}`,
		`{"name":null}`, `{"name":"a","name":null}`, `{"name":3}`, `{"name":"a\"b"}`, `{"name":"\u00e9"}`, `{"uri":"file:///a"}`,
		`{"NAME":"a"}`, `{"Uri":"u"}`, `{"n\u0061me":"a"}`, `{"arguments":null}`, `{"arguments": [1, 2] }`, `{"other":{"name":1}}`,
	} {
		plain, ok := peekPlain([]byte(params))
		if !ok {
			continue
		}
		var slow peek
		if err := json.Unmarshal([]byte(params), &slow); err != nil {
			t.Errorf("%s: plain reads it, encoding/json fails: %v", params, err)
			continue
		}
		pn, pnok := plain.nameOf()
		sn, snok := slow.nameOf()
		pu, puok := plain.uriOf()
		su, suok := slow.uriOf()
		if pn != sn || pnok != snok || pu != su || puok != suok || string(plain.Arguments) != string(slow.Arguments) {
			t.Errorf("%s: plain name %q %v uri %q %v args %s; encoding/json %v %v %s", params, pn, pnok, pu, puok, plain.Arguments, slow.Name, slow.URI, slow.Arguments)
		}
		for _, member := range []string{"name", "uri"} {
			for _, v := range []string{"echo", `a"b`, "file:///a", "a", ""} {
				if got, want := plain.stringMemberIs([]byte(params), member, v), slow.stringMemberIs([]byte(params), member, v); got != want {
					t.Errorf("%s: %s is %q: plain %v, encoding/json %v", params, member, v, got, want)
				}
			}
		}
		for _, k := range keys {
			a, aok := plain.metaMember(k)
			b, bok := slow.metaMember(k)
			if aok != bok || string(a) != string(b) {
				t.Errorf("%s: _meta[%s] plain %s %v, encoding/json %s %v", params, k, a, aok, b, bok)
			}
		}
	}
}

// TestPeekAllocatesNothing: every modern request is peeked (params,
// version, Mcp-Name) and its client keyed by address on the way in; in
// the plain case none of it copies anything out.
func TestPeekAllocatesNothing(t *testing.T) {
	params := json.RawMessage(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":"echo","arguments":{"a":1}}`)
	known := []string{"2026-07-28"}
	n := testing.AllocsPerRun(100, func() {
		p, ok := peekParams(params)
		v, vok := p.metaVersion(known)
		if !ok || !vok || v != "2026-07-28" || !p.stringMemberIs(params, "name", "echo") || addrKey("192.0.2.7:4321") != "192.0.2.7" {
			t.Fatal("peek went wrong")
		}
	})
	if n != 0 {
		t.Fatalf("%v allocations per request peeked, want 0", n)
	}
}
