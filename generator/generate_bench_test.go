package generator

import (
	"testing"

	"github.com/mcpgen/mcpgen/internal/testsupport/scaletest"
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

// BenchmarkLoadAndGenerateScale is BenchmarkLoadAndGenerate20260728 for
// the official 2025-11-25 schema plus 1,000 extra definitions of 50
// properties each (the scale case of scripts/suites/60-scale.sh).
func BenchmarkLoadAndGenerateScale(b *testing.B) {
	data, err := scaletest.Schema("2025-11-25", 1000, 50)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		m, err := schema.LoadBytes("scale.json", data, schema.Options{Revision: "2025-11-25"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Generate(m, Options{Package: "scale", SchemaFile: "scale.json"}); err != nil {
			b.Fatal(err)
		}
	}
}
