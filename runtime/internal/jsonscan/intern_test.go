package jsonscan

import (
	"strconv"
	"strings"
	"testing"
)

// A string seen before costs no allocation; every string is itself whether
// or not the table has room; the table stops at its bound.
func TestInterner(t *testing.T) {
	var in Interner
	k := []byte("intern_test_key")
	if got := in.String(k); got != "intern_test_key" {
		t.Fatalf("String = %q", got)
	}
	if n := testing.AllocsPerRun(10, func() { _ = in.String(k) }); n != 0 {
		t.Errorf("a repeated string: %v allocations, want 0", n)
	}
	for i := range 2 * MaxInterned {
		want := "k" + strconv.Itoa(i)
		if got := in.String([]byte(want)); got != want {
			t.Fatalf("String(%s) = %q", want, got)
		}
	}
	if in.Len() > MaxInterned {
		t.Errorf("table holds %d strings, bound %d", in.Len(), MaxInterned)
	}
	long := strings.Repeat("x", MaxInternedLen+1)
	if got := in.String([]byte(long)); got != long {
		t.Errorf("a long string came back as %q", got)
	}
}
