package mcp20260728

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestRPCResultKind: rpcResultKind reads resultType as the map round trip
// it replaced did (the last occurrence, escaped keys decoded, anything but
// a string as ""), and when it is absent adds "complete" so that the result
// decodes to the same members.
func TestRPCResultKind(t *testing.T) {
	for _, tc := range []struct {
		in, kind string
		added    bool
	}{
		{`{"resultType":"complete","content":[]}`, "complete", false},
		{`{"resultType":"input_required"}`, "input_required", false},
		{`{"resultType":"a","resultType":"b"}`, "b", false},
		{`{"result\u0054ype":"x"}`, "x", false},
		{`{"resultType":7}`, "", false},
		{`{"resultType":null}`, "", false},
		{`{"content":[{"type":"text","text":"}"}]}`, "complete", true},
		{` { "a" : 1 } `, "complete", true},
		{`{}`, "complete", true},
		{` {  } `, "complete", true},
		{`[1]`, "", false},
		{`null`, "", false},
		{`"s"`, "", false},
	} {
		out, kind := rpcResultKind(json.RawMessage(tc.in))
		if kind != tc.kind {
			t.Errorf("%s: kind %q, want %q", tc.in, kind, tc.kind)
		}
		if !tc.added {
			if string(out) != tc.in {
				t.Errorf("%s: raw changed to %s", tc.in, out)
			}
			continue
		}
		var got, want map[string]any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%s: %s does not decode: %v", tc.in, out, err)
		}
		if err := json.Unmarshal([]byte(tc.in), &want); err != nil {
			t.Fatal(err)
		}
		want["resultType"] = "complete"
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %s, want the members plus resultType", tc.in, out)
		}
	}
}

// BenchmarkRPCResultKind: the result of every call passes here.
func BenchmarkRPCResultKind(b *testing.B) {
	raw := json.RawMessage(`{"content":[{"type":"text","text":"hello"}],"structuredContent":{"text":"hello"}}`)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		rpcResultKind(raw)
	}
}
