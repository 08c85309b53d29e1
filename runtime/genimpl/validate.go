package genimpl

import (
	"encoding/json"
	"fmt"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// This file is the schema validator's scanner the generated cancel.go runs
// on (DecodeCancelledNotification and friends): generated validators are
// methods of a type embedding Validator, and walk the input with Skip,
// Members and Items. It accepts exactly what encoding/json accepts (RFC 8259
// syntax, invalid UTF-8 inside strings tolerated, at most 10000 levels of
// nesting, nothing but whitespace after the value), so its verdicts agree
// with jsonschema/v5 fed by encoding/json.

// ValidationError says why a value does not match this revision's schema: the
// JSON pointer (RFC 6901) of the offending value, and what is wrong with it.
type ValidationError struct {
	// Pointer is the JSON pointer of the value at fault; "" is the whole input.
	Pointer string
	// Message says what is wrong, e.g. "must be a string or an integer".
	Message string
	// Err is the cause when the value is valid but cannot be decoded (an
	// integer request id too long to expand, jsonrpc2.ErrIDOutOfRange), so
	// the runtime can tell it from a schema violation; nil otherwise.
	Err error
}

// Unwrap returns the cause, if any.
func (e *ValidationError) Unwrap() error { return e.Err }

// Error formats the error as "pointer: message", e.g.
// "/params/requestId: must be a string or an integer".
func (e *ValidationError) Error() string {
	if e.Pointer == "" {
		return "(root): " + e.Message
	}
	return e.Pointer + ": " + e.Message
}

// In prefixes the error's pointer with one already escaped segment.
func (e *ValidationError) In(segment string) *ValidationError {
	e.Pointer = "/" + segment + e.Pointer
	return e
}

// InvalidJSON explains why data is not one JSON value.
func InvalidJSON(data []byte) *ValidationError {
	var v any
	msg := "not valid JSON"
	if err := json.Unmarshal(data, &v); err != nil {
		msg += ": " + err.Error()
	}
	return &ValidationError{Message: msg}
}

// Validator carries one validation: the input, and the integers written in a
// form a Go integer type (and jsonrpc2.RequestID) does not read, such as 1e2
// or 7.0, which Decode rewrites as integer literals before decoding.
type Validator struct {
	// Base is the whole input being validated.
	Base  []byte
	fix   [][2]int // start and end offsets in base
	depth int      // containers the validators have opened
	str   string   // base as a string, made for the first plain string decoded
}

// Text decodes the (valid) string literal v. A literal without escapes or
// non-ASCII bytes, which is nearly every one, is a substring of one string
// copy of the input, so a message's strings cost one allocation in all.
func (s *Validator) Text(v []byte) string {
	start := cap(s.Base) - cap(v)
	if len(v) < 2 || start < 0 || start+len(v) > len(s.Base) || &s.Base[start] != &v[0] {
		return StringValue(v)
	}
	for _, c := range v[1 : len(v)-1] {
		if c == '\\' || c >= 0x80 {
			return StringValue(v)
		}
	}
	if s.str == "" {
		s.str = string(s.Base)
	}
	return s.str[start+1 : start+len(v)-1]
}

// Integer validates an integer and records it for rewriting when it is not
// written as an integer literal.
func (s *Validator) Integer(v []byte) bool {
	if !IsInteger(v) {
		return false
	}
	for _, c := range v {
		if c == '.' || c == 'e' || c == 'E' {
			start := cap(s.Base) - cap(v)
			s.fix = append(s.fix, [2]int{start, start + len(v)})
			break
		}
	}
	return true
}

// Span returns v, with the integers recorded inside it rewritten as
// literals, for decoding with encoding/json.
func (s *Validator) Span(v []byte) []byte {
	start := cap(s.Base) - cap(v)
	end := start + len(v)
	var fix [][2]int
	for _, f := range s.fix {
		if f[0] >= start && f[1] <= end {
			fix = append(fix, [2]int{f[0] - start, f[1] - start})
		}
	}
	if len(fix) == 0 {
		return v
	}
	sub := Validator{Base: v[:len(v):len(v)], fix: fix}
	out, e := sub.rewrite()
	if e != nil {
		return v // encoding/json then reports the same problem
	}
	return out
}

// RequestID decodes a validated string or integer as a jsonrpc2.RequestID,
// writing integers such as 1e2 as the literal they denote.
func (s *Validator) RequestID(v []byte) (jsonrpc2.RequestID, error) {
	if v[0] != '"' {
		for _, c := range v {
			if c == '.' || c == 'e' || c == 'E' {
				lit, ok := svIntegerLiteral(v, maxIDZeros)
				if !ok {
					// Valid to the schema, but no request can carry an id this
					// long written out, and writing it out would let a 20-byte
					// notification cost a megabyte: the runtime ignores it as
					// naming no request in flight.
					return jsonrpc2.RequestID{}, fmt.Errorf("%w: %s is more than %d digits written out", jsonrpc2.ErrIDOutOfRange, v[:min(len(v), 32)], maxIDZeros)
				}
				return jsonrpc2.IntegerID(string(lit))
			}
		}
		return jsonrpc2.ParseRequestID(v)
	}
	// Lossless: a string id that cannot be decoded exactly (a lone
	// surrogate, invalid UTF-8) keeps its literal, as the runtime keeps it.
	return jsonrpc2.ParseRequestID(v)
}

// svMaxZeros bounds the zeros an exponent may add when an integer such as
// 1e400 is rewritten as a literal (jsonschema/v5 itself refuses exponents
// beyond 10^6).
const svMaxZeros = 1 << 20

// maxIDZeros bounds the zeros an exponent may add to an integer request id
// (1e4096 is the largest power of ten a cancellation can name).
const maxIDZeros = 4096

// rewrite returns base with every recorded integer written as a literal.
func (s *Validator) rewrite() ([]byte, *ValidationError) {
	out := make([]byte, 0, len(s.Base)+16)
	last := 0
	for _, f := range s.fix {
		lit, ok := svIntegerLiteral(s.Base[f[0]:f[1]], svMaxZeros)
		if !ok {
			return nil, &ValidationError{Message: "integer " + string(s.Base[f[0]:min(f[1], f[0]+32)]) + " is too large to represent"}
		}
		out = append(out, s.Base[last:f[0]]...)
		out = append(out, lit...)
		last = f[1]
	}
	return append(out, s.Base[last:]...), nil
}

// svIntegerLiteral writes the integral number v (1e2, -7.0, 0.5e1) as an
// integer literal (100, -7, 5).
func svIntegerLiteral(v []byte, maxZeros int) ([]byte, bool) {
	neg := v[0] == '-'
	if neg {
		v = v[1:]
	}
	var digits []byte
	j := 0
	for j < len(v) && v[j] >= '0' && v[j] <= '9' {
		j++
	}
	digits = append(digits, v[:j]...)
	frac := 0
	if j < len(v) && v[j] == '.' {
		j++
		s := j
		for j < len(v) && v[j] >= '0' && v[j] <= '9' {
			j++
		}
		digits = append(digits, v[s:j]...)
		frac = j - s
	}
	for len(digits) > 0 && digits[0] == '0' {
		digits = digits[1:]
	}
	if len(digits) == 0 {
		return []byte("0"), true // 0e100000000 is 0 too, whatever the exponent
	}
	exp := 0
	if j < len(v) {
		j++ // 'e' or 'E'
		eneg := v[j] == '-'
		if v[j] == '+' || v[j] == '-' {
			j++
		}
		for ; j < len(v); j++ {
			if exp > maxZeros*2 {
				if eneg {
					break // only a zero has such an exponent here
				}
				return nil, false
			}
			exp = exp*10 + int(v[j]-'0')
		}
		if eneg {
			exp = -exp
		}
	}
	scale := exp - frac // the value is digits × 10^scale
	if scale < 0 {
		digits = digits[:len(digits)+scale] // the dropped digits are zeros
	} else {
		if scale > maxZeros {
			return nil, false
		}
		for i := 0; i < scale; i++ {
			digits = append(digits, '0')
		}
	}
	if neg {
		digits = append([]byte{'-'}, digits...)
	}
	return digits, true
}

// SkipSpace returns the index of the first non-space byte at or after i.
func SkipSpace(data []byte, i int) int { return jsonscan.SkipSpace(data, i) }

// Trim returns data without surrounding whitespace.
func Trim(data []byte) []byte { return jsonscan.Trim(data) }

// Skip scans the value at i, checking its syntax as encoding/json does, and
// returns the index after it, or -1 when it is not valid JSON (or nests
// deeper than encoding/json allows, counting the containers the validators
// around it have opened).
func (s *Validator) Skip(i int) int { return jsonscan.SkipNested(s.Base, i, s.depth) }

// MemberIter walks the members of the object at i for a validator, checking
// the syntax between them; the validator sets end after each value.
type MemberIter struct {
	s     *Validator
	I     int
	first bool
	Key   []byte // the decoded member name
	Value int    // where the member's value starts
	End   int    // where it ends, set by the caller; -1 for invalid JSON
	Bad   bool   // the object is not valid JSON
}

// Members starts walking the object whose '{' is at i.
func (s *Validator) Members(i int) MemberIter {
	s.depth++
	return MemberIter{s: s, I: i + 1, first: true}
}

// Next moves to the next member; false at the end or on a syntax error
// (Bad).
func (m *MemberIter) Next() bool {
	d := m.s.Base
	i := m.I
	if m.first {
		m.first = false
		if s := m.s; s.depth > jsonscan.MaxDepth {
			m.Bad = true
			return false
		}
		i = SkipSpace(d, i)
		if i < len(d) && d[i] == '}' {
			m.I = i + 1
			m.s.depth--
			return false
		}
	} else {
		if m.End < 0 {
			m.Bad = true
			return false
		}
		i = SkipSpace(d, m.End)
		if i < len(d) && d[i] == '}' {
			m.I = i + 1
			m.s.depth--
			return false
		}
		if i >= len(d) || d[i] != ',' {
			m.Bad = true
			return false
		}
		i = SkipSpace(d, i+1)
	}
	if i >= len(d) || d[i] != '"' {
		m.Bad = true
		return false
	}
	kEnd := jsonscan.SkipString(d, i)
	if kEnd < 0 {
		m.Bad = true
		return false
	}
	m.Key = d[i+1 : kEnd-1]
	for _, c := range m.Key {
		if c == '\\' || c >= 0x80 {
			m.Key = []byte(StringValue(d[i:kEnd]))
			break
		}
	}
	i = SkipSpace(d, kEnd)
	if i >= len(d) || d[i] != ':' {
		m.Bad = true
		return false
	}
	m.Value = SkipSpace(d, i+1)
	if m.Value >= len(d) {
		m.Bad = true
		return false
	}
	m.End = -1
	return true
}

// ItemIter walks the elements of the array at i for a validator.
type ItemIter struct {
	s     *Validator
	I     int
	first bool
	Value int
	End   int
	Bad   bool
}

// Items starts walking the array whose '[' is at i.
func (s *Validator) Items(i int) ItemIter {
	s.depth++
	return ItemIter{s: s, I: i + 1, first: true}
}

// Next moves to the next element; false at the end or on a syntax error
// (Bad).
func (a *ItemIter) Next() bool {
	d := a.s.Base
	i := a.I
	if a.first {
		a.first = false
		if a.s.depth > jsonscan.MaxDepth {
			a.Bad = true
			return false
		}
		i = SkipSpace(d, i)
		if i < len(d) && d[i] == ']' {
			a.I = i + 1
			a.s.depth--
			return false
		}
	} else {
		if a.End < 0 {
			a.Bad = true
			return false
		}
		i = SkipSpace(d, a.End)
		if i < len(d) && d[i] == ']' {
			a.I = i + 1
			a.s.depth--
			return false
		}
		if i >= len(d) || d[i] != ',' {
			a.Bad = true
			return false
		}
		i = SkipSpace(d, i+1)
	}
	if i >= len(d) {
		a.Bad = true
		return false
	}
	a.Value = i
	a.End = -1
	return true
}

// The functions below walk input the validators accepted.

// StringValue decodes the (valid) string literal v. Plain ASCII without
// escapes is the fast path; anything else goes through encoding/json, so
// escapes and invalid UTF-8 are read exactly as encoding/json reads them.
func StringValue(v []byte) string {
	body := v[1 : len(v)-1]
	for _, c := range body {
		if c == '\\' || c >= 0x80 {
			if s, ok := jsonscan.Unquote(v); ok {
				return s
			}
			var s string
			_ = json.Unmarshal(v, &s)
			return s
		}
	}
	if s, ok := knownString(body); ok {
		return s
	}
	return string(body)
}

// knownString returns a shared copy of the protocol's discriminator values
// that every round trip decodes (a content block's "type", a result's
// "resultType"), instead of allocating one per message; ok is false for
// any other body. body holds no escapes (the callers checked), so equal
// bytes decode to the same string.
func knownString(body []byte) (string, bool) {
	switch string(body) { // compiled to comparisons: no allocation
	case "text":
		return "text", true
	case "complete":
		return "complete", true
	case "input_required":
		return "input_required", true
	case "image":
		return "image", true
	case "audio":
		return "audio", true
	case "resource":
		return "resource", true
	case "resource_link":
		return "resource_link", true
	case "user":
		return "user", true
	case "assistant":
		return "assistant", true
	}
	return "", false
}

// StringIs reports whether the (valid) string literal v decodes to s.
func StringIs(v []byte, s string) bool {
	body := v[1 : len(v)-1]
	for _, c := range body {
		if c == '\\' || c >= 0x80 {
			return StringValue(v) == s
		}
	}
	return string(body) == s
}

// RawObject iterates over the members of a (valid) object.
type RawObject struct {
	Data  []byte
	I     int
	Key   []byte // the decoded member name
	Value []byte // the member's raw value, without surrounding whitespace
}

// Next moves to the next member; false at the end.
func (o *RawObject) Next() bool {
	i := SkipSpace(o.Data, o.I)
	if o.Data[i] == ',' || o.Data[i] == '{' {
		i = SkipSpace(o.Data, i+1)
	}
	if o.Data[i] == '}' {
		return false
	}
	end := jsonscan.SkipTrusted(o.Data, i)
	o.Key = o.Data[i+1 : end-1]
	for _, c := range o.Key {
		if c == '\\' || c >= 0x80 {
			o.Key = []byte(StringValue(o.Data[i:end]))
			break
		}
	}
	i = SkipSpace(o.Data, end)
	i = SkipSpace(o.Data, i+1) // past ':'
	end = jsonscan.SkipTrusted(o.Data, i)
	o.Value = o.Data[i:end]
	o.I = end
	return true
}

// RawArray iterates over the elements of a (valid) array.
type RawArray struct {
	Data  []byte
	I     int
	Value []byte
}

// Next moves to the next element; false at the end.
func (a *RawArray) Next() bool {
	i := SkipSpace(a.Data, a.I)
	if a.Data[i] == ',' || a.Data[i] == '[' {
		i = SkipSpace(a.Data, i+1)
	}
	if a.Data[i] == ']' {
		return false
	}
	end := jsonscan.SkipTrusted(a.Data, i)
	a.Value = a.Data[i:end]
	a.I = end
	return true
}

// IsNumber reports whether the (valid) value v is a number.
func IsNumber(v []byte) bool { return v[0] == '-' || (v[0] >= '0' && v[0] <= '9') }

// IsInteger reports whether the (valid) value v is a number with an
// integral value. As in JSON Schema (and jsonschema/v5), 1.0, 1e2 and
// 1.5e1 are integers; 1.5 and 1e-1 are not. Exponents of any size are
// handled without arithmetic on the value.
func IsInteger(v []byte) bool {
	if !IsNumber(v) {
		return false
	}
	j := 0
	if v[j] == '-' {
		j++
	}
	s := j
	for j < len(v) && v[j] >= '0' && v[j] <= '9' {
		j++
	}
	intPart := v[s:j]
	var frac []byte
	if j < len(v) && v[j] == '.' {
		j++
		s = j
		for j < len(v) && v[j] >= '0' && v[j] <= '9' {
			j++
		}
		frac = v[s:j]
	}
	expNeg := false
	var exp []byte
	if j < len(v) && (v[j] == 'e' || v[j] == 'E') {
		j++
		if v[j] == '+' || v[j] == '-' {
			expNeg = v[j] == '-'
			j++
		}
		exp = v[j:]
	}
	// The value is digits(intPart frac) × 10^(exp - len(frac)). Trailing
	// zeros of the digits raise the power; it is an integer when the power
	// ends up >= 0, or when every digit is zero.
	tz := 0
	for k := len(frac) - 1; k >= 0 && frac[k] == '0'; k-- {
		tz++
	}
	if tz == len(frac) {
		for k := len(intPart) - 1; k >= 0 && intPart[k] == '0'; k-- {
			tz++
		}
	}
	if tz == len(intPart)+len(frac) {
		return true // zero
	}
	need := int64(len(frac) - tz) // the integer needs exp >= need
	for len(exp) > 1 && exp[0] == '0' {
		exp = exp[1:]
	}
	if len(exp) > 18 {
		return !expNeg
	}
	var e int64
	for _, c := range exp {
		e = e*10 + int64(c-'0')
	}
	if expNeg {
		e = -e
	}
	return e >= need
}
