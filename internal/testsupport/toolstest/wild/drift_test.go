package wild

import (
	"testing"

	"github.com/mcpgen/mcpgen/internal/testsupport/toolstest"
)

// TestNoDrift keeps the committed package equal to what mcpgen tools
// writes from the flags of generate.go.
func TestNoDrift(t *testing.T) { toolstest.NoDrift(t, ".") }
