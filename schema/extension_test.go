package schema

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The shapes of the ext-tasks schema that needed new support, each on a
// small document. coreDefs is a core revision's worth of definitions the
// extensions below copy and refer to.
const coreDefs = `
"Result": {"type": "object", "properties": {"_meta": {"type": "object"}}, "additionalProperties": {}},
"JSONRPCRequest": {"type": "object", "properties": {"jsonrpc": {"type": "string", "const": "2.0"}, "id": {"type": ["string", "integer"]}, "method": {"type": "string"}, "params": {"type": "object"}}, "required": ["jsonrpc", "id", "method"]},
"JSONRPCNotification": {"type": "object", "properties": {"jsonrpc": {"type": "string", "const": "2.0"}, "method": {"type": "string"}, "params": {"type": "object"}}, "required": ["jsonrpc", "method"]},
"Error": {"type": "object", "properties": {"code": {"type": "integer"}, "message": {"type": "string"}}, "required": ["code", "message"]}`

const dialect2020 = `"$schema": "https://json-schema.org/draft/2020-12/schema"`

func loadDoc(t *testing.T, defs string) (*Model, error) {
	t.Helper()
	doc := `{` + dialect2020 + `, "$id": "https://example.com/ext.json", "$defs": {` + defs + `}}`
	return LoadBytes("ext.json", []byte(doc), Options{Revision: "2099-01-01"})
}

func mustLoadDoc(t *testing.T, defs string) *Model {
	t.Helper()
	m, err := loadDoc(t, defs)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func wantErr(t *testing.T, err error, parts ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want one containing %q", parts)
	}
	for _, p := range parts {
		if !strings.Contains(err.Error(), p) {
			t.Errorf("error %q does not contain %q", err, p)
		}
	}
}

// A definition may carry its own $schema when it is the document's
// dialect (the bundler writes one on every definition); another dialect or
// a definition-level $id is refused at its place.
func TestDefinitionLevelSchema(t *testing.T) {
	m := mustLoadDoc(t, `"X": {`+dialect2020+`, "type": "object", "properties": {"a": {"type": "string"}}}`)
	if d := m.Definition("X"); d == nil || d.Type.Kind != KindObject {
		t.Fatalf("X: %+v", d)
	}
	_, err := loadDoc(t, `"X": {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}`)
	wantErr(t, err, "#/$defs/X/$schema", "mixed dialects")
	_, err = loadDoc(t, `"X": {"$id": "https://other.example/x.json", "type": "object"}`)
	wantErr(t, err, "#/$defs/X/$id", "own $id")
	// The document's own $id on a definition changes nothing.
	mustLoadDoc(t, `"X": {"$id": "https://example.com/ext.json", "type": "object"}`)
}

// A reference that spells out the document's own $id is a local one; a
// reference into another document is refused with what to do.
func TestReferenceThroughOwnID(t *testing.T) {
	m := mustLoadDoc(t, coreDefs+`, "X": {"type": "object", "properties": {"e": {"$ref": "https://example.com/ext.json#/$defs/Error"}}}`)
	if p := m.Definition("X").Type.property("e"); p == nil || p.Type.Kind != KindRef || p.Type.Ref != "Error" {
		t.Fatalf("X.e: %+v", p)
	}
	_, err := loadDoc(t, `"X": {"type": "object", "properties": {"e": {"$ref": "https://modelcontextprotocol.io/schema.json#/$defs/Error"}}}`)
	wantErr(t, err, "#/$defs/X/properties/e/$ref", "must be copied into this one")
}

// allOf [Result, anyOf [A, B], {…}] is distributed: a union of two
// flattened objects, each with Result's members, decided by the constant.
func TestAllOfDistributesOverAnyOf(t *testing.T) {
	m := mustLoadDoc(t, coreDefs+`, "GetX": {"allOf": [{"$ref": "#/$defs/Result"},
		{"anyOf": [
			{"type": "object", "properties": {"status": {"type": "string", "const": "working"}}, "required": ["status"]},
			{"type": "object", "properties": {"status": {"type": "string", "const": "failed"}, "error": {"$ref": "#/$defs/Error"}}, "required": ["status", "error"]}]},
		{"type": "object", "properties": {"resultType": {"type": "string", "const": "complete"}}, "required": ["resultType"]}]}`)
	ty := m.Definition("GetX").Type
	if ty.Kind != KindUnion || len(ty.Union.Branches) != 2 {
		t.Fatalf("GetX: kind %s, want a union of 2", ty.Kind)
	}
	if ty.Union.Strategy != StrategyDiscriminator || ty.Union.Discriminator != "status" {
		t.Errorf("strategy %s on %q, want the status discriminator", ty.Union.Strategy, ty.Union.Discriminator)
	}
	for i, b := range ty.Union.Branches {
		for _, p := range []string{"_meta", "status", "resultType"} {
			if b.property(p) == nil {
				t.Errorf("branch %d has no %s", i, p)
			}
		}
		if want := "#/$defs/GetX/allOf/1/anyOf/" + string(rune('0'+i)); b.Pointer != want {
			t.Errorf("branch %d at %s, want %s", i, b.Pointer, want)
		}
	}
	if p := ty.Union.Branches[1].property("error"); p == nil || !p.Required {
		t.Error("the failed branch lost its required error")
	}
	_, err := loadDoc(t, coreDefs+`, "Y": {"allOf": [{"anyOf": [{"type": "object"}, {"type": "object"}]}, {"anyOf": [{"type": "object"}, {"type": "object"}]}]}`)
	wantErr(t, err, "#/$defs/Y/allOf/1", "more than one anyOf")
}

// anyOf [X, {"type":"null"}] is X, nullable; anyOf of string constants is
// an enum.
func TestAnyOfNullAndConstants(t *testing.T) {
	m := mustLoadDoc(t, `"T": {"type": "object", "properties": {
		"ttl": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}]},
		"status": {"anyOf": [{"type": "string", "const": "working"}, {"type": "string", "const": "failed"}]}},
		"required": ["ttl", "status"]}`)
	ty := m.Definition("T").Type
	if p := ty.property("ttl").Type; p.Kind != KindInteger || !p.Nullable || p.Minimum == nil {
		t.Errorf("ttl: %+v, want a nullable integer with its minimum", p)
	}
	if p := ty.property("status").Type; p.Kind != KindString || strings.Join(p.Enum, ",") != "working,failed" {
		t.Errorf("status: %+v, want the enum working|failed", p)
	}
	_, err := loadDoc(t, `"N": {"anyOf": [{"type": "null"}]}`)
	wantErr(t, err, "#/$defs/N/anyOf", "only be null")
	_, err = loadDoc(t, `"N": {"anyOf": [{"type": "string"}, {"type": "object"}, {"type": "null"}]}`)
	wantErr(t, err, "#/$defs/N/anyOf", "nullable union")
}

// propertyNames {"type":"string"} says nothing and is accepted; anything
// narrower is refused. additionalProperties {"not":{}} closes an object
// without members.
func TestPropertyNamesAndClosedObjects(t *testing.T) {
	m := mustLoadDoc(t, `"R": {"type": "object", "propertyNames": {"type": "string"}, "additionalProperties": {}},
		"C": {"type": "object", "propertyNames": {"type": "string"}, "additionalProperties": {"not": {}}}`)
	if r := m.Definition("R").Type; r.Closed || r.Additional == nil || r.Additional.Kind != KindAny {
		t.Errorf("R: %+v, want an open map", r)
	}
	if c := m.Definition("C").Type; !c.Closed || c.Kind != KindObject {
		t.Errorf("C: %+v, want a closed object", c)
	}
	_, err := loadDoc(t, `"P": {"type": "object", "propertyNames": {"pattern": "^a"}}`)
	wantErr(t, err, "#/$defs/P/propertyNames")
	_, err = loadDoc(t, `"P": {"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"not": {}}}`)
	wantErr(t, err, "#/$defs/P/additionalProperties", "MCP objects are open")
	_, err = loadDoc(t, `"P": {"not": {"type": "string"}}`)
	wantErr(t, err, "#/$defs/P/not")
}

func loadCore(t *testing.T) *Model {
	t.Helper()
	return mustLoadDoc(t, coreDefs)
}

// LoadExtension: copies of core definitions are recognised, a differing
// copy is an error naming both places, and the extension's methods and
// results are its own.
func TestLoadExtension(t *testing.T) {
	core := loadCore(t)
	ext := `{` + dialect2020 + `, "$defs": {` + coreDefs + `,
		"Status": {` + dialect2020 + `, "anyOf": [{"type": "string", "const": "working"}, {"type": "string", "const": "failed"}]},
		"Thing": {` + dialect2020 + `, "type": "object", "properties": {"status": {"anyOf": [{"type": "string", "const": "working"}, {"type": "string", "const": "failed"}]}}, "required": ["status"]},
		"GetThingRequest": {` + dialect2020 + `, "allOf": [{"$ref": "#/$defs/JSONRPCRequest"}, {"type": "object", "properties": {"method": {"type": "string", "const": "things/get"}, "params": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}}, "required": ["method", "params"]}]},
		"GetThingResult": {` + dialect2020 + `, "allOf": [{"$ref": "#/$defs/Result"}, {"type": "object", "properties": {"thing": {"$ref": "#/$defs/Thing"}}, "required": ["thing"]}]},
		"ThingNotification": {` + dialect2020 + `, "allOf": [{"$ref": "#/$defs/JSONRPCNotification"}, {"type": "object", "properties": {"method": {"type": "string", "const": "notifications/things"}}, "required": ["method"]}]}
	}}`
	m, err := LoadExtension("ext.json", []byte(ext), core, ExtensionOptions{Name: "things", Identifier: "com.example/things"})
	if err != nil {
		t.Fatal(err)
	}
	e := m.Extension
	if strings.Join(e.CoreDefinitions, ",") != "Error,JSONRPCNotification,JSONRPCRequest,Result" {
		t.Errorf("core definitions %v", e.CoreDefinitions)
	}
	if strings.Join(e.Own, ",") != "GetThingRequest,GetThingResult,Status,Thing,ThingNotification" {
		t.Errorf("own definitions %v", e.Own)
	}
	if !e.IsCore("Error") || e.IsCore("Thing") {
		t.Error("IsCore")
	}
	if len(m.Methods) != 2 || m.Methods[0].Name != "things/get" || m.Methods[0].Result != "GetThingResult" ||
		m.Methods[1].Name != "notifications/things" || m.Methods[1].Kind != Notification {
		t.Errorf("methods %+v %+v", m.Methods[0], m.Methods[1])
	}
	// Thing.status spells out Status: it becomes a reference to it.
	if p := m.Definition("Thing").Type.property("status"); p.Type.Kind != KindRef || p.Type.Ref != "Status" {
		t.Errorf("Thing.status: %+v, want a reference to Status", p.Type)
	}

	changed := strings.Replace(ext, `"message": {"type": "string"}`, `"message": {"type": "integer"}`, 1)
	_, err = LoadExtension("ext.json", []byte(changed), core, ExtensionOptions{Name: "things", Identifier: "com.example/things"})
	wantErr(t, err, "ext.json: #/$defs/Error", "differs from it", "not redefine")

	onlyCore := `{` + dialect2020 + `, "$defs": {` + coreDefs + `}}`
	_, err = LoadExtension("ext.json", []byte(onlyCore), core, ExtensionOptions{Name: "things", Identifier: "com.example/things"})
	wantErr(t, err, "defines nothing of its own")
}

// TestLoadExtTasks loads the official ext-tasks schema composed with
// 2026-07-28 and checks what its shape gives: 20 definitions of its own,
// 56 core copies, the four methods, GetTaskResult a union by status whose
// branches keep Result's members, DetailedTask a union of the task types.
func TestLoadExtTasks(t *testing.T) {
	m := loadExtTasks(t)
	if len(m.Extension.Own) != 20 || len(m.Extension.CoreDefinitions) != 56 {
		t.Errorf("%d own, %d core copies; want 20 and 56", len(m.Extension.Own), len(m.Extension.CoreDefinitions))
	}
	var names []string
	for _, me := range m.Methods {
		names = append(names, me.Name+"→"+me.Result)
	}
	if got := strings.Join(names, " "); got != "tasks/cancel→CancelTaskResult tasks/get→GetTaskResult tasks/update→UpdateTaskResult notifications/tasks→" {
		t.Errorf("methods %s", got)
	}
	g := m.Definition("GetTaskResult").Type
	if g.Kind != KindUnion || g.Union.Discriminator != "status" || len(g.Union.Branches) != 5 {
		t.Fatalf("GetTaskResult: %s by %q", g.Kind, g.Union.Discriminator)
	}
	for _, b := range g.Union.Branches {
		if b.Kind != KindObject || b.property("_meta") == nil || b.property("resultType") == nil {
			t.Errorf("GetTaskResult branch %s lacks Result's members", b.Pointer)
		}
	}
	for i, b := range m.Definition("DetailedTask").Type.Union.Branches {
		want := []string{"WorkingTask", "InputRequiredTask", "CompletedTask", "FailedTask", "CancelledTask"}[i]
		if b.Kind != KindRef || b.Ref != want {
			t.Errorf("DetailedTask branch %d: %s %s, want a reference to %s", i, b.Kind, b.Ref, want)
		}
	}
	if p := m.Definition("TaskStatusNotification").Type.property("params"); p.Type.Ref != "TaskStatusNotificationParams" {
		t.Errorf("TaskStatusNotification.params: %+v", p.Type)
	}
}

func loadExtTasks(t *testing.T) *Model {
	t.Helper()
	core, err := Load(filepath.Join("..", "official", "schemas", "2026-07-28", "schema.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("..", "official", "ext-tasks", "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := LoadExtension("ext-tasks", data, core, ExtensionOptions{Name: "tasks", Identifier: "io.modelcontextprotocol/tasks"})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCompareCoreTasksWithExtension: the diff from 2025-11-25 to the
// extension is scoped to tasks: the removed methods are named, core
// definitions outside tasks are not, and there are no fact changes.
func TestCompareCoreTasksWithExtension(t *testing.T) {
	old, err := Load(filepath.Join("..", "official", "schemas", "2025-11-25", "schema.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	d := Compare(old, loadExtTasks(t))
	if d.To != "2026-07-28 + io.modelcontextprotocol/tasks" {
		t.Errorf("To %q", d.To)
	}
	have := map[string]bool{}
	for _, c := range d.Changes {
		have[c.String()] = true
		if c.Kind == "fact changed" || strings.Contains(c.Subject, "Tool") || strings.Contains(c.Subject, "Paginated") {
			t.Errorf("out of scope: %s", c)
		}
	}
	for _, want := range []string{"method removed: tasks/result", "method removed: tasks/list", "method removed: notifications/tasks/status",
		"method added: tasks/update: request, client-to-server", "field removed: Task.ttl", "field added: Task.ttlMs: required integer|null",
		"type changed: GetTaskResult: object → union"} {
		if !have[want] {
			t.Errorf("no %q in the diff", want)
		}
	}
}
