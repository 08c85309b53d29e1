package generator

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"sync"
	"testing"

	"github.com/mcpgen/mcpgen/schema"
)

var revisions = []struct {
	rev  string
	defs int
}{
	{"2024-11-05", 79},
	{"2025-03-26", 83},
	{"2025-06-18", 91},
	{"2025-11-25", 145},
	{"2026-07-28", 155},
}

// schemaPath is the module's copy of the official schema of rev.
func schemaPath(rev string) string { return "../official/schemas/" + rev + "/schema.json" }

var generated sync.Map // rev → *generatedRev

type generatedRev struct {
	once  sync.Once
	m     *schema.Model
	files map[string][]byte
	err   error
}

// generateRev generates a revision once per test process.
func generateRev(t *testing.T, rev string) (*schema.Model, map[string][]byte) {
	t.Helper()
	v, _ := generated.LoadOrStore(rev, &generatedRev{})
	g := v.(*generatedRev)
	g.once.Do(func() { g.m, g.files, g.err = generateFresh(rev) })
	if g.err != nil {
		t.Fatal(g.err)
	}
	return g.m, g.files
}

func generateFresh(rev string) (*schema.Model, map[string][]byte, error) {
	m, err := schema.Load(schemaPath(rev), schema.Options{})
	if err != nil {
		return nil, nil, err
	}
	files, err := Generate(m, Options{Package: "mcp" + strings.ReplaceAll(rev, "-", ""), SchemaFile: "schema.json"})
	return m, files, err
}

func parseGo(t *testing.T, name string, src []byte) *ast.File {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ParseComments)
	if err != nil {
		t.Fatalf("%s does not parse: %v", name, err)
	}
	return f
}

// TestEveryDefinitionHasAType: every definition of every revision is a Go
// type (or alias) of types.go with the definition's own name, and the
// counts are the schema's 79/83/91/145/155. A definition left out must be
// listed in Model.Omitted with its reason.
func TestEveryDefinitionHasAType(t *testing.T) {
	for _, r := range revisions {
		t.Run(r.rev, func(t *testing.T) {
			m, files := generateRev(t, r.rev)
			f := parseGo(t, "types.go", files["types.go"])
			declared := map[string]bool{}
			for _, d := range f.Decls {
				if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
					for _, s := range g.Specs {
						declared[s.(*ast.TypeSpec).Name.Name] = true
					}
				}
			}
			omitted := map[string]string{}
			for _, o := range m.Omitted {
				omitted[o.Name] = o.Reason
				t.Logf("omitted %s: %s", o.Name, o.Reason)
			}
			typed := 0
			for _, d := range m.Definitions {
				switch {
				case declared[TypeName(d.Name)]:
					typed++
				case omitted[d.Name] != "":
				default:
					t.Errorf("definition %s has no Go type %s and is not listed as omitted", d.Name, TypeName(d.Name))
				}
			}
			if len(m.Definitions) != r.defs {
				t.Errorf("the schema has %d definitions, want %d", len(m.Definitions), r.defs)
			}
			if typed+len(m.Omitted) != r.defs {
				t.Errorf("%d definitions typed + %d omitted, want %d", typed, len(m.Omitted), r.defs)
			}
		})
	}
}

// TestNames pins the names users look for.
func TestNames(t *testing.T) {
	want := map[string][]string{
		"2024-11-05": {"type CallToolRequestParams struct", "type CancelledNotification struct", "RequestID RequestId `json:\"requestId\"`", "type RequestId = jsonrpc2.RequestID", "type ProgressToken = jsonrpc2.RequestID", "type EmptyResult = Result"},
		"2025-11-25": {"type CallToolRequestParams struct", "Meta *", "URI string `json:\"uri\"`", "type ContentBlock interface", "type UnknownContentBlock struct", "func DecodeContentBlock(", "TTL *int64 `json:\"ttl\"`"},
		"2026-07-28": {"type JSONValue = json.RawMessage", "type ServerResult struct", "func (x ServerResult) CallToolResult() (*CallToolResult, error)", "HasMode bool `json:\"-\"`"},
	}
	for rev, snippets := range want {
		_, files := generateRev(t, rev)
		src := string(files["types.go"])
		for _, s := range snippets {
			if !strings.Contains(src, s) {
				t.Errorf("%s types.go lacks %q", rev, s)
			}
		}
	}
}

// TestDeterministic: two runs in one process give identical bytes.
func TestDeterministic(t *testing.T) {
	for _, r := range revisions {
		_, a, errA := generateFresh(r.rev)
		_, b, errB := generateFresh(r.rev)
		if errA != nil || errB != nil {
			t.Fatal(errA, errB)
		}
		for _, name := range []string{"types.go", "types_json.go"} {
			if !bytes.Equal(a[name], b[name]) {
				t.Errorf("%s %s differs between two runs", r.rev, name)
			}
		}
	}
}

// TestEveryExportedIdentifierHasADoc: types, fields, constants,
// functions and methods of types.go and types_json.go all carry a doc comment.
func TestEveryExportedIdentifierHasADoc(t *testing.T) {
	for _, r := range revisions {
		_, files := generateRev(t, r.rev)
		for _, name := range []string{"types.go", "types_json.go"} {
			f := parseGo(t, name, files[name])
			missing := 0
			report := func(what string) {
				missing++
				if missing <= 10 {
					t.Errorf("%s %s: %s has no doc comment", r.rev, name, what)
				}
			}
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Name.IsExported() && d.Doc == nil {
						report("func " + d.Name.Name)
					}
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							if s.Name.IsExported() && d.Doc == nil && s.Doc == nil {
								report("type " + s.Name.Name)
							}
							if st, ok := s.Type.(*ast.StructType); ok && s.Name.IsExported() {
								for _, fl := range st.Fields.List {
									for _, n := range fl.Names {
										if n.IsExported() && fl.Doc == nil {
											report("field " + s.Name.Name + "." + n.Name)
										}
									}
								}
							}
						case *ast.ValueSpec:
							for _, n := range s.Names {
								if n.IsExported() && s.Doc == nil && d.Doc == nil {
									report("value " + n.Name)
								}
							}
						}
					}
				}
			}
			if missing > 10 {
				t.Errorf("%s %s: %d undocumented identifiers in all", r.rev, name, missing)
			}
		}
	}
}

func TestDocLinks(t *testing.T) {
	l := newDocLinker([]string{"CallToolRequest", "SubscriptionsListenRequest", "Subscriptions", "Tool"})
	cases := map[string]string{
		"See {@link CallToolRequest}.":                                  "See [CallToolRequest].",
		"End a {@link SubscriptionsListenRequestsubscriptions/listen}.": "End a [SubscriptionsListenRequest] (subscriptions/listen).",
		"A {@link Tool | tool}.":                                        "A [Tool] (tool).",
		"The {@link Tool.inputSchema} member.":                          "The [Tool].inputSchema member.",
		"Unknown {@link https://example.com}.":                          "Unknown https://example.com.",
	}
	for in, want := range cases {
		if got := strings.Join(l.lines(in), "\n"); got != want {
			t.Errorf("%q → %q, want %q", in, got, want)
		}
	}
	got := l.lines("\nfirst line  \n\nsecond\n\n")
	if strings.Join(got, "|") != "first line||second" {
		t.Errorf("lines: %q", got)
	}
}

// TestGeneratedDocLinks: the 2026 glitch {@link Xlabel} is repaired and no
// {@link survives in any revision.
func TestGeneratedDocLinks(t *testing.T) {
	for _, r := range revisions {
		_, files := generateRev(t, r.rev)
		if bytes.Contains(files["types.go"], []byte("{@link")) {
			t.Errorf("%s: types.go still has a {@link", r.rev)
		}
	}
	_, files := generateRev(t, "2026-07-28")
	if !bytes.Contains(files["types.go"], []byte("[SubscriptionsListenRequest] (subscriptions/listen)")) {
		t.Error("2026-07-28: {@link SubscriptionsListenRequestsubscriptions/listen} is not repaired")
	}
}

// TestUnsupportedIsAnError: a construct the emitter cannot represent
// exactly is a generation error naming the JSON pointer, never a silent any.
func TestUnsupportedIsAnError(t *testing.T) {
	cases := map[string]struct{ schema, pointer string }{
		"optional nullable member": {
			`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"X":{"type":"object","properties":{"n":{"type":["integer","null"]}}}}}`,
			"#/definitions/X/properties/n",
		},
		"properties with typed additionalProperties": {
			`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"X":{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":{"type":"integer"}}}}`,
			"#/definitions/X",
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			m, err := schema.LoadBytes("test.json", []byte(c.schema), schema.Options{Revision: "2099-01-01"})
			if err != nil {
				t.Fatalf("the test schema does not load: %v", err)
			}
			_, err = Generate(m, Options{Package: "x", SchemaFile: "test.json"})
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), c.pointer) {
				t.Errorf("error %q does not name %s", err, c.pointer)
			}
		})
	}
}

// TestDescriptionsBecomeDocComments: every line of every definition's
// description is a // line of types.go (after link rewriting).
func TestDescriptionsBecomeDocComments(t *testing.T) {
	for _, r := range revisions {
		m, files := generateRev(t, r.rev)
		src := string(files["types.go"])
		names := make([]string, 0, len(m.Definitions))
		for _, d := range m.Definitions {
			names = append(names, d.Name)
		}
		l := newDocLinker(names)
		missing := 0
		for _, d := range m.Definitions {
			lines := l.lines(d.Description)
			if len(lines) == 0 {
				continue
			}
			// The whole description, as consecutive comment lines.
			var block strings.Builder
			for _, ln := range lines {
				if ln == "" {
					block.WriteString("//\n")
					continue
				}
				block.WriteString("// " + ln + "\n")
			}
			if !strings.Contains(src, block.String()) {
				missing++
				if missing <= 5 {
					t.Errorf("%s: the description of %s is not a doc comment:\n%s", r.rev, d.Name, block.String())
				}
			}
		}
	}
}

// TestInlineNameCollision: an inline type whose name is a definition's
// gets the suffix "Inline".
func TestInlineNameCollision(t *testing.T) {
	src := `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{
		"A":{"type":"object","properties":{"b":{"type":"object","properties":{"c":{"type":"string"}}}}},
		"AB":{"type":"object","properties":{"d":{"type":"integer"}}}}}`
	m, err := schema.LoadBytes("test.json", []byte(src), schema.Options{Revision: "2099-01-01"})
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate(m, Options{Package: "x", SchemaFile: "test.json"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"type AB struct", "type ABInline struct", "B *ABInline `json:\"b,omitempty\"`"} {
		if !bytes.Contains(files["types.go"], []byte(want)) {
			t.Errorf("types.go lacks %q:\n%s", want, files["types.go"])
		}
	}
}

// TestImportsOnlyRuntimeAndStdlib: generated types import nothing but the
// runtime (and its package for generated code, genimpl) and the standard
// library.
func TestImportsOnlyRuntimeAndStdlib(t *testing.T) {
	for _, r := range revisions {
		_, files := generateRev(t, r.rev)
		for _, name := range []string{"types.go", "types_json.go"} {
			f := parseGo(t, name, files[name])
			for _, imp := range f.Imports {
				p := strings.Trim(imp.Path.Value, `"`)
				if p != RuntimePath && p != genimplPkg && strings.Contains(strings.Split(p, "/")[0], ".") {
					t.Errorf("%s %s imports %s", r.rev, name, p)
				}
			}
		}
	}
}

// TestIntegerNumberUnion: a union with integer and number branches is told
// apart by the literal (IsInt64Literal), and the number branch writes an
// integral value so that it reads back as a number (AppendNumber); in
// any order of the branches, and only when both are there.
func TestIntegerNumberUnion(t *testing.T) {
	for _, types := range []string{`["integer","number","string"]`, `["number","boolean","integer"]`} {
		src := `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"X":{"type":"object","properties":{"v":{"type":` + types + `}}}}}`
		m, err := schema.LoadBytes("test.json", []byte(src), schema.Options{Revision: "2099-01-01"})
		if err != nil {
			t.Fatal(err)
		}
		files, err := Generate(m, Options{Package: "x", SchemaFile: "test.json"})
		if err != nil {
			t.Fatal(err)
		}
		src = string(files["types.go"])
		for _, want := range []string{
			"type XVNumber float64",
			"type XVInteger int64",
			"if genimpl.IsInt64Literal(data) {\n\t\t\treturn genimpl.DecodeValue[XV, XVInteger](data)\n\t\t}\n\t\treturn genimpl.DecodeValue[XV, XVNumber](data)",
			"func (x XVNumber) AppendJSON(buf []byte) ([]byte, error) {\n\treturn genimpl.AppendNumber(buf, float64(x))",
		} {
			if !strings.Contains(src, want) {
				t.Errorf("%s: types.go lacks %q", types, want)
			}
		}
	}
	// A number branch alone keeps encoding/json's encoding.
	src := `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"X":{"type":"object","properties":{"v":{"type":["number","string"]}}}}}`
	m, err := schema.LoadBytes("test.json", []byte(src), schema.Options{Revision: "2099-01-01"})
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate(m, Options{Package: "x", SchemaFile: "test.json"})
	if err != nil {
		t.Fatal(err)
	}
	if s := string(files["types.go"]); strings.Contains(s, "IsInt64Literal") || strings.Contains(s, "AppendNumber") {
		t.Errorf("a union without an integer branch splits numbers:\n%s", s)
	}
}
