package mcp20250326

import (
	"reflect"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testsupport/modeltest"
)

// methodTable is Methods as the shared checks of internal/testsupport/modeltest see it.
func methodTable() []modeltest.Method {
	out := make([]modeltest.Method, len(Methods))
	for i, m := range Methods {
		out[i] = modeltest.Method(m)
	}
	return out
}

func lookupMethod(name string) (modeltest.Method, bool) {
	m, ok := LookupMethod(name)
	if !ok {
		return modeltest.Method{}, false
	}
	return modeltest.Method(*m), true
}

// TestMethodTable checks the generated table against the model it came from.
func TestMethodTable(t *testing.T) { modeltest.MethodTable(t, revision, methodTable(), lookupMethod) }

// TestPolicy checks that Policy carries the revision's facts and that the
// runtime takes it.
func TestPolicy(t *testing.T) { modeltest.Policy(t, revision, Policy) }

// TestInterfacesCoverTable: every request and notification a side receives
// has a method on that side's interface.
func TestInterfacesCoverTable(t *testing.T) {
	modeltest.InterfacesCoverTable(t, methodTable(), reflect.TypeFor[ServerHandler](), reflect.TypeFor[ClientHandler]())
}
