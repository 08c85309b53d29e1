package exttasks

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/internal/testsupport/modeltest"
	"github.com/mcpgen/mcpgen/runtime/genimpl"
)

// TestSpecExamplesRoundTrip decodes every JSON message example of the
// extension's specification page (testdata/spec-examples, taken from
// specification/draft/tasks.md at the pinned commit: the repository has no
// example files) into the type its file name names, encodes it again and
// requires JSON equal to the original that validates against the
// definition with jsonschema/v5.
func TestSpecExamplesRoundTrip(t *testing.T) {
	_, c := modeltest.LoadExtension(t, "tasks")
	files, err := filepath.Glob(filepath.Join("testdata", "spec-examples", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 17 {
		t.Fatalf("found %d examples, want the 17 of tasks.md", len(files))
	}
	for _, file := range files {
		base := strings.TrimSuffix(filepath.Base(file), ".json")
		def := base[strings.LastIndex(base, "-")+1:]
		t.Run(base, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := modeltest.RoundTrip(c, DecodeDefinition, def, data); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestInstancesRoundTrip builds instances of every definition of the
// extension's own from the schema model (every union branch), and round
// trips each through the generated type and the reference validator.
func TestInstancesRoundTrip(t *testing.T) {
	m, c := modeltest.LoadExtension(t, "tasks")
	n := 0
	for _, def := range m.Extension.Own {
		for v := 0; v < modeltest.MaxBranches(m); v++ {
			data, err := modeltest.Instance(m, def, v)
			if err != nil {
				t.Fatalf("%s variant %d: %v", def, v, err)
			}
			if _, err := modeltest.RoundTrip(c, DecodeDefinition, def, data); err != nil {
				t.Errorf("%s variant %d: %v", def, v, err)
			}
			n++
		}
	}
	if len(m.Extension.Own) != 20 {
		t.Errorf("%d definitions of the extension's own, want 20", len(m.Extension.Own))
	}
	t.Logf("%d instances of %d definitions", n, len(m.Extension.Own))
}

// TestOnlyOwnDefinitions: the package declares the extension's own
// definitions and none of the 56 core copies, which DecodeDefinition
// therefore does not know (mcp20260728.DecodeDefinition does).
func TestOnlyOwnDefinitions(t *testing.T) {
	m, _ := modeltest.LoadExtension(t, "tasks")
	if got := len(m.Extension.CoreDefinitions); got != 56 {
		t.Errorf("%d core copies, want 56", got)
	}
	for _, def := range m.Extension.Own {
		if _, err := DecodeDefinition(def, []byte(`{}`)); err != nil && strings.Contains(err.Error(), "no schema definition") {
			t.Errorf("DecodeDefinition does not know the extension's %s", def)
		}
	}
	for _, def := range m.Extension.CoreDefinitions {
		if _, err := DecodeDefinition(def, []byte(`{}`)); err == nil || !strings.Contains(err.Error(), "no schema definition") {
			t.Errorf("DecodeDefinition knows the core definition %s: it must be the core package's", def)
		}
	}
}

// TestCoreTypesShared: where the extension refers to a core definition the
// Go type is the core package's, so values move between the two packages
// without conversion.
func TestCoreTypesShared(t *testing.T) {
	for _, c := range []struct {
		typ   reflect.Type
		field string
		want  reflect.Type
	}{
		{reflect.TypeFor[FailedTask](), "Error", reflect.TypeFor[mcp20260728.Error]()},
		{reflect.TypeFor[InputRequiredTask](), "InputRequests", reflect.TypeFor[mcp20260728.InputRequests]()},
		{reflect.TypeFor[UpdateTaskRequestParams](), "InputResponses", reflect.TypeFor[mcp20260728.InputResponses]()},
		{reflect.TypeFor[GetTaskRequest](), "ID", reflect.TypeFor[mcp20260728.RequestId]()},
		{reflect.TypeFor[CreateTaskResult](), "Meta", reflect.PointerTo(reflect.TypeFor[mcp20260728.ResultMetaObject]())},
		{reflect.TypeFor[Task](), "Status", reflect.TypeFor[TaskStatus]()},
		{reflect.TypeFor[TaskStatusNotification](), "Params", reflect.TypeFor[TaskStatusNotificationParams]()},
	} {
		f, ok := c.typ.FieldByName(c.field)
		if !ok {
			t.Errorf("%s has no field %s", c.typ, c.field)
			continue
		}
		if f.Type != c.want {
			t.Errorf("%s.%s is %s, want %s", c.typ, c.field, f.Type, c.want)
		}
	}
}

// TestDetailedTaskBranchesAreTheTaskTypes: DetailedTask's anyOf spells out
// WorkingTask … CancelledTask inline; the generated union's branches are
// those definitions' types, chosen by status.
func TestDetailedTaskBranchesAreTheTaskTypes(t *testing.T) {
	for status, want := range map[string]reflect.Type{
		"working":        reflect.TypeFor[*WorkingTask](),
		"input_required": reflect.TypeFor[*InputRequiredTask](),
		"completed":      reflect.TypeFor[*CompletedTask](),
		"failed":         reflect.TypeFor[*FailedTask](),
		"cancelled":      reflect.TypeFor[*CancelledTask](),
	} {
		data := `{"taskId":"t","status":"` + status + `","createdAt":"a","lastUpdatedAt":"b","ttlMs":null,"inputRequests":{},"result":{},"error":{"code":1,"message":"m"}}`
		v, err := DecodeDetailedTask([]byte(data))
		if err != nil {
			t.Errorf("%s: %v", status, err)
			continue
		}
		if got := reflect.TypeOf(v); got != want {
			t.Errorf("%s: decoded as %s, want %s", status, got, want)
		}
	}
}

// TestTTLNullableRequired: ttlMs is required and may be null (unlimited):
// null survives a round trip as null, absence is refused.
func TestTTLNullableRequired(t *testing.T) {
	var task Task
	in := []byte(`{"taskId":"t","status":"working","createdAt":"a","lastUpdatedAt":"b","ttlMs":null}`)
	if err := json.Unmarshal(in, &task); err != nil {
		t.Fatal(err)
	}
	if task.TTLMs != nil {
		t.Errorf("ttlMs null decoded as %v", *task.TTLMs)
	}
	out, _ := json.Marshal(task)
	if err := modeltest.Equal(in, out); err != nil {
		t.Errorf("%v: %s", err, out)
	}
	err := json.Unmarshal([]byte(`{"taskId":"t","status":"working","createdAt":"a","lastUpdatedAt":"b"}`), &task)
	var de *DecodeError
	if !errors.As(err, &de) || !strings.Contains(err.Error(), "ttlMs") {
		t.Errorf("missing ttlMs: %v, want a DecodeError naming it", err)
	}
}

// TestExtensionCapabilityIsEmpty: TasksExtensionCapability admits only {}
// (additionalProperties {"not":{}}).
func TestExtensionCapabilityIsEmpty(t *testing.T) {
	var c TasksExtensionCapability
	if err := json.Unmarshal([]byte(`{}`), &c); err != nil {
		t.Errorf("{}: %v", err)
	}
	for _, in := range []string{`{"a":1}`, `null`, `[]`, `1`} {
		if err := json.Unmarshal([]byte(in), &c); err == nil {
			t.Errorf("%s accepted", in)
		}
	}
	if out, _ := json.Marshal(TasksExtensionCapability{}); string(out) != `{}` {
		t.Errorf("encodes as %s", out)
	}
}

// TestMethodTable checks the extension's methods against SEP-2663: three
// client requests with their results, one server notification;
// tasks/result and tasks/list are gone.
func TestMethodTable(t *testing.T) {
	if ExtensionID != "io.modelcontextprotocol/tasks" || ProtocolVersion != "2026-07-28" {
		t.Errorf("ExtensionID %q, ProtocolVersion %q", ExtensionID, ProtocolVersion)
	}
	want := map[string]reflect.Type{
		"tasks/get":    reflect.TypeFor[GetTaskResult](),
		"tasks/update": reflect.TypeFor[UpdateTaskResult](),
		"tasks/cancel": reflect.TypeFor[CancelTaskResult](),
	}
	if len(Methods) != 4 {
		t.Errorf("%d methods, want 4", len(Methods))
	}
	for name, res := range want {
		m, ok := LookupMethod(name)
		if !ok || m.Notification || !m.FromClient || m.FromServer || m.Result != res || !m.ParamsRequired {
			t.Errorf("%s: %+v", name, m)
		}
	}
	if m, ok := LookupMethod(MethodTaskStatus); !ok || m.Name != "notifications/tasks" || !m.Notification || !m.FromServer || m.Params != reflect.TypeFor[TaskStatusNotificationParams]() {
		t.Errorf("notifications/tasks: %+v", m)
	}
	for _, gone := range []string{"tasks/result", "tasks/list", "notifications/tasks/status"} {
		if _, ok := LookupMethod(gone); ok {
			t.Errorf("%s is in the table", gone)
		}
	}
}

var hostileInputs = []string{``, `null`, `[]`, `"x"`, `1`, `true`, `{}`, `{"status":1}`, `{"status":"working"}`,
	`{"resultType":"task"}`, `{"ttlMs":"1"}`, `{"ttlMs":1.5}`, `{"params":[]}`, `{"a":`}

// TestHostileInputs: no decoder panics on malformed or mistyped input.
func TestHostileInputs(t *testing.T) {
	m, _ := modeltest.LoadExtension(t, "tasks")
	for _, def := range m.Extension.Own {
		for _, in := range hostileInputs {
			if v, err := DecodeDefinition(def, []byte(in)); err == nil {
				if _, err := json.Marshal(v); err != nil && !strings.Contains(err.Error(), "required member") {
					t.Errorf("%s: %s decoded but does not encode: %v", def, in, err)
				}
			}
		}
	}
}

// FuzzCodecVsEncodingJSON compares the generated codec with encoding/json
// on every definition of the extension's own, as the core packages' fuzz
// target does: what a type accepts it encodes to JSON equal to the input,
// byte for byte what json.Marshal writes, and decoding that again gives
// the same bytes. Seeds: the specification's examples and model-built
// instances.
func FuzzCodecVsEncodingJSON(f *testing.F) {
	m, _ := modeltest.LoadExtension(f, "tasks")
	defs := m.Extension.Own
	for _, def := range defs {
		for v := 0; v < 2; v++ {
			if data, err := modeltest.Instance(m, def, v); err == nil {
				f.Add(data)
			}
		}
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "spec-examples", "*.json"))
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		valid := json.Valid(data)
		for _, def := range defs {
			v, err := DecodeDefinition(def, data)
			if err != nil {
				continue
			}
			if !valid {
				t.Fatalf("%s accepted invalid JSON %q", def, data)
			}
			want, err := json.Marshal(v)
			if err != nil {
				continue // e.g. a union member the input left unset
			}
			got, err := genimpl.AppendValue(nil, v)
			if err != nil {
				t.Fatalf("%s: the codec fails (%v), json.Marshal does not", def, err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s: MarshalJSON\n%s\njson.Marshal\n%s", def, got, want)
			}
			if err := modeltest.Equal(data, got); err != nil {
				t.Fatalf("%s: not exact: %v\nin:  %s\nout: %s", def, err, data, got)
			}
			v2, err := DecodeDefinition(def, got)
			if err != nil {
				t.Fatalf("%s: re-decoding %s: %v", def, got, err)
			}
			again, _ := json.Marshal(v2)
			if !bytes.Equal(again, got) {
				t.Fatalf("%s: not a fixed point:\n%s\n%s", def, got, again)
			}
		}
	})
}

// TestGetTaskResultByStatus: a tasks/get result decodes into the branch
// its status names, keeping Result's members and resultType.
func TestGetTaskResultByStatus(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "spec-examples", "tasks.md-L757-GetTaskResult.json"))
	if err != nil {
		t.Fatal(err)
	}
	v, err := DecodeGetTaskResult(data)
	if err != nil {
		t.Fatal(err)
	}
	c, ok := v.(*GetTaskResultCompleted)
	if !ok {
		t.Fatalf("decoded as %T, want *GetTaskResultCompleted", v)
	}
	if c.Status() != "completed" || c.ResultType() != "complete" || c.TTLMs == nil || len(c.Result) == 0 {
		t.Errorf("%+v", c)
	}
	if _, err := DecodeGetTaskResult([]byte(`{"resultType":"complete","taskId":"t","status":"failed","createdAt":"a","lastUpdatedAt":"b","ttlMs":null}`)); err == nil {
		t.Error("a failed task without its error decoded")
	}
}
