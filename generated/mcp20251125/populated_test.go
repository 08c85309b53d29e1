package mcp20251125

import (
	"testing"

	"github.com/mcpgen/mcpgen/internal/testsupport/modeltest"
)

// TestPopulated: a maximal and a minimal valid instance of every
// definition, built from the schema Model in every union branch, decodes
// into its Go type and re-encodes to equal, schema-valid JSON.
func TestPopulated(t *testing.T) { modeltest.Populated(t, revision, DecodeDefinition) }

// TestValidMutationsDecode: random mutations jsonschema/v5 still accepts
// decode and round-trip too.
func TestValidMutationsDecode(t *testing.T) {
	modeltest.ValidMutationsDecode(t, revision, DecodeDefinition)
}
