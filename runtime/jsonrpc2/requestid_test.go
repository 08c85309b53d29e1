package jsonrpc2

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestRequestIDKeepsKindAndDigits(t *testing.T) {
	cases := []struct {
		in       string
		isString bool
		out      string // re-encoded
		log      string // String()
	}{
		{`"7"`, true, `"7"`, `"7"`},
		{`7`, false, `7`, `7`},
		{`0`, false, `0`, `0`},
		{`-3`, false, `-3`, `-3`},
		{`-0`, false, `-0`, `-0`},
		{`9007199254740993`, false, `9007199254740993`, `9007199254740993`},                                           // 2^53+1
		{`123456789012345678901234567890`, false, `123456789012345678901234567890`, `123456789012345678901234567890`}, // beyond int64
		{`"a\"b\n"`, true, `"a\"b\n"`, `"a\"b\n"`},
		{`""`, true, `""`, `""`},
		{` 42 `, false, `42`, `42`},
	}
	for _, c := range cases {
		var id RequestID
		if err := json.Unmarshal([]byte(c.in), &id); err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if id.IsString() != c.isString || id.IsZero() {
			t.Errorf("%s: IsString=%v IsZero=%v", c.in, id.IsString(), id.IsZero())
		}
		b, _ := json.Marshal(id)
		if string(b) != c.out {
			t.Errorf("%s: re-encoded as %s, want %s", c.in, b, c.out)
		}
		if id.String() != c.log {
			t.Errorf("%s: String() = %s, want %s", c.in, id.String(), c.log)
		}
	}
	if StringID("7") == Int64ID(7) {
		t.Error(`"7" and 7 must be different ids`)
	}
	m := map[RequestID]int{StringID("7"): 1, Int64ID(7): 2}
	if len(m) != 2 {
		t.Error("RequestID must work as a map key keeping kinds apart")
	}
	big, _ := ParseRequestID([]byte(`9007199254740993`))
	if n, ok := big.Int64(); !ok || n != 9007199254740993 {
		t.Errorf("Int64() = %d, %v", n, ok)
	}
	if big == (func() RequestID { r, _ := ParseRequestID([]byte(`9007199254740992`)); return r })() {
		t.Error("2^53+1 collapsed to 2^53")
	}
	if Int64ID(-5) != mustID(t, `-5`) {
		t.Error("Int64ID and decoded integer differ")
	}
	if _, err := IntegerID("1.5"); err == nil {
		t.Error("IntegerID accepted 1.5")
	}
	var zero RequestID
	if b, _ := json.Marshal(zero); string(b) != "null" || !zero.IsZero() {
		t.Errorf("zero id encodes as %s", b)
	}
}

func mustID(t *testing.T, s string) RequestID {
	t.Helper()
	id, err := ParseRequestID([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestRequestIDRejectsNonIntegerNumbersAndOtherKinds(t *testing.T) {
	for _, in := range []string{`1.5`, `7.0`, `7.9`, `1e3`, `1E3`, `-1e-2`, `01`, `true`, `false`, `null`, `{}`, `{"a":1}`, `[]`, `[1]`, ``, `"unterminated`, `+1`, `0x10`, `NaN`} {
		_, err := ParseRequestID([]byte(in))
		if err == nil {
			t.Errorf("%q accepted", in)
			continue
		}
		if !errors.Is(err, ErrInvalidID) {
			t.Errorf("%q: error %v does not wrap ErrInvalidID", in, err)
		}
	}
	_, err := ParseRequestID([]byte(`1.5`))
	if !strings.Contains(err.Error(), "not an integer") {
		t.Errorf("unclear error for 1.5: %v", err)
	}
}

func FuzzParseRequestID(f *testing.F) {
	for _, s := range []string{`"7"`, `7`, `-0`, `1.5`, `1e3`, `true`, `null`, `{}`, `[]`, `"\u00e9"`, `"\ud800"`, `9007199254740993`, `"a\\b"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		id, err := ParseRequestID(data)
		if err != nil {
			return
		}
		// Whatever is accepted must be valid JSON of kind string or integer,
		// and must re-encode to something that decodes to the same id.
		if !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
		var v any
		dec := json.NewDecoder(strings.NewReader(string(data)))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		switch x := v.(type) {
		case string:
			if !id.IsString() {
				t.Fatalf("%q: string decoded as non-string id", data)
			}
			if s, _ := id.StringValue(); s != x {
				t.Fatalf("%q: value %q, encoding/json says %q", data, s, x)
			}
		case json.Number:
			if !id.IsInteger() || strings.ContainsAny(string(x), ".eE") {
				t.Fatalf("%q: accepted non-integer number", data)
			}
		default:
			t.Fatalf("%q: accepted %T", data, v)
		}
		b, err := id.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseRequestID(b)
		if err != nil || back != id {
			t.Fatalf("%q: round trip %s gave %v, %v", data, b, back, err)
		}
	})
}
