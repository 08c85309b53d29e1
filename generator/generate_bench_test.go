package generator

import (
	"testing"

	"github.com/mcpgen/mcpgen/schema"
)

var schema20260728 = schemaPath("2026-07-28")

// BenchmarkGenerate20260728 measures model → Go source for the largest
// revision.
func BenchmarkGenerate20260728(b *testing.B) {
	m, err := schema.Load(schema20260728, schema.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Generate(m, Options{Package: "mcp20260728", SchemaFile: "schema.json"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadAndGenerate20260728 measures what "mcpgen generate" does
// but for writing files: read, compile with jsonschema/v5, model, emit.
func BenchmarkLoadAndGenerate20260728(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		m, err := schema.Load(schema20260728, schema.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Generate(m, Options{Package: "mcp20260728", SchemaFile: "schema.json"}); err != nil {
			b.Fatal(err)
		}
	}
}
