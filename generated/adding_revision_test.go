package generated

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp20241105"
	"github.com/mcpgen/mcpgen/generated/mcp20250326"
	"github.com/mcpgen/mcpgen/generated/mcp20250618"
	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	"github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/generator"
	"github.com/mcpgen/mcpgen/official"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/schema"
)

// generatedRevisions are the Revision() of every official revision's
// bindings: what the runtime learns of each revision through the generated
// code.
var generatedRevisions = []session.Revision{mcp20241105.Revision(), mcp20250326.Revision(),
	mcp20250618.Revision(), mcp20251125.Revision(), mcp20260728.Revision()}

// syntheticRevision is the made-up date TestAddingARevision adds.
const syntheticRevision = "2099-12-31"

// docNames are the identifiers ADDING_A_REVISION.md tells the reader to
// edit or run, with the file that must hold each: renaming one without
// updating the document fails here.
var docNames = []struct{ file, name string }{
	{"schema/revisions.go", "revisionTable"},
	{"schema/revisions.go", "LifecycleMethods"},
	{"schema/revisions.go", "CanonicalSHA256"},
	{"schema/revisions.go", "StructuredToolOutput"},
	{"schema/revisions.go", "ToolInputErrorsAsResults"},
	{"schema/revisions.go", "ServerMayCancel"},
	{"schema/revisions.go", "ServerCancelsOnly"},
	{"schema/revisions.go", "HTTPDisconnectCancels"},
	{"schema/revisions.go", "NameHeader"},
	{"runtime/session/revision.go", "HTTPNameMembers"},
	{"runtime/session/revision.go", "Lifecycle"},
	{"schema/revisions.go", "DefaultHTTPVersions"},
	{"schema/revisions_test.go", "TestRevisionTable"},
	{"schema/digest_test.go", "TestOfficialCanonicalDigests"},
	{"official/official.go", "ExamplesRevision"},
	{"official/official_test.go", "TestFilesUnmodified"},
	{"schema/revisions.go", "RemovedMethods"},
	{"schema/revisions.go", "SSEPriming"},
	{"schema/revisions.go", "CoreTasks"},
	{"runtime/session/revision.go", "RemovedMethods"},
	{"runtime/session/revision.go", "SSEPriming"},
	{"runtime/session/revision.go", "CoreTasks"},
	{"runtime/streamhttp/revisions.go", "ErrNoRevisions"},
	{"internal/archtest/versions_test.go", "TestNoRevisionFactsInRuntime"},
	{"generator/types_test.go", "revisions"},
	{"cmd/mcpgen/migrating_test.go", "Migrating"},
}

// TestAddingARevision keeps ADDING_A_REVISION.md true. It checks that
// every repository path and name the document gives exists, then takes a
// synthetic revision (the newest official schema under a made-up date)
// through the document's steps 1–4: the schema in its folder, its row
// added to the text of schema/revisions.go, its bindings generated into
// generated/mcpYYYYMMDD, and a program that serves them with the generated
// NewServer and connects with the generated Connect over a pipe. All of it
// is built in one go build -overlay, so nothing is written beside the
// sources.
func TestAddingARevision(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	latest := official.Latest()
	digits := func(rev string) string { return strings.ReplaceAll(rev, "-", "") }
	doc, err := os.ReadFile(filepath.Join(root, "ADDING_A_REVISION.md"))
	if err != nil {
		t.Fatal(err)
	}
	checkDocPaths(t, root, string(doc), latest)

	checkRevisionData(t)
	if testing.Short() {
		t.Skip("the rest runs go build")
	}

	// Step 1: the schema in official/schemas/<rev>/. A copy of the newest
	// official schema with a root $comment, so it is a schema of its own
	// (its canonical digest differs), in a folder named like the revision.
	data, err := official.Schema(latest)
	if err != nil {
		t.Fatal(err)
	}
	brace := bytes.IndexByte(data, '{')
	synthetic := append(append(slices.Clone(data[:brace+1]), `"$comment": "a synthetic revision (generated/adding_revision_test.go)",`...), data[brace+1:]...)
	tmp := t.TempDir()
	schemaFile := filepath.Join(tmp, "official", "schemas", syntheticRevision, "schema.json")
	if err := os.MkdirAll(filepath.Dir(schemaFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(schemaFile, synthetic, 0o644); err != nil {
		t.Fatal(err)
	}

	// Step 2: its row, added to the text of schema/revisions.go as a
	// person would: the newest row, with the new version and digest.
	row, ok := schema.LookupRevision(latest)
	if !ok {
		t.Fatalf("no row for the newest official revision %s", latest)
	}
	row.Version = syntheticRevision
	if row.CanonicalSHA256, err = schema.CanonicalDigest(synthetic); err != nil {
		t.Fatal(err)
	}
	revisionsGo, err := os.ReadFile(filepath.Join(root, "schema", "revisions.go"))
	if err != nil {
		t.Fatal(err)
	}
	edited, err := addRow(revisionsGo, row)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parser.ParseFile(token.NewFileSet(), "revisions.go", edited, 0); err != nil {
		t.Fatalf("schema/revisions.go with the row added does not parse: %v\n%s", err, edited)
	}

	// Step 3: generate its bindings, as go generate would.
	m, err := schema.Load(schemaFile, schema.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if m.Revision != syntheticRevision {
		t.Fatalf("the schema in official/schemas/%s/ loads as revision %s", syntheticRevision, m.Revision)
	}
	pkg := "mcp" + digits(syntheticRevision)
	files, err := generator.Generate(m, generator.Options{Package: pkg, SchemaFile: "official schema " + syntheticRevision})
	if err != nil {
		t.Fatal(err)
	}
	overlay := map[string]string{}
	put := func(rel string, content []byte) {
		file := filepath.Join(tmp, strings.ReplaceAll(rel, "/", "_"))
		if err := os.WriteFile(file, content, 0o644); err != nil {
			t.Fatal(err)
		}
		overlay[filepath.Join(root, filepath.FromSlash(rel))] = file
	}
	put("schema/revisions.go", edited)
	for name, src := range files {
		put("generated/"+pkg+"/"+name, src)
	}
	put("generated/"+pkg+"/generate.go", fmt.Appendf(nil, "package %s\n\n//go:generate go run -tags mcpgen_bootstrap ../../cmd/mcpgen generate --revision %s --package %s --out .\n", pkg, syntheticRevision, pkg))

	// Step 4: serve it. The program checks the row is in the table, that
	// typed tools know the revision from it, and runs the lifecycle and a
	// call over a pipe with the generated NewServer (through Serve) and
	// Connect.
	put("generated/"+pkg+"/lifecyclecheck/main.go", fmt.Appendf(nil, lifecycleCheck, pkg, syntheticRevision))
	overlayJSON, err := json.Marshal(map[string]any{"Replace": overlay})
	if err != nil {
		t.Fatal(err)
	}
	overlayFile := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(overlayFile, overlayJSON, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(tmp, "lifecyclecheck")
	build := exec.Command("go", "build", "-overlay", overlayFile, "-o", bin, "./generated/"+pkg+"/lifecyclecheck")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("the synthetic revision %s does not build: %v\n%s", syntheticRevision, err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "ok" {
		t.Fatalf("the synthetic revision %s fails its lifecycle check: %v\n%s", syntheticRevision, err, out)
	}
}

// checkDocPaths checks that every repository path the document names in
// backquotes exists (<rev> and <YYYYMMDD> read as the newest revision), and
// that every name of docNames is both in the document and in its file.
func checkDocPaths(t *testing.T, root, doc, latest string) {
	t.Helper()
	quoted := regexp.MustCompile("`([^`\\s]+)`").FindAllStringSubmatch(doc, -1)
	n := 0
	for _, q := range quoted {
		p := q[1]
		top, _, ok := strings.Cut(p, "/")
		if !ok || !slices.Contains([]string{"official", "schema", "generated", "generator", "cmd", "runtime", "examples"}, top) {
			continue
		}
		p = strings.NewReplacer("<rev>", latest, "<YYYYMMDD>", strings.ReplaceAll(latest, "-", "")).Replace(p)
		if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(p))); err != nil {
			t.Errorf("ADDING_A_REVISION.md names %s, which does not exist: %v", q[1], err)
		}
		n++
	}
	if n < 10 {
		t.Errorf("ADDING_A_REVISION.md names only %d repository paths; the pattern no longer finds them", n)
	}
	for _, dn := range docNames {
		if !strings.Contains(doc, dn.name) {
			t.Errorf("ADDING_A_REVISION.md does not mention %s (%s)", dn.name, dn.file)
		}
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(dn.file)))
		if err != nil || !bytes.Contains(src, []byte(dn.name)) {
			t.Errorf("ADDING_A_REVISION.md sends the reader to %s in %s, which is not there", dn.name, dn.file)
		}
	}
}

// addRow returns the source of schema/revisions.go with row appended to
// revisionTable.
func addRow(src []byte, row schema.RevisionFacts) ([]byte, error) {
	start := bytes.Index(src, []byte("var revisionTable = []RevisionFacts{"))
	if start < 0 {
		return nil, fmt.Errorf("schema/revisions.go has no revisionTable")
	}
	end := bytes.Index(src[start:], []byte("\n}\n"))
	if end < 0 {
		return nil, fmt.Errorf("schema/revisions.go: revisionTable does not end")
	}
	end += start
	lit := strings.TrimPrefix(fmt.Sprintf("%#v", row), "schema.RevisionFacts")
	lit = strings.ReplaceAll(lit, "schema.", "")
	var out []byte
	out = append(out, src[:end]...)
	out = append(out, "\n\t"+lit+","...)
	return append(out, src[end:]...), nil
}

// lifecycleCheck is the program of step 4; %[1]s is the package, %[2]s
// the revision.
const lifecycleCheck = `package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"time"

	mcp "github.com/mcpgen/mcpgen/generated/%[1]s"
	"github.com/mcpgen/mcpgen/generator/tools"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/schema"
)

type server struct{}

var _ mcp.CallToolHandler = server{}

func (server) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	return mcp.TextResult("hello from " + session.ProtocolVersion(ctx)), nil
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}

func main() {
	const rev = %[2]q
	row, ok := schema.LookupRevision(rev)
	if !ok {
		fail("step 2: the revision table has no row for %%s", rev)
	}
	r := mcp.Revision()
	if r.Version != rev || mcp.ProtocolVersion != rev {
		fail("step 3: the bindings say revision %%s (ProtocolVersion %%s)", r.Version, mcp.ProtocolVersion)
	}
	if r.Modern != (row.Era == schema.EraModern) || !slices.Equal(r.HTTPHeaders, row.Headers) || !maps.Equal(r.HTTPNameMembers, row.NameHeader) {
		fail("step 3: Revision() has modern %%v, headers %%v, Mcp-Name %%v; the row era %%s, headers %%v, Mcp-Name %%v",
			r.Modern, r.HTTPHeaders, r.HTTPNameMembers, row.Era, row.Headers, row.NameHeader)
	}
	if _, err := tools.Generate([]byte(` + "`" + `[{"name":"greet","inputSchema":{"type":"object"}}]` + "`" + `),
		tools.Options{Package: "tools", Import: "github.com/mcpgen/mcpgen/generated/%[1]s"}); err != nil {
		fail("step 3: typed tools: %%v", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	a, b := jsonrpc2.NewPipe()
	done := make(chan error, 1)
	go func() {
		done <- mcp.Serve(ctx, a, session.Implementation{Name: "synthetic", Version: "1"}, server{})
	}()
	s, err := mcp.Connect(ctx, b, session.Implementation{Name: "check", Version: "1"}, nil)
	if err != nil {
		fail("step 4: Connect: %%v", err)
	}
	if s.ProtocolVersion() != rev {
		fail("step 4: negotiated %%s", s.ProtocolVersion())
	}
	res, err := s.CallTool(ctx, &mcp.CallToolRequestParams{Name: "greet"})
	if err != nil {
		fail("step 4: tools/call: %%v", err)
	}
	if len(res.Content) != 1 {
		fail("step 4: tools/call answered %%d content blocks", len(res.Content))
	}
	if text, ok := res.Content[0].(*mcp.TextContent); !ok || text.Text != "hello from "+rev {
		fail("step 4: tools/call answered %%#v", res.Content[0])
	}
	s.Close(ctx)
	if err := <-done; err != nil && ctx.Err() != nil {
		fail("step 4: Serve: %%v", err)
	}
	fmt.Println("ok")
}
`

// checkRevisionData checks step 4: the facts the runtime reads from the
// generated Revision() of each official revision (the HTTP headers and
// Mcp-Name members, the methods it removed, SSE priming, core tasks) are
// its row of the revision table, and the versions a Handler derives from
// them are the table's Streamable HTTP versions of each era. streamhttp
// has no revision data of its own: it serves and speaks exactly these.
func checkRevisionData(t *testing.T) {
	t.Helper()
	for era, sEra := range map[streamhttp.Era]schema.Era{streamhttp.EraModern: schema.EraModern, streamhttp.EraLegacy: schema.EraLegacy} {
		want := schema.DefaultHTTPVersions(sEra)
		if got := streamhttp.Versions(generatedRevisions, era); !slices.Equal(got, want) {
			t.Errorf("the generated Revision() data gives the %s HTTP versions %v, the revision table says %v", sEra, got, want)
		}
	}
	for _, g := range generatedRevisions {
		row, ok := schema.LookupRevision(g.Version)
		if !ok {
			t.Errorf("%s: generated, but no row in schema/revisions.go", g.Version)
			continue
		}
		if g.Modern != (row.Era == schema.EraModern) || !slices.Equal(g.HTTPHeaders, row.Headers) || !maps.Equal(g.HTTPNameMembers, row.NameHeader) ||
			!slices.Equal(g.RemovedMethods, row.RemovedMethods) || g.SSEPriming != row.SSEPriming || g.CoreTasks != row.CoreTasks {
			t.Errorf("%s: the generated Revision() is {Modern: %v, HTTPHeaders: %v, HTTPNameMembers: %v, RemovedMethods: %v, SSEPriming: %v, CoreTasks: %v}; the table says {%v, %v, %v, %v, %v, %v}: run go generate ./generated/...",
				g.Version, g.Modern, g.HTTPHeaders, g.HTTPNameMembers, g.RemovedMethods, g.SSEPriming, g.CoreTasks,
				row.Era == schema.EraModern, row.Headers, row.NameHeader, row.RemovedMethods, row.SSEPriming, row.CoreTasks)
		}
	}
}
