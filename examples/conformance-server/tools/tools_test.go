package tools_test

import (
	"testing"

	"github.com/mcpgen/mcpgen/internal/testsupport/toolstest"
)

// TestNoDrift: tools.go is what mcpgen tools writes from tools.json today.
// (generate.go holds the flags.)
func TestNoDrift(t *testing.T) { toolstest.NoDrift(t, ".") }
