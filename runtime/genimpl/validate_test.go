package genimpl

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// FuzzValidatorSkip: the validator's scanner accepts exactly what
// encoding/json accepts, and agrees with the codec's scanner.
func FuzzValidatorSkip(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v := Validator{Base: data}
		i := SkipSpace(data, 0)
		ok := i < len(data)
		if ok {
			end := v.Skip(i)
			ok = end >= 0 && SkipSpace(data, end) == len(data)
		}
		if ok != json.Valid(data) {
			t.Fatalf("Skip ok=%v, json.Valid=%v for %q", ok, !ok, data)
		}
		if _, codec := Value(data); codec != ok {
			t.Fatalf("Validator and Value disagree on %q", data)
		}
	})
}

// TestValidatorText: plain strings are substrings of one copy of the
// input; escaped ones are decoded as encoding/json decodes them.
func TestValidatorText(t *testing.T) {
	data := []byte(`["plain","esc\u0041\n","é"]`)
	v := Validator{Base: data}
	var got []string
	a := v.Items(0)
	for a.Next() {
		a.End = v.Skip(a.Value)
		got = append(got, v.Text(data[a.Value:a.End]))
	}
	if a.Bad || len(got) != 3 || got[0] != "plain" || got[1] != "escA\n" || got[2] != "é" {
		t.Fatalf("%q bad=%v", got, a.Bad)
	}
	id, err := v.RequestID([]byte(`1e2`))
	if err != nil || id.String() != "100" {
		t.Fatalf("RequestID(1e2) = %v, %v", id, err)
	}
}

// TestRequestIDExpansionIsBounded: an integer id in exponent form is written
// out up to maxIDZeros zeros; beyond that the decoder says ErrIDOutOfRange
// instead of building a literal of a million digits from a few bytes.
func TestRequestIDExpansionIsBounded(t *testing.T) {
	var s Validator
	for _, tc := range []struct {
		in, want string
	}{{"1e3", "1000"}, {"7.0", "7"}, {"-2.50e1", "-25"}} {
		id, err := s.RequestID([]byte(tc.in))
		if err != nil || id.String() != tc.want {
			t.Errorf("RequestID(%s) = %v, %v; want %s", tc.in, id, err, tc.want)
		}
	}
	id, err := s.RequestID([]byte("1e4096"))
	if text, _ := id.IntegerText(); err != nil || len(text) != 4097 {
		t.Errorf("RequestID(1e4096): %d digits, %v; want 4097 digits", len(text), err)
	}
	for _, in := range []string{"1e4097", "1e999999", "-3e100000000"} {
		if _, err := s.RequestID([]byte(in)); !errors.Is(err, jsonrpc2.ErrIDOutOfRange) {
			t.Errorf("RequestID(%s) error = %v; want ErrIDOutOfRange", in, err)
		}
	}
}
