package streamhttp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestHeaderValueEncoding(t *testing.T) {
	for in, want := range map[string]string{
		"us-west1":           "us-west1",
		"Hello, 世界":          "=?base64?SGVsbG8sIOS4lueVjA==?=",
		" padded ":           "=?base64?IHBhZGRlZCA=?=",
		"line1\nline2":       "=?base64?bGluZTEKbGluZTI=?=",
		"=?base64?literal?=": "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=",
	} {
		if got := EncodeHeaderValue(in); got != want {
			t.Errorf("EncodeHeaderValue(%q) = %q, want %q", in, got, want)
		}
		if back, ok := decodeHeaderValue(want); !ok || back != in {
			t.Errorf("decode(%q) = %q %v", want, back, ok)
		}
	}
	if _, ok := decodeHeaderValue("=?base64?!!!?="); ok {
		t.Error("broken base64 accepted")
	}
}

func TestParamHeadersFromSchema(t *testing.T) {
	ok := `{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},
		"opts":{"type":"object","properties":{"limit":{"type":"integer","x-mcp-header":"Limit"}}},"q":{"type":"string"}}}`
	got, err := ParamHeadersFromSchema(json.RawMessage(ok))
	if err != nil || len(got) != 2 {
		t.Fatalf("%v %v", got, err)
	}
	for name, schema := range map[string]string{
		"number":    `{"properties":{"x":{"type":"number","x-mcp-header":"X"}}}`,
		"in items":  `{"properties":{"x":{"type":"array","items":{"type":"string","x-mcp-header":"X"}}}}`,
		"in oneOf":  `{"oneOf":[{"properties":{"x":{"type":"string","x-mcp-header":"X"}}}]}`,
		"duplicate": `{"properties":{"a":{"type":"string","x-mcp-header":"X"},"b":{"type":"string","x-mcp-header":"x"}}}`,
		"not token": `{"properties":{"a":{"type":"string","x-mcp-header":"A B"}}}`,
		"empty":     `{"properties":{"a":{"type":"string","x-mcp-header":""}}}`,
	} {
		if _, err := ParamHeadersFromSchema(json.RawMessage(schema)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// The client mirrors annotated arguments into Mcp-Param-* headers and the
// server's validation accepts them.
func TestClientParamHeadersRoundTrip(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"},"n":{"type":"integer","x-mcp-header":"N"}}}`)
	phs, err := ParamHeadersFromSchema(schema)
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, Options{ParamHeaders: func(string) []ParamHeader { return phs }})
	c := NewClientTransport(f.url, ClientOptions{Revisions: testRevs(), Era: EraModern, Logger: quiet(), ParamHeaders: func(string) []ParamHeader { return phs }})
	conn := clientOn(t, c)
	var out json.RawMessage
	if err := conn.Call(context.Background(), "tools/call", map[string]any{"name": "sql", "arguments": map[string]any{"region": "Zürich", "n": 7}}, &out); err != nil {
		t.Fatalf("call: %v", err)
	}
	reqs := f.late.requests()
	if last := reqs[len(reqs)-1]; !strings.Contains(last, `"region":"Zürich"`) {
		t.Fatalf("last request %s", last)
	}
	// Without the headers the same call is refused.
	bare := NewClientTransport(f.url, ClientOptions{Revisions: testRevs(), Era: EraModern, Logger: quiet()})
	conn2 := clientOn(t, bare)
	err = conn2.Call(context.Background(), "tools/call", map[string]any{"name": "sql", "arguments": map[string]any{"region": "x"}}, nil)
	if err == nil || !strings.Contains(err.Error(), "Mcp-Param-Region") {
		t.Fatalf("call without headers: %v", err)
	}
}
