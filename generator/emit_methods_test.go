package generator

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/schema"
)

// myFiles are the files of emit_methods.go, emit_cancel.go, emit_server.go
// and emit_client.go.
var myFiles = []string{"methods.go", "cancel.go", "server.go", "client.go"}

var allRevisions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28"}

func generateOne(t *testing.T, rev string) (*schema.Model, map[string][]byte) {
	t.Helper()
	m, err := schema.Load(schemaPath(rev), schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate(m, Options{Package: "mcp" + strings.ReplaceAll(rev, "-", ""), SchemaFile: "schema.json"})
	if err != nil {
		t.Fatal(err)
	}
	return m, files
}

// TestCancellationFilesDeterministicAndClean: the four files exist for every
// revision, are identical across runs, parse, import only the runtime and the
// standard library, and document every exported identifier (interface
// methods and struct fields included).
func TestCancellationFilesDeterministicAndClean(t *testing.T) {
	for _, rev := range allRevisions {
		_, a := generateOne(t, rev)
		_, b := generateOne(t, rev)
		for _, name := range myFiles {
			src, ok := a[name]
			if !ok {
				t.Errorf("%s: no %s", rev, name)
				continue
			}
			if !bytes.Equal(src, b[name]) {
				t.Errorf("%s %s differs between two runs", rev, name)
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ParseComments)
			if err != nil {
				t.Fatalf("%s %s: %v", rev, name, err)
			}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if p != RuntimePath && p != genimplPkg && strings.Contains(strings.Split(p, "/")[0], ".") {
					t.Errorf("%s %s imports %s", rev, name, p)
				}
			}
			for _, what := range undocumented(f) {
				t.Errorf("%s %s: %s has no doc comment", rev, name, what)
			}
		}
	}
}

func undocumented(f *ast.File) []string {
	var out []string
	fields := func(owner string, list *ast.FieldList) {
		for _, fl := range list.List {
			for _, n := range fl.Names {
				if n.IsExported() && fl.Doc == nil {
					out = append(out, owner+"."+n.Name)
				}
			}
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.IsExported() && d.Doc == nil {
				out = append(out, "func "+d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if !s.Name.IsExported() {
						continue
					}
					if d.Doc == nil && s.Doc == nil {
						out = append(out, "type "+s.Name.Name)
					}
					switch ty := s.Type.(type) {
					case *ast.StructType:
						fields(s.Name.Name, ty.Fields)
					case *ast.InterfaceType:
						fields(s.Name.Name, ty.Methods)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() && s.Doc == nil && d.Doc == nil {
							out = append(out, "value "+n.Name)
						}
					}
				}
			}
		}
	}
	return out
}

// TestMethodsFile spot-checks methods.go: constants, table rows, Policy.
func TestMethodsFile(t *testing.T) {
	for rev, want := range map[string][]string{
		"2024-11-05": {`MethodCallTool = "tools/call"`, `MethodCancelled = "notifications/cancelled"`, `NeverCancellable: []string{"initialize"}`, `ServerCancels:    jsonrpc2.CancelScope{OwnRequests: jsonrpc2.MethodSet{All: true}}`, `Cancelled:        cancelledDecoder{}`},
		"2025-11-25": {`TaskCancelMethod: "tasks/cancel"`, `TaskParamsMember: "task"`, `Cancelled:        cancelledDecoder{}`, `TaskAugmentable:    true`},
		"2026-07-28": {`PeerRequests: jsonrpc2.MethodSet{Methods: []string{"subscriptions/listen"}}`, `DisconnectIsCancellation: true`, `Embedded:       true`},
	} {
		_, files := generateOne(t, rev)
		src := string(files["methods.go"])
		for _, s := range want {
			if !strings.Contains(src, s) {
				t.Errorf("%s methods.go lacks %q", rev, s)
			}
		}
	}
}

// TestSideFiles spot-checks server.go and client.go.
func TestSideFiles(t *testing.T) {
	for rev, want := range map[string][]string{
		"2024-11-05": {
			"CallTool(ctx context.Context, params *CallToolRequestParams) (*CallToolResult, error)",
			"func (c *ServerCaller) CallTool(ctx context.Context, params *CallToolRequestParams) (*CallToolResult, error)",
			"func RegisterServer(conn *jsonrpc2.Conn, impl any) []string",
			"type CallToolHandler interface",
			"if h, ok := impl.(CallToolHandler); ok {",
			"type ServerHandler interface",
			"var _ ServerHandler = (*ServerCaller)(nil)",
			"Initialized(ctx context.Context, params *InitializedNotificationParams) error",
		},
		"2025-11-25": {
			"CallToolAsTask(ctx context.Context, params *CallToolRequestParams) (*CreateTaskResult, error)",
			"Elicit(ctx context.Context, params ElicitRequestParams) (*ElicitResult, error)",
			"type CallToolTaskHandler interface",
			"type ClientHandler interface",
		},
		"2026-07-28": {"type InputRequiredError struct", `ire.Result.ResultType = "input_required"`},
	} {
		_, files := generateOne(t, rev)
		src := string(files["server.go"]) + string(files["client.go"])
		for _, s := range want {
			if !strings.Contains(src, s) {
				t.Errorf("%s server.go/client.go lack %q", rev, s)
			}
		}
	}
	// 2026-07-28: the client handles no requests (InputRequests are embedded).
	_, files := generateOne(t, "2026-07-28")
	if src := string(files["client.go"]); strings.Contains(src, "ListRoots(") || strings.Contains(src, "CreateMessage(") {
		t.Error("2026-07-28 client.go has handler methods for embedded input requests")
	}
	// No Unimplemented types: an implementation is what it implements.
	for _, rev := range []string{"2024-11-05", "2025-11-25", "2026-07-28"} {
		_, files := generateOne(t, rev)
		for name, src := range files {
			if strings.Contains(string(src), "Unimplemented") {
				t.Errorf("%s %s still mentions Unimplemented", rev, name)
			}
		}
	}
}

// TestValidatorEmitterRefusesWhatItCannotCheck: a construct the validator
// emitter does not implement fails generation instead of being accepted
// silently.
func TestValidatorEmitterRefusesWhatItCannotCheck(t *testing.T) {
	m, _ := generateOne(t, "2026-07-28")
	for _, d := range m.Definitions {
		if d.Name == "CancelledNotificationParams" {
			for _, p := range d.Type.Properties {
				if p.Name == "reason" {
					p.Type.Format = "uri"
				}
			}
		}
	}
	_, err := Generate(m, Options{Package: "x"})
	if err == nil || !strings.Contains(err.Error(), "does not support format uri") {
		t.Fatalf("got %v", err)
	}
}
