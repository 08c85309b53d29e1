package schema

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// officialSchemas is the module's copy of the official schemas
// (official/schemas/<revision>/schema.json).
const officialSchemas = "../official/schemas"

var revisions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

func load(t testing.TB, rev string) *Model {
	t.Helper()
	m, err := Load(filepath.Join(officialSchemas, rev, "schema.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCounts pins the numbers of research/schema-notes.md §1.1.
func TestCounts(t *testing.T) {
	want := map[string]struct{ defs, requests, notifications int }{
		"2024-11-05": {79, 15, 9},
		"2025-03-26": {83, 15, 9},
		"2025-06-18": {91, 16, 9},
		"2025-11-25": {145, 20, 11},
		"2026-07-28": {155, 13, 8},
	}
	for _, rev := range revisions {
		m := load(t, rev)
		var req, notif int
		for _, me := range m.Methods {
			if me.Kind == Request {
				req++
			} else {
				notif++
			}
			if me.Kind == Request && me.Result == "" {
				t.Errorf("%s %s: no result", rev, me.Name)
			}
		}
		w := want[rev]
		if len(m.Definitions) != w.defs || req != w.requests || notif != w.notifications {
			t.Errorf("%s: %d definitions, %d requests, %d notifications; want %v", rev, len(m.Definitions), req, notif, w)
		}
		if m.Revision != rev {
			t.Errorf("revision %q, want %q", m.Revision, rev)
		}
		if len(m.Omitted) != 0 {
			t.Errorf("%s: omitted %v", rev, m.Omitted)
		}
	}
}

func method(m *Model, name string) *Method {
	for _, me := range m.Methods {
		if me.Name == name {
			return me
		}
	}
	return nil
}

// TestResultTable checks the naming rule and every exception of
// schema-notes §1.4.
func TestResultTable(t *testing.T) {
	cases := []struct {
		rev, method, result string
		alternatives        []string
		rule                string
	}{
		{"2024-11-05", "tools/call", "CallToolResult", nil, "naming"},
		{"2024-11-05", "ping", "EmptyResult", nil, "exception"},
		{"2025-06-18", "logging/setLevel", "EmptyResult", nil, "exception"},
		{"2025-03-26", "resources/subscribe", "EmptyResult", nil, "exception"},
		{"2025-11-25", "resources/unsubscribe", "EmptyResult", nil, "exception"},
		{"2025-11-25", "tools/call", "CallToolResult", []string{"CreateTaskResult"}, "naming"},
		{"2025-11-25", "elicitation/create", "ElicitResult", []string{"CreateTaskResult"}, "naming"},
		{"2025-11-25", "tasks/result", "GetTaskPayloadResult", nil, "exception"},
		{"2025-11-25", "tasks/cancel", "CancelTaskResult", nil, "exception"},
		{"2026-07-28", "tools/call", "CallToolResult", []string{"InputRequiredResult"}, "response-envelope"},
		{"2026-07-28", "server/discover", "DiscoverResult", nil, "response-envelope"},
		{"2026-07-28", "sampling/createMessage", "CreateMessageResult", nil, "naming"},
		{"2026-07-28", "subscriptions/listen", "SubscriptionsListenResult", nil, "exception"},
	}
	for _, c := range cases {
		me := method(load(t, c.rev), c.method)
		if me == nil {
			t.Errorf("%s: no %s", c.rev, c.method)
			continue
		}
		if me.Result != c.result || !reflect.DeepEqual(me.ResultAlternatives, c.alternatives) || !strings.HasPrefix(me.ResultRule, c.rule) {
			t.Errorf("%s %s: result %s %v (%s), want %s %v (%s)", c.rev, c.method, me.Result, me.ResultAlternatives, me.ResultRule, c.result, c.alternatives, c.rule)
		}
	}
}

func TestDirections(t *testing.T) {
	m := load(t, "2026-07-28")
	cancelled := method(m, "notifications/cancelled")
	if !reflect.DeepEqual(cancelled.Directions, []Direction{ClientToServer, ServerToClient}) {
		t.Errorf("2026 notifications/cancelled directions %v: the inlined ClientNotification copy was not matched by shape", cancelled.Directions)
	}
	if d := method(m, "sampling/createMessage").Directions; !reflect.DeepEqual(d, []Direction{ServerToClientEmbedded}) {
		t.Errorf("2026 sampling/createMessage directions %v", d)
	}
	if method(m, "sampling/createMessage").Cancellable {
		t.Errorf("an embedded InputRequest has no id and cannot be cancelled")
	}
	ping := method(load(t, "2025-11-25"), "ping")
	if !reflect.DeepEqual(ping.Directions, []Direction{ClientToServer, ServerToClient}) {
		t.Errorf("ping directions %v", ping.Directions)
	}
}

func TestFacts(t *testing.T) {
	for _, rev := range revisions {
		f := load(t, rev).Facts
		switch rev {
		case "2026-07-28":
			if f.ServerMayCancel || !reflect.DeepEqual(f.ServerCancelsOnly, []string{"subscriptions/listen"}) || !f.HTTPDisconnectCancels || !f.Stateless || len(f.NeverCancellable) != 0 || !f.CancelRequestIDRequired {
				t.Errorf("%s: %+v", rev, f)
			}
		case "2025-11-25":
			if !f.ServerMayCancel || f.TaskCancelMethod != "tasks/cancel" || f.TaskMember != "task" || f.CancelRequestIDRequired || f.HTTPDisconnectCancels {
				t.Errorf("%s: %+v", rev, f)
			}
		default:
			if !f.ServerMayCancel || f.TaskCancelMethod != "" || !f.CancelRequestIDRequired || !reflect.DeepEqual(f.NeverCancellable, []string{"initialize"}) || f.HTTPDisconnectCancels {
				t.Errorf("%s: %+v", rev, f)
			}
		}
	}
}

// TestUnionStrategies pins the strategy of the unions schema-notes §3
// calls out.
func TestUnionStrategies(t *testing.T) {
	cases := []struct {
		rev, pointer  string
		strategy      Strategy
		discriminator string
		def           int
	}{
		{"2025-11-25", "#/$defs/ContentBlock/anyOf", StrategyDiscriminator, "type", -1},
		{"2025-11-25", "#/$defs/ClientRequest/anyOf", StrategyDiscriminator, "method", -1},
		{"2025-11-25", "#/$defs/ElicitRequestParams/anyOf", StrategyDiscriminator, "mode", 1},
		{"2026-07-28", "#/$defs/ElicitRequestParams/anyOf", StrategyDiscriminator, "mode", 0},
		{"2025-11-25", "#/$defs/ServerResult/anyOf", StrategyByMethod, "", -1},
		{"2024-11-05", "#/definitions/ClientResult/anyOf", StrategyByMethod, "", -1},
		{"2025-03-26", "#/definitions/JSONRPCMessage/anyOf", StrategyEnvelope, "", -1},
		{"2025-11-25", "#/$defs/EmbeddedResource/properties/resource/anyOf", StrategyRequiredKey, "", -1},
		{"2025-11-25", "#/$defs/SamplingMessage/properties/content/anyOf", StrategyJSONKind, "type", -1},
		{"2025-11-25", "#/$defs/ElicitResult/properties/content/additionalProperties/anyOf", StrategyJSONKind, "", -1},
		{"2025-11-25", "#/$defs/PrimitiveSchemaDefinition/anyOf", StrategyStructural, "", -1},
		{"2026-07-28", "#/$defs/CallToolResultResponse/properties/result/anyOf", StrategyDiscriminator, "resultType", 1},
		{"2026-07-28", "#/$defs/RequestId/type", StrategyJSONKind, "", -1},
	}
	for _, c := range cases {
		var u *Union
		for _, x := range load(t, c.rev).Unions {
			if x.Pointer == c.pointer {
				u = x
			}
		}
		if u == nil {
			t.Errorf("%s: no union at %s", c.rev, c.pointer)
			continue
		}
		if u.Strategy != c.strategy || u.Discriminator != c.discriminator || u.DefaultBranch != c.def {
			t.Errorf("%s %s: %s %q default %d, want %s %q default %d", c.rev, c.pointer, u.Strategy, u.Discriminator, u.DefaultBranch, c.strategy, c.discriminator, c.def)
		}
	}
}

func TestErrorsNameFileAndPointer(t *testing.T) {
	_, err := LoadBytes("x.json", []byte(`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"A":{"properties":{"b":{"$ref":"#/definitions/Missing"}}}}}`), Options{Revision: "2024-11-05"})
	var se *Error
	if !errors.As(err, &se) || se.File != "x.json" || !strings.HasPrefix(se.Pointer, "#/definitions/A") {
		t.Fatalf("got %v", err)
	}
	_, err = LoadBytes("y.json", []byte(`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"A":{"type":"object","patternProperties":{"^x":{}}}}}`), Options{Revision: "2024-11-05"})
	if err == nil || !strings.Contains(err.Error(), "y.json: #/definitions/A/patternProperties: unsupported keyword") {
		t.Fatalf("got %v", err)
	}
}

func TestRevisionDetection(t *testing.T) {
	data := []byte(`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{}}`)
	if m, err := LoadBytes("vendor/2030-01-01/schema.json", data, Options{}); err != nil || m.Revision != "2030-01-01" {
		t.Errorf("from directory: %v %v", m, err)
	}
	if _, err := LoadBytes("schema.json", data, Options{}); err == nil {
		t.Errorf("no revision found but no error")
	}
	if _, err := LoadBytes("schema.json", data, Options{Revision: "latest"}); err == nil {
		t.Errorf("a malformed --revision was accepted")
	}
}

func BenchmarkLoad20260728(b *testing.B) {
	for b.Loop() {
		load(b, "2026-07-28")
	}
}
