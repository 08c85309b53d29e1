package jsonrpc2

import (
	"math"
	"strconv"
	"testing"
)

// Integer ids in the int64 range are held as values: each integer still has
// exactly one form (== compares ids as before), "-0" and integers beyond
// int64 keep their text, and every id encodes to what was read.
func TestIntegerIDForms(t *testing.T) {
	for _, lit := range []string{"0", "-0", "7", "-7", "10", "99", "100", "-100",
		strconv.FormatInt(math.MaxInt64, 10), strconv.FormatInt(math.MinInt64, 10),
		"9223372036854775808", "-9223372036854775809", "123456789012345678901234567890"} {
		id, err := ParseRequestID([]byte(lit))
		if err != nil {
			t.Fatalf("%s: %v", lit, err)
		}
		if got := string(id.RawJSON()); got != lit {
			t.Errorf("%s encodes as %s", lit, got)
		}
		if id.String() != lit || id.textLen() != len(lit) {
			t.Errorf("%s: String %q, textLen %d", lit, id.String(), id.textLen())
		}
		if txt, ok := id.IntegerText(); !ok || txt != lit {
			t.Errorf("%s: IntegerText %q, %v", lit, txt, ok)
		}
		if byText, err := IntegerID(lit); err != nil || byText != id {
			t.Errorf("%s: IntegerID gives %#v, ParseRequestID %#v (%v)", lit, byText, id, err)
		}
		if n, err := strconv.ParseInt(lit, 10, 64); err == nil && lit != "-0" {
			if Int64ID(n) != id {
				t.Errorf("%s: Int64ID differs from the parsed id", lit)
			}
			if v, ok := id.Int64(); !ok || v != n {
				t.Errorf("%s: Int64 %d, %v", lit, v, ok)
			}
		}
	}
	zero, _ := ParseRequestID([]byte("0"))
	negZero, _ := ParseRequestID([]byte("-0"))
	if zero == negZero {
		t.Error("-0 and 0 are the same id")
	}
	lit := []byte("12345")
	if n := testing.AllocsPerRun(100, func() { _, _ = ParseRequestID(lit) }); n != 0 {
		t.Errorf("%v allocations to parse an integer id, want 0", n)
	}
}
