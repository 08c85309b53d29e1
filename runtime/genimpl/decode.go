package genimpl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
)

// DecodeError reports a JSON document that does not decode into a generated
// type: a missing required member, a constant member with the wrong value,
// null where the schema does not allow it, a value of the wrong JSON kind, or
// a union value that no branch accepts. Nested errors wrap each other, so the
// message reads as a path from the outermost type. Generated packages export
// it under their own name (an alias), so errors.As works with either.
type DecodeError struct {
	// Type is the Go type being decoded.
	Type string
	// Member is the JSON member at fault, or empty for the value itself.
	Member string
	// Err says what is wrong.
	Err error
}

// Error formats the type, the member and the cause.
func (e *DecodeError) Error() string {
	s := "decoding " + e.Type
	if e.Member != "" {
		s += ": member " + strconv.Quote(e.Member)
	}
	return s + ": " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *DecodeError) Unwrap() error { return e.Err }

var (
	// ErrMissing is the cause of a DecodeError for an absent required member.
	ErrMissing = errors.New("genimpl: required member is missing")
	// ErrNull is the cause of a DecodeError for a null the schema forbids.
	ErrNull = errors.New("genimpl: null is not allowed here")
)

// Kind classifies a JSON value by its first byte: '{', '[', '"', 'b' for
// booleans, '0' for numbers, 'n' for null, 0 for nothing.
func Kind(data []byte) byte {
	for _, c := range data {
		switch c {
		case ' ', '\t', '\n', '\r':
			continue
		case 't', 'f':
			return 'b'
		case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
			return '0'
		}
		return c
	}
	return 0
}

// KindName names a Kind for error messages.
func KindName(k byte) string {
	switch k {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 'b':
		return "a boolean"
	case '0':
		return "a number"
	case 'n':
		return "null"
	}
	return "not JSON"
}

// errSyntax stands for encoding/json's syntax errors: which byte is wrong is
// not worth a second scan here.
var errSyntax = errors.New("invalid JSON")

// DecodeObject splits a JSON object into its members (copied; the last of
// duplicate keys wins, as with encoding/json).
func DecodeObject(data []byte) (map[string]json.RawMessage, error) {
	if k := Kind(data); k != '{' {
		return nil, fmt.Errorf("want a JSON object, got %s", KindName(k))
	}
	if _, ok := Value(data); !ok {
		return nil, errSyntax
	}
	m := map[string]json.RawMessage{}
	o := NewObject(data, 0)
	for o.Next() {
		m[keyString(o.Key)] = CloneRaw(o.Value)
	}
	return m, nil
}

// keyString returns the decoded key; only an escaped or non-ASCII key takes
// encoding/json's slow path (which also replaces invalid UTF-8).
func keyString(raw []byte) string {
	for _, c := range raw {
		if c == '\\' || c >= utf8.RuneSelf {
			return slowString(raw)
		}
	}
	return interned.String(raw)
}

// interned shares map keys and short strings, which repeat from message to
// message (argument names, tool and client names): one seen before costs
// no allocation (see jsonscan.Interner for the bound).
var interned jsonscan.Interner

// maxInternedValue is the longest string value interned: names, not text.
const maxInternedValue = 32

// keyIs reports whether the raw key decodes to name, without allocating
// for the plain keys generated code declares.
func keyIs(raw []byte, name string) bool {
	if string(raw) == name {
		return true
	}
	for _, c := range raw {
		if c == '\\' || c >= utf8.RuneSelf {
			return slowString(raw) == name
		}
	}
	return false
}

func slowString(raw []byte) string {
	q := make([]byte, 0, len(raw)+2)
	q = append(append(append(q, '"'), raw...), '"')
	var s string
	_ = json.Unmarshal(q, &s)
	return s
}

// member is one member of the object a Decoder decodes.
type member struct {
	key, value []byte
	taken      bool
}

// Decoder decodes the members of one JSON object into a struct, member by
// member, keeping the first error; what no field takes is Rest. It scans the
// object once, into spans of the input: generated code declares it as a
// local variable so that objects of up to 16 members cost no allocation.
type Decoder struct {
	typ    string
	n      int        // members found
	inline [16]member // the first 16 members
	more   []member   // the others
	err    error
}

// at returns member i; a slice of the decoder itself would make every
// Decoder escape to the heap.
func (d *Decoder) at(i int) *member {
	if i < len(d.inline) {
		return &d.inline[i]
	}
	return &d.more[i-len(d.inline)]
}

// Init scans data, which must be one JSON object, for the type typ.
func (d *Decoder) Init(typ string, data []byte) error {
	d.typ = typ
	if k := Kind(data); k != '{' {
		return &DecodeError{Type: typ, Err: fmt.Errorf("want a JSON object, got %s", KindName(k))}
	}
	o := NewObject(data, 0)
	for o.Next() {
		m := member{key: o.Key, value: o.Value}
		if d.n < len(d.inline) {
			d.inline[d.n] = m
		} else {
			d.more = append(d.more, m)
		}
		d.n++
	}
	if o.Bad() || jsonscan.SkipSpace(data, o.End()) != len(data) {
		return &DecodeError{Type: typ, Err: errSyntax}
	}
	return nil
}

// Err returns the first error a member caused.
func (d *Decoder) Err() error { return d.err }

// Fail records err for member name unless an error is already recorded.
func (d *Decoder) Fail(name string, err error) {
	if d.err == nil {
		d.err = &DecodeError{Type: d.typ, Member: name, Err: err}
	}
}

// Take marks member name taken and returns its value (the last occurrence,
// as encoding/json keeps the last); ok is false when it is absent (an error
// when required) or a null that is not allowed.
func (d *Decoder) Take(name string, required, nullable bool) ([]byte, bool) {
	var v []byte
	found := false
	for i := 0; i < d.n; i++ {
		m := d.at(i)
		if keyIs(m.key, name) {
			m.taken, v, found = true, m.value, true
		}
	}
	if !found {
		if required {
			d.Fail(name, ErrMissing)
		}
		return nil, false
	}
	if !nullable && v[0] == 'n' {
		d.Fail(name, ErrNull)
		return nil, false
	}
	return v, true
}

// Rest returns the members no field took, copied, or nil.
func (d *Decoder) Rest() map[string]json.RawMessage {
	var m map[string]json.RawMessage
	for i := 0; i < d.n; i++ {
		x := d.at(i)
		if x.taken {
			continue
		}
		if m == nil {
			m = map[string]json.RawMessage{}
		}
		m[keyString(x.key)] = CloneRaw(x.value)
	}
	return m
}

// Field decodes member name into dst: the shapes generated types use most
// without reflection, anything else with encoding/json.
func (d *Decoder) Field(name string, required, nullable bool, dst any) {
	v, ok := d.Take(name, required, nullable)
	if !ok {
		return
	}
	if err := decodeInto(v, dst); err != nil {
		d.Fail(name, err)
	}
}

// decodeInto is json.Unmarshal(v, dst) for a v the scanner has validated.
func decodeInto(v []byte, dst any) error {
	null := v[0] == 'n'
	switch p := dst.(type) {
	case *string:
		if null {
			return nil
		}
		s, ok := stringValue(v)
		if !ok {
			break
		}
		*p = s
		return nil
	case **string:
		if null {
			*p = nil
			return nil
		}
		s, ok := stringValue(v)
		if !ok {
			break
		}
		*p = &s
		return nil
	case *bool:
		switch v[0] {
		case 't':
			*p = true
			return nil
		case 'f':
			*p = false
			return nil
		case 'n':
			return nil
		}
	case **bool:
		switch v[0] {
		case 't':
			b := true
			*p = &b
			return nil
		case 'f':
			b := false
			*p = &b
			return nil
		case 'n':
			*p = nil
			return nil
		}
	case *float64:
		if null {
			return nil
		}
		if Kind(v) == '0' {
			f, err := strconv.ParseFloat(string(v), 64)
			if err != nil {
				break
			}
			*p = f
			return nil
		}
	case **float64:
		if null {
			*p = nil
			return nil
		}
		if Kind(v) == '0' {
			f, err := strconv.ParseFloat(string(v), 64)
			if err != nil {
				break
			}
			*p = &f
			return nil
		}
	case *json.RawMessage:
		*p = CloneRaw(v)
		return nil
	case *map[string]json.RawMessage:
		if null {
			*p = nil
			return nil
		}
		if v[0] != '{' {
			break
		}
		m := map[string]json.RawMessage{}
		o := NewObject(v, 0)
		if o.Next() {
			// One copy of the object holds every value.
			buf := append([]byte(nil), v...)
			for {
				off := offset(v, o.Value)
				m[keyString(o.Key)] = json.RawMessage(buf[off : off+len(o.Value) : off+len(o.Value)])
				if !o.Next() {
					break
				}
			}
		}
		*p = m
		return nil
	case *[]string:
		if null {
			*p = nil
			return nil
		}
		if v[0] != '[' {
			break
		}
		out := []string{}
		a := NewArray(v, 0)
		for a.Next() {
			s, ok := stringValue(a.Value)
			if !ok {
				return json.Unmarshal(v, dst)
			}
			out = append(out, s)
		}
		*p = out
		return nil
	case *map[string]map[string]json.RawMessage:
		if null {
			*p = nil
			return nil
		}
		if v[0] != '{' {
			break
		}
		// One copy of the object holds every nested value.
		buf := append([]byte(nil), v...)
		m := map[string]map[string]json.RawMessage{}
		o := NewObject(buf, 0)
		for o.Next() {
			if o.Value[0] == 'n' {
				m[keyString(o.Key)] = nil
				continue
			}
			if o.Value[0] != '{' {
				return json.Unmarshal(v, dst)
			}
			inner := map[string]json.RawMessage{}
			io := NewObject(o.Value, 0)
			for io.Next() {
				inner[keyString(io.Key)] = json.RawMessage(io.Value[:len(io.Value):len(io.Value)])
			}
			m[keyString(o.Key)] = inner
		}
		*p = m
		return nil
	case json.Unmarshaler:
		if null {
			// encoding/json leaves a value untouched for null.
			break
		}
		return p.UnmarshalJSON(v)
	}
	return json.Unmarshal(v, dst)
}

// offset is the index of sub within v, which it is a slice of.
func offset(v, sub []byte) int {
	return cap(v) - cap(sub)
}

// stringValue decodes a JSON string without escapes or non-ASCII bytes
// directly; ok is false for anything else (encoding/json then decides).
func stringValue(v []byte) (string, bool) {
	if !plainString(v) {
		return "", false
	}
	if s, ok := knownString(v[1 : len(v)-1]); ok {
		return s, true
	}
	if len(v)-2 <= maxInternedValue {
		return interned.String(v[1 : len(v)-1]), true
	}
	return string(v[1 : len(v)-1]), true
}

// plainString reports whether the JSON string v decodes to its own bytes:
// no escapes, valid UTF-8.
func plainString(v []byte) bool {
	if len(v) < 2 || v[0] != '"' {
		return false
	}
	body := v[1 : len(v)-1]
	ascii := true
	for _, c := range body {
		if c == '\\' {
			return false
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	return ascii || utf8.Valid(body)
}

// Constant checks that member name, when present, has the value want (its
// JSON text), and reports whether it was present.
func (d *Decoder) Constant(name string, want string, required bool) bool {
	v, ok := d.Take(name, required, false)
	if !ok {
		return false
	}
	if string(v) != want && !SameJSON(v, want) {
		d.Fail(name, fmt.Errorf("want %s, got %s", want, Clip(v)))
	}
	return true
}

// SameJSON reports whether the JSON value got equals the constant want (a
// string or number literal) as encoding/json decodes them.
func SameJSON(got []byte, want string) bool {
	var a, b any
	if json.Unmarshal(got, &a) != nil || json.Unmarshal([]byte(want), &b) != nil {
		return false
	}
	return a == b
}

// FieldFunc decodes member name into dst with dec (for members whose type
// contains a union, which encoding/json cannot decode on its own, and for
// integers, which JSON Schema lets be written 1.0). An allowed null leaves
// dst zero.
func FieldFunc[T any](d *Decoder, name string, required, nullable bool, dst *T, dec func([]byte) (T, error)) {
	if v, ok := d.Take(name, required, nullable); ok {
		if v[0] == 'n' {
			return
		}
		x, err := dec(v)
		if err != nil {
			d.Fail(name, err)
			return
		}
		*dst = x
	}
}

// ParseInteger decodes a JSON integer. As in JSON Schema, a number with a
// zero fractional part (1.0, 1e3) is an integer too; 1.5 is not.
func ParseInteger(data []byte) (int64, error) {
	v, ok := Value(data)
	if !ok || Kind(v) != '0' {
		return 0, fmt.Errorf("want an integer, got %s", KindName(Kind(data)))
	}
	n := string(v)
	if i, err := strconv.ParseInt(n, 10, 64); err == nil {
		return i, nil
	}
	f, err := strconv.ParseFloat(n, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) >= 9.223372036854776e+18 {
		return 0, fmt.Errorf("%s is not an int64 integer", n)
	}
	return int64(f), nil
}

// PointerTo lifts a decoder to one that returns a pointer.
func PointerTo[T any](dec func([]byte) (T, error)) func([]byte) (*T, error) {
	return func(data []byte) (*T, error) {
		v, err := dec(data)
		if err != nil {
			return nil, err
		}
		return &v, nil
	}
}

// SliceOf lifts an element decoder to a JSON array decoder.
func SliceOf[T any](dec func([]byte) (T, error)) func([]byte) ([]T, error) {
	return func(data []byte) ([]T, error) { return DecodeSlice(data, dec) }
}

// DecodeSlice decodes a JSON array with an element decoder, scanning it once.
func DecodeSlice[T any](data []byte, dec func([]byte) (T, error)) ([]T, error) {
	if k := Kind(data); k != '[' {
		return nil, fmt.Errorf("want a JSON array, got %s", KindName(k))
	}
	out := []T{}
	a := NewArray(data, 0)
	for i := 0; a.Next(); i++ {
		v, err := dec(a.Value)
		if err != nil {
			if _, ok := Value(data); !ok {
				return nil, errSyntax
			}
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
		out = append(out, v)
	}
	if a.Bad() || jsonscan.SkipSpace(data, a.End()) != len(data) {
		return nil, errSyntax
	}
	return out, nil
}

// MapOf lifts a value decoder to a JSON object (map) decoder.
func MapOf[T any](dec func([]byte) (T, error)) func([]byte) (map[string]T, error) {
	return func(data []byte) (map[string]T, error) {
		raw, err := DecodeObject(data)
		if err != nil {
			return nil, err
		}
		out := make(map[string]T, len(raw))
		for k, r := range raw {
			v, err := dec(r)
			if err != nil {
				return nil, fmt.Errorf("member %q: %w", k, err)
			}
			out[k] = v
		}
		return out, nil
	}
}

// NonNilSlice makes a required array encode as [] rather than null.
func NonNilSlice[S ~[]E, E any](s S) S {
	if s == nil {
		return S{}
	}
	return s
}

// NonNilMap makes a required map encode as {} rather than null.
func NonNilMap[M ~map[string]V, V any](m M) M {
	if m == nil {
		return M{}
	}
	return m
}

// Clip shortens a JSON value for an error message.
func Clip(b []byte) string {
	if len(b) > 64 {
		return string(b[:64]) + "…"
	}
	return string(b)
}

// DecodePointer decodes data into a new T with (*T).UnmarshalJSON and
// returns it as the union U (never a typed nil).
func DecodePointer[U any, T any, P interface {
	*T
	UnmarshalJSON([]byte) error
}](data []byte) (U, error) {
	var zero U
	p := P(new(T))
	if err := p.UnmarshalJSON(data); err != nil {
		return zero, err
	}
	u, ok := any(p).(U)
	if !ok {
		return zero, fmt.Errorf("%T is not a %T", p, (*U)(nil))
	}
	return u, nil
}

// DecodeValue decodes data into a T with encoding/json and returns it as the
// union U.
func DecodeValue[U any, T any](data []byte) (U, error) {
	var zero U
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		return zero, err
	}
	u, ok := any(v).(U)
	if !ok {
		return zero, fmt.Errorf("%T is not a %T", v, (*U)(nil))
	}
	return u, nil
}

// CloneRaw copies data so a kept raw value does not alias the caller's buffer.
func CloneRaw(data []byte) json.RawMessage {
	return append(json.RawMessage{}, data...)
}

// Discriminator returns the string value of member name of the object
// data, scanning it once without building a map; present is false when the
// member is absent, isString false when it is not a string. err is set when
// data is not one valid JSON object.
func Discriminator(data []byte, name string) (tag []byte, present, isString bool, err error) {
	if k := Kind(data); k != '{' {
		return nil, false, false, fmt.Errorf("want a JSON object, got %s", KindName(k))
	}
	o := NewObject(data, 0)
	for o.Next() {
		if keyIs(o.Key, name) {
			present = true
			tag, isString = nil, false
			if o.Value[0] == '"' {
				if plainString(o.Value) {
					tag, isString = o.Value[1:len(o.Value)-1], true
				} else {
					var s string
					if json.Unmarshal(o.Value, &s) == nil {
						tag, isString = []byte(s), true
					}
				}
			}
		}
	}
	if o.Bad() || jsonscan.SkipSpace(data, o.End()) != len(data) {
		return nil, false, false, errSyntax
	}
	return tag, present, isString, nil
}

// FieldNew decodes member name into a new T with its UnmarshalJSON, without
// encoding/json's reflection (for an optional member of a struct type).
func FieldNew[T any, P interface {
	*T
	UnmarshalJSON([]byte) error
}](d *Decoder, name string, required bool, dst *P) {
	v, ok := d.Take(name, required, false)
	if !ok {
		return
	}
	p := P(new(T))
	if err := p.UnmarshalJSON(v); err != nil {
		d.Fail(name, err)
		return
	}
	*dst = p
}

// FieldStrings decodes member name, an array of strings or of a named
// string type, without reflection; it reads what encoding/json reads (a
// null item is the empty string).
func FieldStrings[L ~[]S, S ~string](d *Decoder, name string, required bool, dst *L) {
	v, ok := d.Take(name, required, false)
	if !ok {
		return
	}
	if v[0] != '[' {
		d.Fail(name, fmt.Errorf("want a JSON array, got %s", KindName(Kind(v))))
		return
	}
	out := L{}
	a := NewArray(v, 0)
	for a.Next() {
		if a.Value[0] == 'n' {
			out = append(out, "")
			continue
		}
		s, ok := stringValue(a.Value)
		if !ok {
			if a.Value[0] != '"' || json.Unmarshal(a.Value, &s) != nil {
				d.Fail(name, fmt.Errorf("item %d: want a string, got %s", len(out), KindName(Kind(a.Value))))
				return
			}
		}
		out = append(out, S(s))
	}
	*dst = out
}

// FieldString decodes member name, a string or a named string type (an
// enum), without reflection.
func FieldString[S ~string](d *Decoder, name string, required bool, dst *S) {
	v, ok := d.Take(name, required, false)
	if !ok {
		return
	}
	s, err := decodeString(v)
	if err != nil {
		d.Fail(name, err)
		return
	}
	*dst = S(s)
}

// decodeString decodes a JSON string (null as ""); only an escaped or
// non-UTF-8 one goes through encoding/json, whose variable escapes there
// and nowhere else.
func decodeString(v []byte) (string, error) {
	if s, ok := stringValue(v); ok {
		return s, nil
	}
	if v[0] == 'n' {
		return "", nil
	}
	if s, ok := jsonscan.Unquote(v); ok {
		return s, nil // JSON written as text, the usual escaped string
	}
	var s string
	err := json.Unmarshal(v, &s)
	return s, err
}

// FieldStringPtr decodes an optional (or nullable) string member into a
// pointer, without reflection; an allowed null leaves dst nil.
func FieldStringPtr[S ~string](d *Decoder, name string, required, nullable bool, dst **S) {
	v, ok := d.Take(name, required, nullable)
	if !ok {
		return
	}
	if v[0] == 'n' {
		*dst = nil
		return
	}
	s, err := decodeString(v)
	if err != nil {
		d.Fail(name, err)
		return
	}
	x := S(s)
	*dst = &x
}

// FieldStructs decodes member name, an array of a generated struct type,
// item by item with the type's own UnmarshalJSON, straight into the slice:
// no reflection, no intermediate []json.RawMessage.
func FieldStructs[L ~[]T, T any, P interface {
	*T
	UnmarshalJSON([]byte) error
}](d *Decoder, name string, required bool, dst *L) {
	v, ok := d.Take(name, required, false)
	if !ok {
		return
	}
	if v[0] != '[' {
		d.Fail(name, fmt.Errorf("want a JSON array, got %s", KindName(Kind(v))))
		return
	}
	out := L{}
	a := NewArray(v, 0)
	for a.Next() {
		var zero T
		out = append(out, zero)
		if err := P(&out[len(out)-1]).UnmarshalJSON(a.Value); err != nil {
			d.Fail(name, err)
			return
		}
	}
	*dst = out
}

// FieldSlice decodes member name, an array, with the element decoder dec
// (a union's Decode function): FieldFunc(d, …, SliceOf(dec)) without the
// closure SliceOf allocates.
func FieldSlice[L ~[]T, T any](d *Decoder, name string, required bool, dst *L, dec func([]byte) (T, error)) {
	v, ok := d.Take(name, required, false)
	if !ok {
		return
	}
	out, err := DecodeSlice(v, dec)
	if err != nil {
		d.Fail(name, err)
		return
	}
	*dst = L(out)
}

// IsInt64Literal reports whether data (surrounding space aside) is a JSON
// integer literal, without fraction or exponent, that fits an int64. A
// union with integer and number branches decodes such a literal to the
// integer branch and every other number (1.5, 1.0, 1e3, an integer beyond
// int64) to the number branch.
func IsInt64Literal(data []byte) bool {
	v, ok := Value(data)
	if !ok || Kind(v) != '0' || bytes.ContainsAny(v, ".eE") {
		return false
	}
	_, err := strconv.ParseInt(string(v), 10, 64)
	return err == nil
}
