package schema_test

import (
	"slices"
	"testing"

	"github.com/mcpgen/mcpgen/official"
	"github.com/mcpgen/mcpgen/schema"
)

// TestRevisionTable checks the revision table against the official
// schemas: one row per embedded revision and no other, oldest first, and
// every column the schema can tell (digest, era, dialect, structured tool
// output, the lifecycle methods) agreeing with it.
func TestRevisionTable(t *testing.T) {
	rows := schema.Revisions()
	earlier := map[string]bool{} // the methods of the rows checked so far
	var versions []string
	for _, r := range rows {
		versions = append(versions, r.Version)
	}
	if !slices.Equal(versions, official.Revisions()) {
		t.Fatalf("the revision table has %v, package official embeds %v: each embedded schema needs a row in schema/revisions.go and each row its schema (ADDING_A_REVISION.md)", versions, official.Revisions())
	}
	for _, r := range rows {
		data, err := official.Schema(r.Version)
		if err != nil {
			t.Fatal(err)
		}
		m, err := schema.LoadBytes("official/"+r.Version+"/schema.json", data, schema.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if m.Revision != r.Version {
			t.Errorf("%s: the schema is recognised as %s (CanonicalSHA256)", r.Version, m.Revision)
		}
		if r.Era != m.Facts.Era {
			t.Errorf("%s: the table says era %q, the schema %q (legacy exactly when it defines initialize)", r.Version, r.Era, m.Facts.Era)
		}
		if r.Dialect != m.Dialect {
			t.Errorf("%s: the table says dialect %q, the schema is %q", r.Version, r.Dialect, m.Dialect)
		}
		tool := m.Definition("Tool")
		hasOutput := tool != nil && slices.ContainsFunc(m.Resolve(tool.Type).Properties, func(p *schema.Property) bool { return p.Name == "outputSchema" })
		if r.StructuredToolOutput != hasOutput {
			t.Errorf("%s: the table says StructuredToolOutput %v, Tool.outputSchema exists: %v", r.Version, r.StructuredToolOutput, hasOutput)
		}
		// A legacy session opens with initialize and stays alive with ping;
		// a modern server is discovered (2026-07-28 removed ping and
		// logging/setLevel: changelog.mdx, SEP-2575).
		want := []string{"initialize", "notifications/initialized", "ping"}
		if r.Era == schema.EraModern {
			want = []string{"server/discover"}
		}
		for _, me := range want {
			if !slices.Contains(m.Facts.Lifecycle, me) {
				t.Errorf("%s: era %s, but the lifecycle methods %v lack %s", r.Version, r.Era, m.Facts.Lifecycle, me)
			}
		}
		// Sessions are what the legacy era has and the modern one removed
		// (2026-07-28 changelog.mdx, SEP-2567).
		if r.StreamableHTTP() && slices.Contains(r.Headers, schema.HeaderSessionID) != (r.Era == schema.EraLegacy) {
			t.Errorf("%s: era %s with headers %v", r.Version, r.Era, r.Headers)
		}
		for _, me := range r.ServerCancelsOnly {
			if !slices.ContainsFunc(m.Methods, func(x *schema.Method) bool { return x.Name == me }) {
				t.Errorf("%s: ServerCancelsOnly names %s, which the schema does not define", r.Version, me)
			}
		}
		if len(r.NameHeader) > 0 != slices.Contains(r.Headers, schema.HeaderName) {
			t.Errorf("%s: NameHeader %v with headers %v", r.Version, r.NameHeader, r.Headers)
		}
		for method, member := range r.NameHeader {
			i := slices.IndexFunc(m.Methods, func(x *schema.Method) bool { return x.Name == method })
			if i < 0 || m.Methods[i].Params == nil {
				t.Errorf("%s: NameHeader names %s, which the schema does not define with params", r.Version, method)
				continue
			}
			params := m.Resolve(m.Methods[i].Params)
			if !slices.ContainsFunc(params.Properties, func(p *schema.Property) bool {
				return p.Name == member && p.Required && m.Resolve(p.Type).Kind == schema.KindString
			}) {
				t.Errorf("%s: NameHeader mirrors %s's params.%s, which is not a required string there", r.Version, method, member)
			}
		}
		if !slices.Equal(m.Facts.Headers, r.Headers) {
			t.Errorf("%s: Model.Facts.Headers %v, the table %v", r.Version, m.Facts.Headers, r.Headers)
		}
		defines := func(name string) bool {
			return slices.ContainsFunc(m.Methods, func(x *schema.Method) bool { return x.Name == name })
		}
		// A removed method is one an earlier revision has and this one
		// lacks.
		for _, me := range r.RemovedMethods {
			if defines(me) || !earlier[me] {
				t.Errorf("%s: RemovedMethods names %s: defined here %v, by an earlier revision %v", r.Version, me, defines(me), earlier[me])
			}
		}
		if !slices.Equal(m.Facts.RemovedMethods, r.RemovedMethods) {
			t.Errorf("%s: Model.Facts.RemovedMethods %v, the table %v", r.Version, m.Facts.RemovedMethods, r.RemovedMethods)
		}
		// Priming belongs to the resumable SSE streams of legacy sessions.
		if r.SSEPriming && (r.Era != schema.EraLegacy || !r.StreamableHTTP()) {
			t.Errorf("%s: SSEPriming in era %s with headers %v", r.Version, r.Era, r.Headers)
		}
		if r.SSEPriming != m.Facts.SSEPriming {
			t.Errorf("%s: Model.Facts.SSEPriming %v, the table %v", r.Version, m.Facts.SSEPriming, r.SSEPriming)
		}
		// Core tasks are the task methods of the core schema.
		if r.CoreTasks != defines("tasks/get") || r.CoreTasks != m.Facts.CoreTasks {
			t.Errorf("%s: the table says CoreTasks %v; the schema defines tasks/get: %v; Model.Facts.CoreTasks %v", r.Version, r.CoreTasks, defines("tasks/get"), m.Facts.CoreTasks)
		}
		for _, me := range m.Methods {
			earlier[me.Name] = true
		}
	}
}

// TestDefaultHTTPVersions: the versions an HTTP server serves by default
// are the Streamable HTTP revisions of each era, newest first.
func TestDefaultHTTPVersions(t *testing.T) {
	if got, want := schema.DefaultHTTPVersions(schema.EraLegacy), []string{"2025-11-25", "2025-06-18", "2025-03-26"}; !slices.Equal(got, want) {
		t.Errorf("legacy: %v, want %v", got, want)
	}
	if got, want := schema.DefaultHTTPVersions(schema.EraModern), []string{"2026-07-28"}; !slices.Equal(got, want) {
		t.Errorf("modern: %v, want %v", got, want)
	}
}
