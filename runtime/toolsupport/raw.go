package toolsupport

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
)

// The helpers here serve the fast binders the tools generator emits for
// plain schemas (objects of strings, booleans, integers and numbers without
// enum, const or numeric bounds): they bind JSON bytes straight into the
// typed struct, without the map[string]any, boxed strings and json.Number
// values the bind functions work on. A fast binder only ever says yes or
// "not sure": whenever its input is not plainly valid (a wrong kind, a
// missing required member, an escaped key, a violated length or pattern)
// it returns false and the generated code binds the same input with the
// bind function, whose result and errors are the reference. So the fast
// path changes what a call costs, never what it answers.

// RawObject iterates over the members of one JSON object held as bytes,
// for a generated fast binder (generated code cannot import the module's
// internal scanner).
type RawObject struct {
	o   jsonscan.Object
	end int  // length of the data without trailing whitespace
	bad bool // an escaped key: left to the bind function
}

// NewRawObject starts iterating over the object data holds (whitespace
// around it allowed). Anything else makes Next return false and OK false.
func NewRawObject(data []byte) RawObject {
	data = jsonscan.Trim(data)
	return RawObject{o: jsonscan.NewObject(data, 0), end: len(data)}
}

// Next moves to the next member; false at the end, on malformed JSON and
// on a key with escapes (whose decoded form only the bind function knows).
func (r *RawObject) Next() bool {
	if r.bad || !r.o.Next() {
		return false
	}
	for _, c := range r.o.Key {
		if c == '\\' {
			r.bad = true
			return false
		}
	}
	return true
}

// Key is the current member's key, between its quotes (plain: Next stops
// at an escaped one).
func (r *RawObject) Key() []byte { return r.o.Key }

// Value is the current member's value, validated, without surrounding
// whitespace.
func (r *RawObject) Value() []byte { return r.o.Value }

// OK reports whether Next stopped at the end of a valid object that was
// all of the data, with no escaped key.
func (r *RawObject) OK() bool {
	return !r.bad && !r.o.Bad() && r.o.End() == r.end && r.end > 0
}

// RawValid reports whether v is exactly one JSON value (whitespace around
// it allowed), as the bind functions' parser requires.
func RawValid(v []byte) bool {
	_, ok := jsonscan.Value(v)
	return ok
}

// RawString decodes the JSON string v as the bind functions see it; ok is
// false when v is not exactly one string.
func RawString(v []byte) (s string, ok bool) {
	v, ok = jsonscan.Value(v)
	if !ok || v[0] != '"' {
		return "", false
	}
	return stringValue(v), true
}

// RawBool decodes the JSON boolean v; ok is false for anything else.
func RawBool(v []byte) (b, ok bool) {
	v, ok = jsonscan.Value(v)
	if !ok {
		return false, false
	}
	switch string(v) {
	case "true":
		return true, true
	case "false":
		return false, true
	}
	return false, false
}

// RawInteger decodes v when it is a plain JSON integer (no fraction, no
// exponent) that fits in 64 bits; ok is false for anything else, which
// the bind function then judges (1.0 and 1e2 are integers there too).
func RawInteger(v []byte) (i int64, ok bool) {
	v, ok = jsonscan.Value(v)
	if !ok || (v[0] != '-' && (v[0] < '0' || v[0] > '9')) {
		return 0, false
	}
	i, err := strconv.ParseInt(string(v), 10, 64) // no allocation: the conversion does not escape
	return i, err == nil
}

// RawNumber decodes v when it is a JSON number without an exponent (the
// bind function judges exponents, which may be out of its range); the
// value is the nearest float64, as the bind function's is.
func RawNumber(v []byte) (f float64, ok bool) {
	v, ok = jsonscan.Value(v)
	if !ok || (v[0] != '-' && (v[0] < '0' || v[0] > '9')) {
		return 0, false
	}
	for _, c := range v {
		if c == 'e' || c == 'E' {
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(string(v), 64)
	if f == 0 {
		return 0, err == nil // -0 is 0 to the bind function (a big.Rat has no sign of zero)
	}
	return f, err == nil
}

// BindArgumentsFast is BindArguments with a generated fast binder tried
// first; bind decides whatever fast does not accept, so the result and
// the errors are BindArguments'.
func BindArgumentsFast[T any](args map[string]json.RawMessage, fast func(map[string]json.RawMessage) (T, bool), bind func(any, string) (T, error)) (*T, error) {
	if x, ok := fast(args); ok {
		return &x, nil
	}
	return BindArguments(args, bind)
}

// CheckResultFast is CheckResult with a generated fast binder checking the
// encoded result first; check decides whatever fast does not accept.
func CheckResultFast[T any](res *T, fast func([]byte) (T, bool), check func(any, string) (T, error)) (structured []byte, text string, err error) {
	if res == nil {
		return nil, "", errors.New("nil result")
	}
	b, err := json.Marshal(res)
	if err != nil {
		return nil, "", err
	}
	if _, ok := fast(b); !ok {
		v, err := Parse(b)
		if err != nil {
			return nil, "", err
		}
		if _, err := check(v, ""); err != nil {
			return nil, "", fmt.Errorf("result does not match the output schema: %w", err)
		}
	}
	if s, ok := any(res).(fmt.Stringer); ok {
		return b, s.String(), nil
	}
	return b, string(b), nil
}

// DecodeFast is Decode with a generated fast binder tried first; bind
// decides whatever fast does not accept.
func DecodeFast[T any](data []byte, fast func([]byte) (T, bool), bind func(any, string) (T, error)) (*T, error) {
	if x, ok := fast(data); ok {
		return &x, nil
	}
	return Decode(data, bind)
}

// StructuredResult reads the answer to a typed call from the fields of a
// bindings' CallToolResult whose structured content is raw JSON (2026-07-28
// on), without encoding the result again as TypedResult does: when isError
// is set, TypedResult reads res (the text of an error is in its content);
// otherwise the structured content is decoded and validated by decode.
func StructuredResult[T any](tool string, res any, isError *bool, structured json.RawMessage, decode func([]byte) (*T, error)) (*T, error) {
	if isError != nil && *isError {
		return TypedResult(tool, res, decode)
	}
	if len(structured) == 0 || string(jsonscan.Trim(structured)) == "null" {
		return nil, fmt.Errorf("tool %s: the result has no structured content", tool)
	}
	x, err := decode(structured)
	if err != nil {
		return nil, fmt.Errorf("tool %s: structured content: %w", tool, err)
	}
	return x, nil
}

// Args writes the members of a tools/call's arguments for a generated
// Caller whose argument type is plain (strings, booleans, integers and
// numbers), as ArgumentsOf would from encoding/json's encoding of the
// struct, without reflection and without the arguments escaping to the
// heap. The values share one buffer. Callers generated now write an Object
// instead; Args stays for the tools packages earlier mcpgen releases
// generated, which the version guard still accepts.
type Args struct {
	buf []byte
}

// value returns the bytes appended since start, capped so that appending
// to one member's value can never overwrite the next.
func (a *Args) value(start int) json.RawMessage {
	return a.buf[start:len(a.buf):len(a.buf)]
}

// grow makes room for a value, starting the buffer at a size that holds a
// few small members.
func (a *Args) grow() int {
	if a.buf == nil {
		a.buf = make([]byte, 0, 64)
	}
	return len(a.buf)
}

// String is the JSON of s as encoding/json writes it (HTML-safe).
func (a *Args) String(s string) json.RawMessage {
	start := a.grow()
	a.buf = jsonscan.AppendString(a.buf, s, true)
	return a.value(start)
}

// Bool is the JSON of b.
func (a *Args) Bool(b bool) json.RawMessage {
	start := a.grow()
	a.buf = strconv.AppendBool(a.buf, b)
	return a.value(start)
}

// Int is the JSON of i.
func (a *Args) Int(i int64) json.RawMessage {
	start := a.grow()
	a.buf = strconv.AppendInt(a.buf, i, 10)
	return a.value(start)
}

// Float is the JSON of f as encoding/json writes a float64, with
// encoding/json's error for NaN and the infinities.
func (a *Args) Float(f float64) (json.RawMessage, error) {
	if err := unsupportedFloat(f); err != nil {
		return nil, err
	}
	start := a.grow()
	a.buf = jsonscan.AppendFloat(a.buf, f)
	return a.value(start), nil
}

// Object writes the arguments object of a tools/call for a generated
// Caller whose argument type is plain, member by member as encoding/json
// writes the struct, for the bindings' CallToolJSON: no map of members
// stands between the typed arguments and the request. Keys are the quoted
// literals the generator writes (`"text":`). Objects are pooled, because
// the Conn copies the arguments into the request before the call returns:
// Free gives one back once the call is over.
type Object struct {
	buf []byte
}

var objects = sync.Pool{New: func() any { return &Object{buf: make([]byte, 0, 128)} }}

// NewObject returns an empty Object from the pool.
func NewObject() *Object {
	o := objects.Get().(*Object)
	o.buf = append(o.buf[:0], '{')
	return o
}

// key starts the member with the quoted key literal key.
func (o *Object) key(key string) {
	if len(o.buf) > 1 {
		o.buf = append(o.buf, ',')
	}
	o.buf = append(o.buf, key...)
}

// String writes the member key with the JSON of s as encoding/json writes
// it (HTML-safe).
func (o *Object) String(key, s string) {
	o.key(key)
	o.buf = jsonscan.AppendString(o.buf, s, true)
}

// Bool writes the member key with the JSON of b.
func (o *Object) Bool(key string, b bool) {
	o.key(key)
	o.buf = strconv.AppendBool(o.buf, b)
}

// Int writes the member key with the JSON of i.
func (o *Object) Int(key string, i int64) {
	o.key(key)
	o.buf = strconv.AppendInt(o.buf, i, 10)
}

// Float writes the member key with the JSON of f as encoding/json writes a
// float64, and fails with encoding/json's error for NaN and the
// infinities (writing nothing).
func (o *Object) Float(key string, f float64) error {
	if err := unsupportedFloat(f); err != nil {
		return err
	}
	o.key(key)
	o.buf = jsonscan.AppendFloat(o.buf, f)
	return nil
}

// unsupportedFloat is encoding/json's error for a float64 JSON cannot hold
// (NaN, the infinities); nil for any other.
func unsupportedFloat(f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return &json.UnsupportedValueError{Value: reflect.ValueOf(f), Str: strconv.FormatFloat(f, 'g', -1, 64)}
	}
	return nil
}

// JSON returns the object written so far, closed. It shares o's buffer, so
// it is valid until Free (or the next write).
func (o *Object) JSON() json.RawMessage {
	b := append(o.buf, '}')
	o.buf = b[:len(b)-1]
	return b
}

// Free gives o back to the pool; neither o nor what its JSON returned may
// be used after. An Object grown past a few kilobytes is left to the
// collector rather than kept.
func (o *Object) Free() {
	if cap(o.buf) <= 4<<10 {
		objects.Put(o)
	}
}

// ArgumentsMap splits the arguments object args (as Object writes it) into
// the members of CallToolRequestParams.Arguments, each value a copy, for a
// Caller whose ToolCaller is not the bindings' own (and so may keep the
// map after the call).
func ArgumentsMap(args json.RawMessage) (map[string]json.RawMessage, error) {
	return splitArguments(bytes.Clone(args))
}
