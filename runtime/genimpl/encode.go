package genimpl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"sync"
	"unsafe"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
)

// nilData reports whether v is nil or holds a nil pointer-shaped value (a
// pointer, map, chan or func): the data word of the interface is nil. This
// is the one check encoding/json makes with reflection that the encoder
// needs, done without it.
func nilData(v any) bool {
	return (*[2]unsafe.Pointer)(unsafe.Pointer(&v))[1] == nil
}

// bufPool holds the scratch buffers Marshal encodes into, so that an
// encoding allocates its result once, at its final size.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// Marshal returns x's JSON (x.AppendJSON into a pooled buffer, then one
// copy): what the MarshalJSON of a generated struct returns. A type
// parameter rather than an interface, so the struct is not copied to the
// heap to be called.
func Marshal[T Appender](x T) ([]byte, error) {
	bp := bufPool.Get().(*[]byte)
	b, err := x.AppendJSON((*bp)[:0])
	var out []byte
	if err == nil {
		out = append(make([]byte, 0, len(b)), b...)
	}
	if cap(b) <= 64<<10 {
		*bp = b[:0]
		bufPool.Put(bp)
	}
	return out, err
}

// Encoder writes one JSON object member by member. Keys are the literals the
// generator precomputes, quoted and followed by the colon (`"text":`), so
// writing one is a copy. Undeclared members (Extra) come last, sorted, and
// never repeat a member already written. The output is byte for byte what
// encoding/json would write for the same members.
type Encoder struct {
	typ   string
	buf   []byte
	start int // where the object starts in buf
	n     int // members written
	err   error
}

// Init starts an object of the type typ (named in errors), appending to buf.
func (e *Encoder) Init(typ string, buf []byte) {
	e.typ, e.buf, e.start, e.n = typ, buf, len(buf), 0
}

func (e *Encoder) key(key string) {
	if e.n == 0 {
		e.buf = append(e.buf, '{')
	} else {
		e.buf = append(e.buf, ',')
	}
	e.buf = append(e.buf, key...)
	e.n++
}

// Raw writes the member with the key literal key (`"name":`) and the JSON
// text value as it is.
func (e *Encoder) Raw(key string, value string) {
	e.key(key)
	e.buf = append(e.buf, value...)
}

// Value writes the member with the key literal key and the value v, encoded
// as encoding/json would encode it.
func (e *Encoder) Value(key string, v any) {
	if e.err != nil {
		return
	}
	e.key(key)
	b, err := AppendValue(e.buf, v)
	if err != nil {
		e.err = fmt.Errorf("encoding %s: member %s %w", e.typ, key, err)
		return
	}
	e.buf = b
}

// Missing records that the required member with key literal key is unset.
func (e *Encoder) Missing(key string) {
	if e.err == nil {
		e.err = fmt.Errorf("encoding %s: required member %s is not set", e.typ, key[:len(key)-1])
	}
}

// Extra writes the undeclared members m, sorted, skipping keys already
// written.
func (e *Encoder) Extra(m map[string]json.RawMessage) {
	if len(m) == 0 || e.err != nil {
		return
	}
	// The members written so far are read back from the output: Extra is
	// rare, and remembering every key would cost each encoding.
	var written []string
	if e.n > 0 {
		o := NewObject(append(e.buf[e.start:len(e.buf):len(e.buf)], '}'), 0)
		for o.Next() {
			written = append(written, keyString(o.Key))
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		if !slices.Contains(written, k) {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if e.n == 0 {
			e.buf = append(e.buf, '{')
		} else {
			e.buf = append(e.buf, ',')
		}
		e.n++
		e.buf = AppendString(e.buf, k)
		e.buf = append(e.buf, ':')
		if m[k] == nil {
			e.buf = append(e.buf, "null"...)
			continue
		}
		b, err := appendCompact(e.buf, m[k])
		if err != nil {
			e.err = fmt.Errorf("encoding %s: member %q: %w", e.typ, k, err)
			return
		}
		e.buf = b
	}
}

// Bytes ends the object and returns it.
func (e *Encoder) Bytes() ([]byte, error) {
	if e.err != nil {
		return nil, e.err
	}
	if e.n == 0 {
		return append(e.buf, '{', '}'), nil
	}
	return append(e.buf, '}'), nil
}

// Appender is implemented by generated types that can append their JSON to
// a buffer; Encoder uses it to write nested values without a copy.
type Appender interface {
	AppendJSON(buf []byte) ([]byte, error)
}

// AppendValue appends the JSON encoding of v to buf, as json.Marshal would
// write it: the shapes generated types use without reflection, the rest
// through encoding/json.
func AppendValue(buf []byte, v any) ([]byte, error) {
	if nilData(v) {
		// nil, or a nil pointer or map in an interface (a union holding a
		// nil *TextContent): encoding/json writes null, and calling a
		// value-receiver AppendJSON through it would panic.
		return append(buf, "null"...), nil
	}
	switch x := v.(type) {
	case string:
		return AppendString(buf, x), nil
	case *string:
		if x == nil {
			return append(buf, "null"...), nil
		}
		return AppendString(buf, *x), nil
	case bool:
		return strconv.AppendBool(buf, x), nil
	case *bool:
		if x == nil {
			return append(buf, "null"...), nil
		}
		return strconv.AppendBool(buf, *x), nil
	case int64:
		return strconv.AppendInt(buf, x, 10), nil
	case *int64:
		if x == nil {
			return append(buf, "null"...), nil
		}
		return strconv.AppendInt(buf, *x, 10), nil
	case float64:
		return AppendFloat(buf, x)
	case *float64:
		if x == nil {
			return append(buf, "null"...), nil
		}
		return AppendFloat(buf, *x)
	case json.RawMessage:
		if x == nil {
			return append(buf, "null"...), nil
		}
		return appendCompact(buf, x)
	case map[string]json.RawMessage:
		if x == nil {
			return append(buf, "null"...), nil
		}
		return appendRawMap(buf, x)
	case map[string]map[string]json.RawMessage:
		if x == nil {
			return append(buf, "null"...), nil
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		buf = append(buf, '{')
		for i, k := range keys {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = append(AppendString(buf, k), ':')
			var err error
			if buf, err = AppendValue(buf, x[k]); err != nil {
				return buf, err
			}
		}
		return append(buf, '}'), nil
	case Appender:
		return x.AppendJSON(buf)
	case json.Marshaler:
		b, err := x.MarshalJSON()
		if err != nil {
			return buf, err
		}
		return appendCompact(buf, b)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return buf, err
	}
	return append(buf, b...), nil
}

// appendRawMap writes a map of raw members sorted by key, as encoding/json
// does.
func appendRawMap(buf []byte, m map[string]json.RawMessage) ([]byte, error) {
	if len(m) == 0 {
		return append(buf, '{', '}'), nil
	}
	var inline [8]string
	keys := inline[:0]
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	buf = append(buf, '{')
	for i, k := range keys {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = AppendString(buf, k)
		buf = append(buf, ':')
		v := m[k]
		if v == nil {
			buf = append(buf, "null"...)
			continue
		}
		var err error
		if buf, err = appendCompact(buf, v); err != nil {
			return buf, err
		}
	}
	return append(buf, '}'), nil
}

// appendCompact appends the JSON value v without insignificant whitespace
// and with <, >, & and U+2028/U+2029 escaped in strings, as json.Marshal
// writes a Marshaler's or a RawMessage's output.
func appendCompact(buf, v []byte) ([]byte, error) {
	if _, ok := Value(v); !ok {
		return buf, fmt.Errorf("invalid JSON value %s", Clip(v))
	}
	start := 0
	inString := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		if inString {
			switch {
			case c == '\\':
				i++
			case c == '"':
				inString = false
			case c == '<' || c == '>' || c == '&':
				buf = append(buf, v[start:i]...)
				buf = append(buf, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
				start = i + 1
			case c == 0xE2 && i+2 < len(v) && v[i+1] == 0x80 && v[i+2]&^1 == 0xA8:
				buf = append(buf, v[start:i]...)
				buf = append(buf, '\\', 'u', '2', '0', '2', hex[v[i+2]&0xF])
				start = i + 3
				i += 2
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case ' ', '\t', '\n', '\r':
			buf = append(buf, v[start:i]...)
			start = i + 1
		}
	}
	return append(buf, v[start:]...), nil
}

const hex = "0123456789abcdef"

// AppendString appends s as a JSON string exactly as encoding/json writes it
// (HTML-safe, invalid UTF-8 replaced by U+FFFD, U+2028 and U+2029 escaped).
func AppendString(buf []byte, s string) []byte {
	return jsonscan.AppendString(buf, s, true)
}

// AppendFloat appends f as encoding/json writes a float64.
func AppendFloat(buf []byte, f float64) ([]byte, error) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return buf, fmt.Errorf("unsupported value: %s", strconv.FormatFloat(f, 'g', -1, 64))
	}
	return jsonscan.AppendFloat(buf, f), nil
}

// Append writes the member with the key literal key and the value appendJSON
// appends (a nested generated struct's AppendJSON), into the same buffer.
func (e *Encoder) Append(key string, appendJSON func([]byte) ([]byte, error)) {
	if e.err != nil {
		return
	}
	e.key(key)
	b, err := appendJSON(e.buf)
	if err != nil {
		e.err = fmt.Errorf("encoding %s: member %s %w", e.typ, key, err)
		return
	}
	e.buf = b
}

// The typed member writers below exist so that generated code never boxes a
// scalar or a slice into an interface (an allocation each) on the hot path.

// String writes a string member.
func (e *Encoder) String(key string, s string) {
	e.key(key)
	e.buf = AppendString(e.buf, s)
}

// StringPtr writes a *string member (nil as null).
func (e *Encoder) StringPtr(key string, s *string) {
	e.key(key)
	if s == nil {
		e.buf = append(e.buf, "null"...)
		return
	}
	e.buf = AppendString(e.buf, *s)
}

// Bool writes a bool member.
func (e *Encoder) Bool(key string, b bool) {
	e.key(key)
	e.buf = strconv.AppendBool(e.buf, b)
}

// BoolPtr writes a *bool member (nil as null).
func (e *Encoder) BoolPtr(key string, b *bool) {
	e.key(key)
	if b == nil {
		e.buf = append(e.buf, "null"...)
		return
	}
	e.buf = strconv.AppendBool(e.buf, *b)
}

// Int writes an int64 member.
func (e *Encoder) Int(key string, n int64) {
	e.key(key)
	e.buf = strconv.AppendInt(e.buf, n, 10)
}

// IntPtr writes an *int64 member (nil as null).
func (e *Encoder) IntPtr(key string, n *int64) {
	e.key(key)
	if n == nil {
		e.buf = append(e.buf, "null"...)
		return
	}
	e.buf = strconv.AppendInt(e.buf, *n, 10)
}

// Float writes a float64 member.
func (e *Encoder) Float(key string, f float64) {
	if e.err != nil {
		return
	}
	e.key(key)
	b, err := AppendFloat(e.buf, f)
	if err != nil {
		e.err = fmt.Errorf("encoding %s: member %s %w", e.typ, key, err)
		return
	}
	e.buf = b
}

// FloatPtr writes a *float64 member (nil as null).
func (e *Encoder) FloatPtr(key string, f *float64) {
	if f == nil {
		e.key(key)
		e.buf = append(e.buf, "null"...)
		return
	}
	e.Float(key, *f)
}

// RawMap writes a map of raw members (nil as null), sorted by key.
func (e *Encoder) RawMap(key string, m map[string]json.RawMessage) {
	if e.err != nil {
		return
	}
	e.key(key)
	if m == nil {
		e.buf = append(e.buf, "null"...)
		return
	}
	b, err := appendRawMap(e.buf, m)
	if err != nil {
		e.err = fmt.Errorf("encoding %s: member %s %w", e.typ, key, err)
		return
	}
	e.buf = b
}

// RawValue writes a raw member (nil as null), compacted.
func (e *Encoder) RawValue(key string, v json.RawMessage) {
	if e.err != nil {
		return
	}
	e.key(key)
	if v == nil {
		e.buf = append(e.buf, "null"...)
		return
	}
	b, err := appendCompact(e.buf, v)
	if err != nil {
		e.err = fmt.Errorf("encoding %s: member %s %w", e.typ, key, err)
		return
	}
	e.buf = b
}

// AppendSlice writes a slice member (nil as null) element by element:
// generated structs and union values append in place, scalars without
// reflection.
func AppendSlice[E any](e *Encoder, key string, s []E) {
	if e.err != nil {
		return
	}
	e.key(key)
	if s == nil {
		e.buf = append(e.buf, "null"...)
		return
	}
	buf := append(e.buf, '[')
	var err error
	for i := range s {
		if i > 0 {
			buf = append(buf, ',')
		}
		// A pointer to the element boxes without a copy; an interface
		// element (a union) is its own dynamic value.
		switch p := any(&s[i]).(type) {
		case Appender:
			// &s[i] is never nil; a union element is handled below.
			buf, err = p.AppendJSON(buf)
		case *string:
			buf = AppendString(buf, *p)
		case *json.RawMessage:
			buf, err = AppendValue(buf, *p)
		case *map[string]json.RawMessage:
			buf, err = AppendValue(buf, *p)
		default:
			buf, err = AppendValue(buf, any(s[i]))
		}
		if err != nil {
			e.err = fmt.Errorf("encoding %s: member %s item %d: %w", e.typ, key, i, err)
			return
		}
	}
	e.buf = append(buf, ']')
}

// AppendStrings writes a slice of strings or of a named string type (an
// enum) without reflection (nil as null).
func AppendStrings[L ~[]S, S ~string](e *Encoder, key string, s L) {
	e.key(key)
	if s == nil {
		e.buf = append(e.buf, "null"...)
		return
	}
	e.buf = append(e.buf, '[')
	for i, x := range s {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.buf = AppendString(e.buf, string(x))
	}
	e.buf = append(e.buf, ']')
}

// AppendNumber appends f as AppendFloat does, but never as an integer
// literal: an integral value gets ".0" (95 → 95.0). A union whose integer
// and number branches are told apart by the literal (IsInt64Literal) then
// decodes what the number branch wrote back to the number branch.
func AppendNumber(buf []byte, f float64) ([]byte, error) {
	start := len(buf)
	buf, err := AppendFloat(buf, f)
	if err != nil {
		return buf, err
	}
	if !bytes.ContainsAny(buf[start:], ".eE") {
		buf = append(buf, ".0"...)
	}
	return buf, nil
}
