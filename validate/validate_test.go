package validate

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/official"
	"github.com/mcpgen/mcpgen/schema"
)

func validator(t *testing.T, rev string) *Validator {
	t.Helper()
	data, err := official.Schema(rev)
	if err != nil {
		t.Fatal(err)
	}
	m, err := schema.LoadBytes(rev, data, schema.Options{Revision: rev})
	if err != nil {
		t.Fatal(err)
	}
	c, err := schema.Compile(rev, data)
	if err != nil {
		t.Fatal(err)
	}
	return New(m, c)
}

const session = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}

{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}
{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"a","reason":"gave up"}}
{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"nope"}}
`

func TestValidSession(t *testing.T) {
	n, problems, err := validator(t, "2025-11-25").Stream(strings.NewReader(session))
	if err != nil || n != 6 || len(problems) != 0 {
		t.Fatalf("Stream = %d, %v, %v; want 6 messages and no problem", n, problems, err)
	}
}

// TestProblemsNameLineAndPointer: each kind of mistake is reported at its
// line and JSON pointer.
func TestProblemsNameLineAndPointer(t *testing.T) {
	input := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"arguments":{}}}
{"jsonrpc":"2.0","id":2,"method":"tools/frobnicate"}
{"jsonrpc":"1.0","id":3,"method":"ping"}
{"jsonrpc":"2.0","method":"ping"}
{"jsonrpc":"2.0","id":4,"method":"notifications/initialized"}
{"jsonrpc":"2.0","id":5,"method":"tools/list"}
{"jsonrpc":"2.0","id":5,"result":{}}
not json
`
	_, problems, err := validator(t, "2025-11-25").Stream(strings.NewReader(input))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"line 1: /params: missing properties: 'name'",
		`line 2: /method: unknown method "tools/frobnicate"`,
		`line 3: /jsonrpc: must be "2.0"`,
		`line 4: (message): "ping" is a request in revision 2025-11-25: it needs an id`,
		`line 5: /id: "notifications/initialized" is a notification`,
		"line 7: /result: missing properties: 'tools' (ListToolsResult)",
		"line 8: (message): not a JSON-RPC message",
	}
	var got []string
	for _, p := range problems {
		got = append(got, p.String())
	}
	if len(got) != len(want) {
		t.Fatalf("got %d problems, want %d:\n%s", len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("problem %d = %q, want it to start with %q", i, got[i], want[i])
		}
	}
}

// TestDocument: a JSON document spread over lines (an array of messages)
// names the line where the bad element starts and its index.
func TestDocument(t *testing.T) {
	input := "[\n  {\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"},\n  {\n    \"jsonrpc\": \"2.0\",\n    \"method\": \"ping\"\n  }\n]\n"
	n, problems, err := validator(t, "2025-11-25").Stream(strings.NewReader(input))
	if err != nil || n != 2 || len(problems) != 1 {
		t.Fatalf("Stream = %d, %v, %v; want 2 messages, 1 problem", n, problems, err)
	}
	if p := problems[0]; p.Line != 3 || p.Pointer != "/1" {
		t.Fatalf("problem %v: want line 3, pointer /1", p)
	}
}

// TestRevisionMatters: a method of one revision is unknown in an older one.
func TestRevisionMatters(t *testing.T) {
	msg := `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{}}}}`
	if _, p, _ := validator(t, "2025-06-18").Stream(strings.NewReader(msg)); len(p) != 0 {
		t.Fatalf("2025-06-18: %v", p)
	}
	if _, p, _ := validator(t, "2025-03-26").Stream(strings.NewReader(msg)); len(p) != 1 || !strings.Contains(p[0].Msg, "unknown method") {
		t.Fatalf("2025-03-26: %v, want unknown method", p)
	}
}

// TestUnionReportsTheMeantBranch: a content block with "type": "text" but no
// text is reported as exactly that, not as a failure of every other kind.
func TestUnionReportsTheMeantBranch(t *testing.T) {
	input := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"x"}}
{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text"}]}}
`
	_, problems, err := validator(t, "2025-11-25").Stream(strings.NewReader(input))
	if err != nil || len(problems) != 1 || problems[0].String() != "line 2: /result/content/0: missing properties: 'text' (CallToolResult)" {
		t.Fatalf("problems = %v, %v; want only the missing text", problems, err)
	}
}

// TestOfficialExampleMessages: every official example of a request or
// notification definition (2026-07-28 ships them) that travels as a JSON-RPC
// message is valid.
func TestOfficialExampleMessages(t *testing.T) {
	const rev = "2026-07-28"
	v := validator(t, rev)
	methods := map[string]bool{}
	for _, me := range v.m.Methods {
		// Requests only embedded in an InputRequiredResult are not
		// JSON-RPC messages (no jsonrpc, no id).
		if len(me.Directions) == 1 && me.Directions[0] == schema.ServerToClientEmbedded {
			continue
		}
		methods[me.Definition] = true
	}
	dirs, err := os.ReadDir(filepath.Join("..", "official", "schemas", rev, "examples"))
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, d := range dirs {
		if !methods[d.Name()] {
			continue
		}
		files, _ := filepath.Glob(filepath.Join("..", "official", "schemas", rev, "examples", d.Name(), "*.json"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if _, problems, err := v.Stream(bytes.NewReader(data)); err != nil || len(problems) > 0 {
				t.Errorf("%s: %v %v", f, problems, err)
			}
			checked++
		}
	}
	if checked < 18 {
		t.Fatalf("checked %d examples; want the 18 request and notification examples", checked)
	}
}

// An InputRequiredResult is told apart by its resultType: a method's
// result that breaks its own schema does not pass as one.
func TestInputRequiredAlternative(t *testing.T) {
	v := validator(t, "2026-07-28")
	in := `{"jsonrpc":"2.0","id":1,"method":"resources/read","params":{"uri":"x:y","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
{"jsonrpc":"2.0","id":1,"result":{"cacheScope":"","contents":[],"resultType":"complete","ttlMs":0}}
{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"x:y","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}
{"jsonrpc":"2.0","id":2,"result":{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list","params":{}}},"requestState":"s"}}
`
	_, problems, err := v.Stream(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 1 || problems[0].Line != 2 || problems[0].Pointer != "/result/cacheScope" {
		t.Errorf("problems %v, want one at line 2 /result/cacheScope", problems)
	}
}

// TestElicitNumberErratum: a non-integer number answered to an
// elicitation validates (the elicitation page allows "type": "number"
// fields; mcpgen's schema erratum adds number to ElicitResult.content),
// an object value still does not.
func TestElicitNumberErratum(t *testing.T) {
	for _, rev := range []string{"2025-06-18", "2025-11-25"} {
		input := `{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"score":{"type":"number"}}}}}
{"jsonrpc":"2.0","id":1,"result":{"action":"accept","content":{"score":95.5,"age":30}}}
{"jsonrpc":"2.0","id":2,"method":"elicitation/create","params":{"message":"m","requestedSchema":{"type":"object","properties":{"score":{"type":"number"}}}}}
{"jsonrpc":"2.0","id":2,"result":{"action":"accept","content":{"score":{"x":1}}}}
`
		n, problems, err := validator(t, rev).Stream(strings.NewReader(input))
		if err != nil || n != 4 {
			t.Fatalf("%s: Stream = %d, %v", rev, n, err)
		}
		if len(problems) == 0 {
			t.Errorf("%s: the object value was accepted", rev)
		}
		for _, p := range problems {
			if p.Line != 4 {
				t.Errorf("%s: %v; want problems on line 4 (the object value) only", rev, p)
			}
		}
	}
}
