package tools_test

import (
	"testing"

	"github.com/mcpgen/mcpgen/internal/testsupport/toolstest"
)

// TestNoDrift regenerates the package with the flags of generate.go's
// //go:generate line and compares it with the committed tools.go, so the
// bench cannot measure typed tools an older mcpgen wrote.
func TestNoDrift(t *testing.T) { toolstest.NoDrift(t, ".") }
