package toolsupport

import (
	"encoding/json"
	"errors"
	"math/big"
	"strings"
	"testing"
)

// parse is Parse for values the test writes.
func parse(t *testing.T, s string) any {
	t.Helper()
	v, err := Parse([]byte(s))
	if err != nil {
		t.Fatalf("Parse(%s): %v", s, err)
	}
	return v
}

// wantViolation fails unless err is exactly one violation at pointer p
// whose message contains msg.
func wantViolation(t *testing.T, what string, err error, p, msg string) {
	t.Helper()
	var ve *ValidationError
	if !errors.As(err, &ve) || ve.Pointer != p || !strings.Contains(ve.Message, msg) {
		t.Errorf("%s: got %v, want a violation at %q containing %q", what, err, p, msg)
	}
}

func TestParse(t *testing.T) {
	v := parse(t, `{"n":12345678901234567890.5,"a":[true,null,"s"]}`)
	if n := v.(map[string]any)["n"]; n != json.Number("12345678901234567890.5") {
		t.Errorf("number not kept exact: %#v", n)
	}
	for _, bad := range []string{``, `{`, `1 2`, `{} x`, `nul`} {
		_, err := Parse([]byte(bad))
		wantViolation(t, "Parse("+bad+")", err, "", "not JSON")
	}
}

func TestKindChecks(t *testing.T) {
	obj, arr := parse(t, `{}`), parse(t, `[]`)
	if _, err := AsObject(obj, "/o"); err != nil {
		t.Error(err)
	}
	if _, err := AsArray(arr, "/a"); err != nil {
		t.Error(err)
	}
	_, err := AsObject(arr, "/o")
	wantViolation(t, "AsObject([])", err, "/o", "want object, got array")
	_, err = AsArray(obj, "/a")
	wantViolation(t, "AsArray({})", err, "/a", "want array, got object")
	_, err = AsString(json.Number("1"), "/s")
	wantViolation(t, "AsString(1)", err, "/s", "want string, got number")
	_, err = AsBool(nil, "/b")
	wantViolation(t, "AsBool(null)", err, "/b", "want boolean, got null")
	_, err = AsNumber("1", "/n")
	wantViolation(t, "AsNumber(\"1\")", err, "/n", "want number, got string")
	_, _, err = AsInteger(true, "/i")
	wantViolation(t, "AsInteger(true)", err, "/i", "want integer, got boolean")
}

func TestAsInteger(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		msg  string // "" means accepted
	}{
		{"7", 7, ""},
		{"7.0", 7, ""},
		{"7e2", 700, ""},
		{"-9223372036854775808", -9223372036854775808, ""},
		{"7.5", 0, "want integer, got 7.5"},
		{"9223372036854775808", 0, "does not fit in 64 bits"},
		{"1e401", 0, "out of the supported range"},
		{"1e-401", 0, "out of the supported range"},
	} {
		_, got, err := AsInteger(json.Number(c.in), "/i")
		if c.msg == "" {
			if err != nil || got != c.want {
				t.Errorf("AsInteger(%s) = %d, %v; want %d", c.in, got, err, c.want)
			}
			continue
		}
		wantViolation(t, "AsInteger("+c.in+")", err, "/i", c.msg)
	}
	r, err := AsNumber(json.Number("0.1"), "")
	if err != nil || r.Cmp(big.NewRat(1, 10)) != 0 || Float(r) != 0.1 {
		t.Errorf("AsNumber(0.1) = %v, %v: want exactly 1/10", r, err)
	}
}

func TestBoundsAndLimits(t *testing.T) {
	five := big.NewRat(5, 1)
	for _, c := range []struct {
		op, bound string
		ok        bool
		msg       string
	}{
		{">=", "5", true, ""}, {">=", "5.5", false, "must be at least 5.5, got 5"},
		{"<=", "5", true, ""}, {"<=", "4.99", false, "must be at most 4.99, got 5"},
		{">", "4.99", true, ""}, {">", "5", false, "must be greater than 5, got 5"},
		{"<", "5.01", true, ""}, {"<", "5", false, "must be less than 5, got 5"},
	} {
		err := Bound(five, c.op, c.bound, "/x")
		if c.ok {
			if err != nil {
				t.Errorf("5 %s %s: %v", c.op, c.bound, err)
			}
			continue
		}
		wantViolation(t, "5 "+c.op+" "+c.bound, err, "/x", c.msg)
	}
	// Characters, not bytes.
	if err := Length("héllo", 5, 5, "/s"); err != nil {
		t.Errorf("Length(héllo, 5, 5): %v", err)
	}
	wantViolation(t, "Length short", Length("ab", 3, -1, "/s"), "/s", "at least 3 characters long, got 2")
	wantViolation(t, "Length long", Length("abcd", -1, 3, "/s"), "/s", "at most 3 characters long, got 4")
	if err := Length(strings.Repeat("x", 1000), -1, -1, ""); err != nil {
		t.Errorf("no limits: %v", err)
	}
	wantViolation(t, "Items", Items([]any{1}, 2, -1, "/a"), "/a", "at least 2 items, got 1")
	wantViolation(t, "Items", Items([]any{1, 2, 3}, -1, 2, "/a"), "/a", "at most 2 items, got 3")
	wantViolation(t, "Properties", Properties(map[string]any{}, 1, -1, "/o"), "/o", "at least 1 properties, got 0")
	wantViolation(t, "Properties", Properties(map[string]any{"a": 1, "b": 2}, -1, 1, "/o"), "/o", "at most 1 properties, got 2")
	// Exact arithmetic: 0.3 is a multiple of 0.1, which float64 says it is not.
	if err := MultipleOf(big.NewRat(3, 10), "0.1", "/m"); err != nil {
		t.Errorf("0.3 multipleOf 0.1: %v", err)
	}
	wantViolation(t, "MultipleOf", MultipleOf(big.NewRat(7, 1), "2", "/m"), "/m", "must be a multiple of 2, got 7")
}

func TestEqualityIsJSONs(t *testing.T) {
	for _, c := range []struct {
		a, b string
		eq   bool
	}{
		{`1`, `1.0`, true},
		{`1`, `1e0`, true},
		{`1`, `"1"`, false},
		{`{"a":1,"b":[1,2]}`, `{"b":[1,2.0],"a":1}`, true},
		{`{"a":1}`, `{"a":1,"b":2}`, false},
		{`[1,2]`, `[2,1]`, false},
		{`null`, `false`, false},
		{`1e999`, `1e999`, true}, // beyond the exact range: compared as written
	} {
		if got := equal(parse(t, c.a), parse(t, c.b)); got != c.eq {
			t.Errorf("equal(%s, %s) = %v, want %v", c.a, c.b, got, c.eq)
		}
	}
	wantViolation(t, "Unique", Unique(parse(t, `[1,"x",{"k":[1]},1.0]`).([]any), "/u"), "/u", "items 0 and 3 are equal")
	if err := Unique(parse(t, `[1,"1",[1],{"1":1}]`).([]any), "/u"); err != nil {
		t.Errorf("distinct items: %v", err)
	}
	lits := Literals(`["a",2,{"k":null}]`)
	if err := OneOf(json.Number("2.0"), lits, "/e"); err != nil {
		t.Errorf("2.0 in enum [\"a\",2,...]: %v", err)
	}
	wantViolation(t, "OneOf enum", OneOf("b", lits, "/e"), "/e", `must be one of ["a",2,{"k":null}]`)
	wantViolation(t, "OneOf const", OneOf("b", Literals(`["a"]`), "/c"), "/c", `must be "a"`)
	defer func() {
		if recover() == nil {
			t.Error("Literals of a malformed literal did not panic")
		}
	}()
	Literals(`[`)
}

func TestObjectMembers(t *testing.T) {
	m := parse(t, `{"b":1,"z/y":2,"a~":3,"ok":4}`).(map[string]any)
	err := Required(m, "/o", "ok", "x", "a", "b")
	var ves ValidationErrors
	if !errors.As(err, &ves) || len(ves) != 2 || ves[0].Message != `missing required property "x"` || ves[1].Message != `missing required property "a"` {
		t.Errorf("Required: %v, want x then a, in the order given", err)
	}
	err = Closed(m, "/o", "b", "ok")
	if !errors.As(err, &ves) || len(ves) != 2 || ves[0].Pointer != "/o/a~0" || ves[1].Pointer != "/o/z~1y" {
		t.Errorf("Closed: %v, want /o/a~0 then /o/z~1y (sorted, escaped)", err)
	}
	if err := Closed(m, "", "b", "z/y", "a~", "ok"); err != nil {
		t.Errorf("Closed with every member allowed: %v", err)
	}
	raw := RawMap(parse(t, `{}`).(map[string]any))
	if raw == nil || len(raw) != 0 {
		t.Errorf("RawMap({}) = %#v, want an empty non-nil map", raw)
	}
	if got := string(Raw(parse(t, `{"k":[1.50,"<"]}`))); got != `{"k":[1.50,"\u003c"]}` {
		t.Errorf("Raw = %s", got)
	}
}

func TestViolations(t *testing.T) {
	var v Violations
	if !v.Add(nil) || v.Err() != nil {
		t.Fatalf("no violations: %v", v.Err())
	}
	if v.Add(Invalid("/a", "bad %d", 1)) {
		t.Error("Add of a violation reported none")
	}
	var ve *ValidationError
	if err := v.Err(); !errors.As(err, &ve) || err.Error() != "/a: bad 1" {
		t.Errorf("one violation: %v", err)
	}
	v.Add(ValidationErrors{Invalid("/b", "two"), Invalid("", "three")})
	v.Add(errors.New("other"))
	err := v.Err()
	if err.Error() != "/a: bad 1; /b: two; (root): three; (root): other" {
		t.Errorf("several: %q", err)
	}
	if !errors.As(err, &ve) || ve.Pointer != "/a" {
		t.Errorf("errors.As finds %v, want the first violation", ve)
	}
}
