package tasks

import (
	"encoding/json"
	"testing"
)

// Tool-level negotiation, requestor side: without tasks.requests.tools.call
// clients MUST NOT augment, whatever execution.taskSupport says; with it,
// forbidden or absent means MUST NOT.
func TestMUST_ClientAugmentsOnlyWhereCapabilityAndToolAllow(t *testing.T) {
	server := NewManager(Config{Methods: []string{"tools/call"}}).Capability()
	cases := []struct {
		caps    string
		support string
		want    bool
	}{
		{string(server), "optional", true},
		{string(server), "required", true},
		{string(server), "forbidden", false},
		{string(server), "", false},
		{`{"list":{},"cancel":{}}`, "required", false},
		{`{"requests":{"sampling":{"createMessage":{}}}}`, "optional", false},
		{``, "optional", false},
		{`{"requests":{"tools":{"call":true}}}`, "optional", false},
	}
	for _, c := range cases {
		if got := ToolAllowsTask(json.RawMessage(c.caps), c.support); got != c.want {
			t.Errorf("caps %s, taskSupport %q: %v, want %v", c.caps, c.support, got, c.want)
		}
	}
	client := NewManager(Config{Methods: []string{"sampling/createMessage", "elicitation/create"}}).Capability()
	if !Supports(client, "elicitation/create") || !Supports(client, "sampling/createMessage") || Supports(client, "tools/call") {
		t.Errorf("client capability %s", client)
	}
}
