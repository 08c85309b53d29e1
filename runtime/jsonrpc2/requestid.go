package jsonrpc2

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
)

// RequestID is a JSON-RPC request id exactly as it appeared on the wire: a
// string or an integer. It is the Go type the generated bindings use for the
// schema's RequestId (and, through the ProgressToken alias, for progress
// tokens), because both are ["string","integer"] in every MCP schema.
//
// Why not int64 or any: the spec makes "7" and 7 different ids, and peers may
// send integers beyond 2^53 that float64 (and so map[string]any) silently
// rounds. A RequestID stores the string value, or the integer's exact decimal
// text, together with its kind, so it compares correctly with == and can be
// used as a map key. Integers outside the int64 range are kept as text too.
// An integer in the int64 range written as strconv.FormatInt writes it (every
// integer literal but "-0") is kept as its value instead, so the ids a Conn
// numbers its calls with cost no text on either side; each integer has
// exactly one form, so == still compares ids.
//
// JSON-RPC and the MCP schema say the id is a string or an integer, so a
// RequestID is only ever decoded from a JSON string or an integer literal
// (-?(0|[1-9][0-9]*)). 1.5, 1.0, 1e3, true, null, objects and arrays are
// refused with an error; "-0" is kept textually and so differs from 0.
//
// The zero RequestID means "no id": it encodes as null, which is what an error
// response carries when the request's id could not be read.
type RequestID struct {
	text string
	n    int64 // the value of an idNum
	kind idKind
}

// ProgressToken is the schema's ProgressToken. It is an alias rather than a
// separate type because it has exactly the same wire shape and rules as a
// request id, and the runtime uses a call's request id as its progress token.
type ProgressToken = RequestID

type idKind uint8

const (
	idNone idKind = iota
	idString
	idInt
	// idRawString is a string id whose decoding would lose information
	// (invalid UTF-8, an unpaired surrogate escape): text is the JSON
	// literal exactly as sent, quotes included, so "\ud800" and "\udbff"
	// stay two ids and the response echoes the bytes the peer wrote.
	idRawString
	// idNum is an integer in the int64 range in its canonical form: n
	// holds it and text is empty.
	idNum
)

// numID is the id of the integer literal s, as its value when s is
// canonical and fits in int64 (see RequestID), else as text; s must be an
// integer literal.
func numID(s string) RequestID {
	if s != "-0" {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return RequestID{n: n, kind: idNum}
		}
	}
	return RequestID{text: s, kind: idInt}
}

// textLen is the length of the id's text in JSON (without a string's
// quotes), for sizing buffers exactly.
func (id RequestID) textLen() int {
	if id.kind != idNum {
		return len(id.text)
	}
	n, l := id.n, 1
	if n < 0 {
		l++ // the minus; -n may overflow, so count on the negative side
	} else {
		n = -n
	}
	for n <= -10 {
		n /= 10
		l++
	}
	return l
}

// StringID returns the id that is the JSON string s.
func StringID(s string) RequestID { return RequestID{text: s, kind: idString} }

// Int64ID returns the id that is the JSON integer n.
func Int64ID(n int64) RequestID { return RequestID{n: n, kind: idNum} }

// IntegerID returns the id that is the JSON integer written as the decimal
// literal text, which may be outside the int64 range. It fails unless text is a
// JSON integer literal.
func IntegerID(text string) (RequestID, error) {
	if !isIntegerLiteral(text) {
		return RequestID{}, fmt.Errorf("jsonrpc2: %q is not a JSON integer literal", text)
	}
	return numID(text), nil
}

// IsZero reports whether id is the zero RequestID ("no id").
func (id RequestID) IsZero() bool { return id.kind == idNone }

// IsString reports whether id is a JSON string.
func (id RequestID) IsString() bool { return id.kind == idString || id.kind == idRawString }

// IsInteger reports whether id is a JSON integer.
func (id RequestID) IsInteger() bool { return id.kind == idInt || id.kind == idNum }

// StringValue returns the string value of a string id. For an id the peer
// sent with invalid UTF-8 or an unpaired surrogate the value is the lossy
// decoding (U+FFFD replaces what Go strings cannot hold); use RawJSON or
// String to tell such ids apart.
func (id RequestID) StringValue() (string, bool) {
	if id.kind == idRawString {
		var s string
		_ = json.Unmarshal([]byte(id.text), &s)
		return s, true
	}
	return id.text, id.kind == idString
}

// RawJSON returns the id's JSON encoding; for a string id that could not be
// decoded losslessly it is exactly the literal the peer sent.
func (id RequestID) RawJSON() []byte { return id.appendJSON(nil) }

// Int64 returns the value of an integer id that fits in an int64.
func (id RequestID) Int64() (int64, bool) {
	if id.kind == idNum {
		return id.n, true
	}
	if id.kind != idInt {
		return 0, false
	}
	n, err := strconv.ParseInt(id.text, 10, 64)
	return n, err == nil
}

// IntegerText returns the exact decimal text of an integer id, which is the
// only lossless form of ids beyond the int64 range.
func (id RequestID) IntegerText() (string, bool) {
	if id.kind == idNum {
		return strconv.FormatInt(id.n, 10), true
	}
	return id.text, id.kind == idInt
}

// String formats id for logs: strings are quoted (so "7" and 7 look different),
// integers are bare and the zero id is null.
func (id RequestID) String() string {
	switch id.kind {
	case idString:
		return strconv.Quote(id.text)
	case idRawString:
		return strings.ToValidUTF8(id.text, "\uFFFD")
	case idInt:
		return id.text
	case idNum:
		return strconv.FormatInt(id.n, 10)
	}
	return "null"
}

// MarshalJSON encodes id as a JSON string, integer or (zero id) null.
func (id RequestID) MarshalJSON() ([]byte, error) { return id.appendJSON(nil), nil }

// AppendJSON appends id's JSON (MarshalJSON's) to dst.
func (id RequestID) AppendJSON(dst []byte) []byte { return id.appendJSON(dst) }

func (id RequestID) appendJSON(dst []byte) []byte {
	switch id.kind {
	case idString:
		return appendJSONString(dst, id.text)
	case idRawString:
		return append(dst, id.text...)
	case idInt:
		return append(dst, id.text...)
	case idNum:
		return strconv.AppendInt(dst, id.n, 10)
	}
	return append(dst, "null"...)
}

// UnmarshalJSON decodes a JSON string or integer literal. Anything else
// (fractions, exponents, booleans, null, objects, arrays) is an error, so a
// request carrying such an id can be answered with -32600.
func (id *RequestID) UnmarshalJSON(data []byte) error {
	v, err := ParseRequestID(data)
	if err != nil {
		return err
	}
	*id = v
	return nil
}

// ErrInvalidID is wrapped by every error that rejects an id's JSON form.
var ErrInvalidID = errors.New("jsonrpc2: invalid request id")

// ErrIDOutOfRange is wrapped by a decoder's error for an id that is valid
// but too long to write out (an integer such as 1e999999): it names no
// request that can be in flight, so a cancellation naming it is ignored as
// an unknown id rather than as malformed.
var ErrIDOutOfRange = errors.New("jsonrpc2: request id out of range")

// ParseRequestID decodes one JSON value (surrounding whitespace allowed) as a
// RequestID, with the rules described on RequestID.
func ParseRequestID(data []byte) (RequestID, error) {
	data = jsonscan.Trim(data)
	if len(data) == 0 {
		return RequestID{}, fmt.Errorf("%w: empty", ErrInvalidID)
	}
	switch c := data[0]; {
	case c == '"':
		s, err := decodeJSONString(data)
		if err != nil {
			return RequestID{}, fmt.Errorf("%w: %v", ErrInvalidID, err)
		}
		if lossyString(data) {
			return RequestID{text: string(data), kind: idRawString}, nil
		}
		return RequestID{text: s, kind: idString}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		if !isIntegerLiteral(string(data)) {
			if json.Valid(data) {
				return RequestID{}, fmt.Errorf("%w: %s is a number but not an integer literal", ErrInvalidID, clip(data))
			}
			return RequestID{}, fmt.Errorf("%w: %s is not valid JSON", ErrInvalidID, clip(data))
		}
		if len(data) <= 20 && !(len(data) == 2 && data[0] == '-' && data[1] == '0') {
			// No allocation: the conversion does not escape.
			if n, err := strconv.ParseInt(string(data), 10, 64); err == nil {
				return RequestID{n: n, kind: idNum}, nil
			}
		}
		return RequestID{text: string(data), kind: idInt}, nil
	case c == 't' || c == 'f':
		return RequestID{}, fmt.Errorf("%w: a boolean is not a string or integer", ErrInvalidID)
	case c == 'n':
		return RequestID{}, fmt.Errorf("%w: null is not a string or integer", ErrInvalidID)
	case c == '{':
		return RequestID{}, fmt.Errorf("%w: an object is not a string or integer", ErrInvalidID)
	case c == '[':
		return RequestID{}, fmt.Errorf("%w: an array is not a string or integer", ErrInvalidID)
	}
	return RequestID{}, fmt.Errorf("%w: %s is not valid JSON", ErrInvalidID, clip(data))
}

// isIntegerLiteral reports whether s matches -?(0|[1-9][0-9]*).
func isIntegerLiteral(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	if i >= len(s) {
		return false
	}
	if s[i] == '0' {
		return i+1 == len(s)
	}
	for ; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// decodeJSONString decodes a complete JSON string literal. The common case (no
// escapes, valid UTF-8, no control characters) is one allocation.
func decodeJSONString(data []byte) (string, error) {
	if len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"' {
		return "", errors.New("malformed string")
	}
	body := data[1 : len(data)-1]
	simple := true
	for _, b := range body {
		if b == '\\' || b == '"' || b < 0x20 {
			simple = false
			break
		}
	}
	if simple && utf8.Valid(body) {
		return string(body), nil
	}
	var s string
	if err := json.Unmarshal(data, &s); err != nil {
		return "", err
	}
	return s, nil
}

// lossyString reports whether decoding the valid JSON string literal lit
// into a Go string loses information: raw invalid UTF-8, or a \u escape of
// a surrogate that is not part of a high-low pair. encoding/json maps both
// to U+FFFD, which would make distinct ids collide.
func lossyString(lit []byte) bool {
	body := lit[1 : len(lit)-1]
	if !utf8.Valid(body) {
		return true
	}
	for i := 0; i < len(body); i++ {
		if body[i] != '\\' {
			continue
		}
		i++
		if i >= len(body) || body[i] != 'u' {
			continue
		}
		r := hex4(body[i+1:])
		switch {
		case r >= 0xD800 && r < 0xDC00:
			// A high surrogate must be followed by an escaped low one.
			if len(body) < i+11 || body[i+5] != '\\' || body[i+6] != 'u' {
				return true
			}
			if lo := hex4(body[i+7:]); lo < 0xDC00 || lo > 0xDFFF {
				return true
			}
			i += 10
		case r >= 0xDC00 && r <= 0xDFFF:
			return true
		default:
			i += 4
		}
	}
	return false
}

// hex4 decodes four hex digits, or returns -1.
func hex4(b []byte) rune {
	if len(b) < 4 {
		return -1
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// clip shortens untrusted input for error messages.
func clip(b []byte) string {
	const max = 64
	if len(b) > max {
		return string(b[:max]) + "…"
	}
	return string(b)
}
