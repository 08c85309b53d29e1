package toolsupport

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"
)

// parseSlow is Parse as it was: encoding/json's Decoder with UseNumber.
func parseSlow(data []byte) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil, false
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, false
	}
	return v, true
}

var jsonSamples = []string{
	`{}`, `[]`, `null`, `true`, `false`, `0`, `-1.5e300`, `12345678901234567890.5`,
	`"plain"`, `"esc\"aped\n\u00e9\ud83d\ude00"`, "\"caf\xc3\xa9\"", "\"bad \xff utf8\"",
	` { "a" : [ 1 , { "b" : null } , "x" ] , "a" : 2 } `,
	`{"k\u0065y":1,"key":2}`, `{"":{"":[]}}`, `[[[[]]],{}]`,
	`{`, `1 2`, `{} x`, `nul`, `[1,]`, `{"a":1,}`, ``, ` `, "\"\x01\"",
}

// TestParseFastMatchesDecoder: every value parseFast builds is the one
// encoding/json builds, and it declines exactly what encoding/json rejects.
func TestParseFastMatchesDecoder(t *testing.T) {
	for _, s := range jsonSamples {
		got, gok := parseFast([]byte(s))
		want, wok := parseSlow([]byte(s))
		if gok != wok || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: fast %#v %v, encoding/json %#v %v", s, got, gok, want, wok)
		}
	}
}

func FuzzParseFast(f *testing.F) {
	for _, s := range jsonSamples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, gok := parseFast([]byte(s))
		want, wok := parseSlow([]byte(s))
		if gok && (!wok || !reflect.DeepEqual(got, want)) {
			t.Errorf("%q: fast %#v, encoding/json %#v %v", s, got, want, wok)
		}
	})
}

// TestResultJSONText: the text block is written as an encoding/json
// Encoder without HTML escaping writes it.
func TestResultJSONText(t *testing.T) {
	for _, s := range []string{"", "plain", "<a & b>", "q\"\\", "\x00\x01\b\f\n\r\t\x1f\x7f", "\u2028\u2029é😀", "bad \xff\xfe utf8"} {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.Encode(s)
		want := `{"content":[{"type":"text","text":` + strings.TrimSuffix(buf.String(), "\n") + `}],"structuredContent":{"x":1},"isError":true,"resultType":"complete"}`
		if got := string(ResultJSON([]byte(`{"x":1}`), s, true, true)); got != want {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
	}
	if got := string(ResultJSON(nil, "t", false, false)); got != `{"content":[{"type":"text","text":"t"}]}` {
		t.Errorf("no structured content: %s", got)
	}
}

// TestToolResultFast: what TypedResult reads of a result is what
// json.Unmarshal into its struct read; anything but the plain shape is
// declined (and then read by encoding/json).
func TestToolResultFast(t *testing.T) {
	for _, s := range []string{
		`{"content":[{"type":"text","text":"a"},{"type":"image","data":"x"},{"type":"text","text":"b"}],"isError":true}`,
		`{"content":[],"structuredContent":{"x":1},"isError":false,"resultType":"complete","_meta":{}}`,
		`{"content":null,"isError":null,"structuredContent":null}`,
		`{"content":[{"type":null,"text":"x"}],"isError":true,"isError":false}`,
		`{"IsError":true,"content":[]}`, `{"content":[{"Type":"text","text":"x"}],"isError":true}`,
		`{"isError":"yes"}`, `{"content":{}}`, `{"content":[1]}`, `{"content":[null]}`,
		`{"content":[{"type":1}]}`, `{"is\u0045rror":true}`,
	} {
		got, ok := toolResultFast([]byte(s))
		want, err := toolResultSlow([]byte(s))
		if !ok {
			continue
		}
		if err != nil {
			t.Errorf("%s: fast read it, encoding/json fails: %v", s, err)
			continue
		}
		if got.isError != want.isError || !reflect.DeepEqual(got.texts, want.texts) || !bytes.Equal(got.structuredContent, want.structuredContent) {
			t.Errorf("%s: fast %+v, encoding/json %+v", s, got, want)
		}
	}
	for _, s := range []string{`{"IsError":true}`, `{"isError":"yes"}`, `{"content":[1]}`, `{"content":[null]}`, `{"is\u0045rror":true}`} {
		if _, ok := toolResultFast([]byte(s)); ok {
			t.Errorf("%s: read by the fast path", s)
		}
	}
}

// TestMembersFast: ArgumentsOf's split is json.Unmarshal's.
func TestMembersFast(t *testing.T) {
	for _, s := range []string{`{}`, `{"a":1,"b":{"c":[2]},"a":3}`, `{"k\u0065y":"v"}`} {
		got, ok := membersFast([]byte(s))
		var want map[string]json.RawMessage
		if err := json.Unmarshal([]byte(s), &want); err != nil || !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: fast %v %v, encoding/json %v", s, got, ok, want)
		}
	}
	if _, ok := membersFast([]byte(`null`)); ok {
		t.Error("null read as an object")
	}
}
