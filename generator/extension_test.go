package generator

import (
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/official"
	"github.com/mcpgen/mcpgen/schema"
)

func loadExtTasks(t *testing.T) *schema.Model {
	t.Helper()
	coreData, err := official.Schema("2026-07-28")
	if err != nil {
		t.Fatal(err)
	}
	core, err := schema.LoadBytes("official schema 2026-07-28", coreData, schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	data, err := official.ExtensionSchema("tasks")
	if err != nil {
		t.Fatal(err)
	}
	m, err := schema.LoadExtension("official extension tasks", data, core, schema.ExtensionOptions{Name: "tasks", Identifier: "io.modelcontextprotocol/tasks"})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestGenerateExtension: an extension's package has types.go,
// types_json.go, doc.go and methods.go only; core definitions are the core
// package's types and are not declared again; inline branches decided by a
// constant are named after it.
func TestGenerateExtension(t *testing.T) {
	m := loadExtTasks(t)
	if _, err := Generate(m, Options{Package: "exttasks", SchemaFile: "x"}); err == nil || !strings.Contains(err.Error(), "no core package") {
		t.Errorf("without CorePackage: %v, want an error", err)
	}
	files, err := Generate(m, Options{Package: "exttasks", SchemaFile: "x", CorePackage: "example.com/core/mcp20260728"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for n := range files {
		names = append(names, n)
	}
	if len(files) != 5 || files["types.go"] == nil || files["methods.go"] == nil || files["doc.go"] == nil || files["types_json.go"] == nil || files["tasks.go"] == nil {
		t.Errorf("files %v, want doc.go methods.go tasks.go types.go types_json.go", names)
	}
	// tasks.go: the extension's task-capable core request, started through
	// the core package's ServerCaller with the per-request opt-in.
	for _, want := range []string{
		`var TaskMethods = []string{"tools/call"}`,
		"func StartCallTool(ctx context.Context, c *mcp20260728.ServerCaller, params *mcp20260728.CallToolRequestParams, opts ...tasks.StartOption) (*tasks.Handle[mcp20260728.CallToolResult], error)",
		"tasks.Extension()",
	} {
		if !strings.Contains(string(files["tasks.go"]), want) {
			t.Errorf("tasks.go lacks %q:\n%s", want, files["tasks.go"])
		}
	}
	types := string(files["types.go"])
	for _, want := range []string{
		`"example.com/core/mcp20260728"`,
		"Error mcp20260728.Error `json:\"error\"`",
		"InputRequests mcp20260728.InputRequests `json:\"inputRequests\"`",
		"type GetTaskResultWorking struct", "type GetTaskResultInputRequired struct",
		"TTLMs *int64 `json:\"ttlMs\"`",
		"type TaskStatus string", "TaskStatusInputRequired TaskStatus = \"input_required\"",
	} {
		if !strings.Contains(types, want) {
			t.Errorf("types.go lacks %q", want)
		}
	}
	for _, core := range m.Extension.CoreDefinitions {
		if strings.Contains(types, "\ntype "+TypeName(core)+" ") {
			t.Errorf("types.go declares the core definition %s", core)
		}
	}
	if !strings.Contains(string(files["doc.go"]), "Source: x (MCP extension io.modelcontextprotocol/tasks composed with revision 2026-07-28, sha256 "+m.SHA256+")") {
		t.Errorf("doc.go header:\n%s", string(files["doc.go"])[:400])
	}
}
