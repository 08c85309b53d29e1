package liveclient

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMarshal: the snapshot file has its members in a fixed order, keeps
// each listed object's member order, leaves out lists the server does not
// declare, and is valid JSON ending in a newline.
func TestMarshal(t *testing.T) {
	s := &Snapshot{
		Server:          json.RawMessage(`{"name":"s","version":"1"}`),
		ProtocolVersion: "2025-11-25",
		Tools:           []json.RawMessage{json.RawMessage(`{"name":"b","inputSchema":{"type":"object"}}`), json.RawMessage(`{"name":"a","inputSchema":{}}`)},
	}
	got, err := s.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "mcpgenSnapshot": 1,
  "server": {
    "name": "s",
    "version": "1"
  },
  "protocolVersion": "2025-11-25",
  "tools": [
    {
      "name": "b",
      "inputSchema": {
        "type": "object"
      }
    },
    {
      "name": "a",
      "inputSchema": {}
    }
  ]
}
`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	s.Tools, s.Prompts, s.ResourceTemplates = []json.RawMessage{}, []json.RawMessage{}, nil
	got, _ = s.Marshal()
	if !strings.Contains(string(got), `"tools": [],`) || !strings.Contains(string(got), `"prompts": []`) || strings.Contains(string(got), "resourceTemplates") {
		t.Errorf("empty lists:\n%s", got)
	}
}

// TestTarget: a target is a command or a URL, not both, not neither.
func TestTarget(t *testing.T) {
	for _, tg := range []Target{{}, {Command: []string{"x"}, URL: "http://x"}} {
		if _, err := Fetch(t.Context(), tg); err == nil {
			t.Errorf("Fetch(%+v): no error", tg)
		}
	}
	if w := (Target{Command: []string{"srv", "-v"}}).Where(); w != "srv -v" {
		t.Errorf("Where = %q", w)
	}
}
