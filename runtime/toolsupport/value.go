package toolsupport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Parse decodes one JSON value, keeping numbers exact (json.Number). Data
// that is not exactly one JSON value is a *ValidationError at the root.
func Parse(data []byte) (any, error) {
	if v, ok := parseFast(data); ok {
		return v, nil
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, &ValidationError{Message: "not JSON: " + err.Error()}
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, &ValidationError{Message: "not JSON: data after the value"}
	}
	return v, nil
}

// arguments turns the arguments of tools/call into the value the input
// schema checks; absent arguments are the empty object.
func arguments(args map[string]json.RawMessage) (any, error) {
	m := make(map[string]any, len(args))
	for k, raw := range args {
		v, err := Parse(raw)
		if err != nil {
			err.(*ValidationError).Pointer = "/" + esc(k)
			return nil, err
		}
		m[k] = v
	}
	return m, nil
}

// kind is the JSON Schema type name of a decoded value.
func kind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// AsObject is v as an object, or a violation at p.
func AsObject(v any, p string) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, Invalid(p, "want object, got %s", kind(v))
	}
	return m, nil
}

// AsArray is v as an array, or a violation at p.
func AsArray(v any, p string) ([]any, error) {
	a, ok := v.([]any)
	if !ok {
		return nil, Invalid(p, "want array, got %s", kind(v))
	}
	return a, nil
}

// AsString is v as a string, or a violation at p.
func AsString(v any, p string) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", Invalid(p, "want string, got %s", kind(v))
	}
	return s, nil
}

// AsBool is v as a boolean, or a violation at p.
func AsBool(v any, p string) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, Invalid(p, "want boolean, got %s", kind(v))
	}
	return b, nil
}

// rat is n as an exact rational, or nil for numbers whose exponent is so
// large that computing with them would cost more than any tool is worth.
func rat(n string) *big.Rat {
	if i := strings.IndexAny(n, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(n[i+1:], "+"))
		if err != nil || e > 400 || e < -400 {
			return nil
		}
	}
	r, ok := new(big.Rat).SetString(n)
	if !ok {
		return nil
	}
	return r
}

// AsNumber is v as an exact number, or a violation at p; numbers with an
// exponent beyond ±400 are out of the supported range.
func AsNumber(v any, p string) (*big.Rat, error) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, Invalid(p, "want number, got %s", kind(v))
	}
	r := rat(n.String())
	if r == nil {
		return nil, Invalid(p, "number %s is out of the supported range", n)
	}
	return r, nil
}

// AsInteger accepts what JSON Schema calls an integer (7, 7.0, 7e2) that
// fits an int64, and returns it both exact and as an int64.
func AsInteger(v any, p string) (*big.Rat, int64, error) {
	r, err := AsNumber(v, p)
	if err != nil {
		if _, ok := v.(json.Number); !ok {
			err = Invalid(p, "want integer, got %s", kind(v))
		}
		return nil, 0, err
	}
	if !r.IsInt() {
		return nil, 0, Invalid(p, "want integer, got %s", v)
	}
	if !r.Num().IsInt64() {
		return nil, 0, Invalid(p, "integer %s does not fit in 64 bits", v)
	}
	return r, r.Num().Int64(), nil
}

// Float is r as the nearest float64.
func Float(r *big.Rat) float64 {
	f, _ := r.Float64()
	return f
}

// Bound checks r against a bound given as a JSON number literal; op is one
// of >=, <=, >, < (minimum, maximum, exclusiveMinimum, exclusiveMaximum).
func Bound(r *big.Rat, op, bound string, p string) error {
	b, _ := new(big.Rat).SetString(bound)
	c := r.Cmp(b)
	ok := false
	switch op {
	case ">=":
		ok = c >= 0
	case "<=":
		ok = c <= 0
	case ">":
		ok = c > 0
	case "<":
		ok = c < 0
	}
	if !ok {
		words := map[string]string{">=": "at least", "<=": "at most", ">": "greater than", "<": "less than"}
		return Invalid(p, "must be %s %s, got %s", words[op], bound, r.RatString())
	}
	return nil
}

// Length checks minLength and maxLength (in characters; -1: no limit).
func Length(s string, min, max int, p string) error {
	n := utf8.RuneCountInString(s)
	if min >= 0 && n < min {
		return Invalid(p, "must be at least %d characters long, got %d", min, n)
	}
	if max >= 0 && n > max {
		return Invalid(p, "must be at most %d characters long, got %d", max, n)
	}
	return nil
}

// Items checks minItems and maxItems (-1: no limit).
func Items(a []any, min, max int, p string) error {
	if min >= 0 && len(a) < min {
		return Invalid(p, "must have at least %d items, got %d", min, len(a))
	}
	if max >= 0 && len(a) > max {
		return Invalid(p, "must have at most %d items, got %d", max, len(a))
	}
	return nil
}

// Properties checks minProperties and maxProperties (-1: no limit).
func Properties(m map[string]any, min, max int, p string) error {
	if min >= 0 && len(m) < min {
		return Invalid(p, "must have at least %d properties, got %d", min, len(m))
	}
	if max >= 0 && len(m) > max {
		return Invalid(p, "must have at most %d properties, got %d", max, len(m))
	}
	return nil
}

// Unique checks uniqueItems, with JSON equality (see OneOf).
func Unique(a []any, p string) error {
	for i := range a {
		for j := 0; j < i; j++ {
			if equal(a[i], a[j]) {
				return Invalid(p, "items %d and %d are equal (uniqueItems)", j, i)
			}
		}
	}
	return nil
}

// MultipleOf checks that r is an integer multiple of m, a JSON number
// literal greater than 0 (the generator checks that).
func MultipleOf(r *big.Rat, m string, p string) error {
	d, _ := new(big.Rat).SetString(m)
	if !new(big.Rat).Quo(r, d).IsInt() {
		return Invalid(p, "must be a multiple of %s, got %s", m, r.RatString())
	}
	return nil
}

// Required reports every missing name, in the order given (sorted by the
// generator).
func Required(m map[string]any, p string, names ...string) error {
	var errs Violations
	for _, n := range names {
		if _, ok := m[n]; !ok {
			errs.Add(Invalid(p, "missing required property %q", n))
		}
	}
	return errs.Err()
}

// Closed reports every member, in sorted order, that allowed does not name
// (additionalProperties: false).
func Closed(m map[string]any, p string, allowed ...string) error {
	var bad []string
	for k := range m {
		found := false
		for _, a := range allowed {
			if a == k {
				found = true
				break
			}
		}
		if !found {
			bad = append(bad, k)
		}
	}
	sort.Strings(bad)
	var errs Violations
	for _, b := range bad {
		errs.Add(Invalid(p+"/"+esc(b), "property %q is not allowed", b))
	}
	return errs.Err()
}

// esc escapes a member name for a JSON pointer (RFC 6901).
func esc(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// Raw is v written back as JSON.
func Raw(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// RawMap is an object bound to map[string]json.RawMessage (never nil, so
// an explicit {} survives).
func RawMap(m map[string]any) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		out[k] = Raw(v)
	}
	return out
}

// Literals parses the literal array of an enum (or a one-element array for
// a const) that the generator wrote; it panics on anything else, which
// would be a generator bug caught when the package is initialised.
func Literals(s string) []any {
	v, err := Parse([]byte(s))
	if err != nil {
		panic(err)
	}
	return v.([]any)
}

// OneOf checks v against enum (or const) literals with JSON equality:
// numbers by value (1 equals 1.0), objects regardless of member order.
func OneOf(v any, lits []any, p string) error {
	for _, l := range lits {
		if equal(v, l) {
			return nil
		}
	}
	if len(lits) == 1 {
		return Invalid(p, "must be %s", Raw(lits[0]))
	}
	return Invalid(p, "must be one of %s", Raw(lits))
}

// equal is JSON equality of two decoded values.
func equal(a, b any) bool {
	switch a := a.(type) {
	case json.Number:
		b, ok := b.(json.Number)
		if !ok {
			return false
		}
		ra, rb := rat(a.String()), rat(b.String())
		if ra == nil || rb == nil {
			return a == b
		}
		return ra.Cmp(rb) == 0
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, v := range a {
			w, ok := b[k]
			if !ok || !equal(v, w) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !equal(a[i], b[i]) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}
