package toolsupport

import (
	"strconv"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
)

// TestKeyStringInterning checks that a key seen before decodes without an
// allocation, that keys decode to themselves whether or not the table has
// room, and that the table stops at its bound.
func TestKeyStringInterning(t *testing.T) {
	// Start from an empty table, whatever other tests interned (none run
	// in parallel with this one).
	keys = jsonscan.Interner{}
	k := []byte("intern_test_key")
	if got := keyString(k); got != "intern_test_key" {
		t.Fatalf("keyString = %q", got)
	}
	if n := testing.AllocsPerRun(10, func() { _ = keyString(k) }); n != 0 {
		t.Errorf("a repeated key: %v allocations, want 0", n)
	}
	for i := range 2 * jsonscan.MaxInterned {
		want := "k" + strconv.Itoa(i)
		if got := keyString([]byte(want)); got != want {
			t.Fatalf("keyString(%s) = %q", want, got)
		}
	}
	if keys.Len() > jsonscan.MaxInterned {
		t.Errorf("table holds %d keys, bound %d", keys.Len(), jsonscan.MaxInterned)
	}
	long := make([]byte, jsonscan.MaxInternedLen+1)
	for i := range long {
		long[i] = 'x'
	}
	if got := keyString(long); got != string(long) {
		t.Errorf("a long key decoded to %q", got)
	}
	if got := keyString([]byte(`a\u0062`)); got != "ab" {
		t.Errorf("an escaped key decoded to %q", got)
	}
}
