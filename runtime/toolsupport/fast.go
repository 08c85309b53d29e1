package toolsupport

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
)

// The typed-tools path runs for every tools/call on both sides, so the
// helpers here do what encoding/json did for it without its reflection and
// its Decoder's buffers: the project's scanner validates, and the values
// are built from its spans. Each gives exactly encoding/json's result;
// whenever the input is not the plain case (invalid JSON, a key that could
// match case-insensitively, a member of an unexpected kind) they return
// false and the caller takes the encoding/json path, so errors and corner
// cases read as they always did.

// parseFast is Parse for exactly one valid JSON value; ok is false for
// anything else.
func parseFast(data []byte) (v any, ok bool) {
	raw, ok := jsonscan.Value(data)
	if !ok {
		return nil, false
	}
	return build(raw), true
}

// build is the value encoding/json's Decoder with UseNumber makes of the
// valid JSON v (no surrounding whitespace).
func build(v []byte) any {
	switch v[0] {
	case '{':
		m := map[string]any{}
		jsonscan.EachMember(v, func(k, val []byte) bool {
			m[keyString(k)] = build(val)
			return true
		})
		return m
	case '[':
		a := []any{}
		it := jsonscan.NewArray(v, 0)
		for it.Next() {
			a = append(a, build(it.Value))
		}
		return a
	case '"':
		return stringValue(v)
	case 't':
		return true
	case 'f':
		return false
	case 'n':
		return nil
	}
	return json.Number(v)
}

// stringValue decodes the valid string literal v: plain ASCII without
// escapes as itself, anything else as encoding/json reads it (escapes,
// invalid UTF-8 as U+FFFD).
func stringValue(v []byte) string {
	body := v[1 : len(v)-1]
	for _, c := range body {
		if c == '\\' || c >= utf8.RuneSelf {
			if s, ok := jsonscan.Unquote(v); ok {
				return s
			}
			var s string
			_ = json.Unmarshal(v, &s)
			return s
		}
	}
	return string(body)
}

// keyString decodes a raw member key as jsonscan reports it (between the
// quotes, still escaped).
func keyString(k []byte) string {
	for _, c := range k {
		if c == '\\' || c >= utf8.RuneSelf {
			q := make([]byte, 0, len(k)+2)
			return stringValue(append(append(append(q, '"'), k...), '"'))
		}
	}
	return internKey(k)
}

// keys shares object keys, which repeat on every call of a tool (its
// property names, in the arguments, the structured result and its check).
var keys jsonscan.Interner

// internKey is string(k) for a plain key, shared when the table has it.
func internKey(k []byte) string { return keys.String(k) }

// membersFast splits the valid JSON object b into its members as
// json.Unmarshal into a map[string]json.RawMessage does (the values share
// b); ok is false when b is not an object.
func membersFast(b []byte) (map[string]json.RawMessage, bool) {
	b = jsonscan.Trim(b)
	if len(b) == 0 || b[0] != '{' {
		return nil, false
	}
	m := map[string]json.RawMessage{}
	jsonscan.EachMember(b, func(k, v []byte) bool {
		m[keyString(k)] = v
		return true
	})
	return m, true
}

// toolResult is what TypedResult reads of a CallToolResult.
type toolResult struct {
	texts             []string // the text of each text block, in order
	isError           bool
	structuredContent []byte
}

// toolResultFast reads the valid JSON object b as json.Unmarshal into
// TypedResult's struct would; ok is false for anything that is not plainly
// that shape (then encoding/json decides, errors included).
func toolResultFast(b []byte) (r toolResult, ok bool) {
	ok = true
	var content []byte
	o := jsonscan.NewObject(b, 0)
	for ok && o.Next() {
		switch k := string(o.Key); k {
		case "content":
			content = o.Value
			_, ok = textBlocks(content, false)
		case "isError":
			switch o.Value[0] {
			case 't':
				r.isError = true
			case 'f':
				r.isError = false
			case 'n':
			default:
				ok = false
			}
		case "structuredContent":
			r.structuredContent = o.Value
		default:
			// encoding/json matches field names without regard to case.
			ok = !foldsTo(k, "content", "isError", "structuredContent")
		}
	}
	if ok && r.isError && content != nil {
		r.texts, _ = textBlocks(content, true) // only an error's text is read
	}
	return r, ok && !o.Bad()
}

// textBlocks reads the text of the text blocks of the valid content array
// v (when collect; otherwise it only checks); ok is false when an item is
// not an object or its type or text is not a string.
func textBlocks(v []byte, collect bool) (texts []string, ok bool) {
	if v[0] == 'n' {
		return nil, true
	}
	a := jsonscan.NewArray(v, 0)
	for a.Next() {
		if a.Value[0] != '{' {
			return nil, false
		}
		var typ, text string
		o := jsonscan.NewObject(a.Value, 0)
		for o.Next() {
			switch k := string(o.Key); k {
			case "type", "text":
				if o.Value[0] == 'n' {
					continue
				}
				if o.Value[0] != '"' {
					return nil, false
				}
				if !collect {
					continue
				}
				if k == "type" {
					typ = stringValue(o.Value)
				} else {
					text = stringValue(o.Value)
				}
			default:
				if foldsTo(k, "type", "text") {
					return nil, false
				}
			}
		}
		if typ == "text" {
			texts = append(texts, text)
		}
	}
	return texts, !a.Bad()
}

// foldsTo reports whether the raw key k could name one of names to
// encoding/json without being exactly it: equal under case folding, or
// escaped.
func foldsTo(k string, names ...string) bool {
	if strings.IndexByte(k, '\\') >= 0 {
		return true
	}
	for _, n := range names {
		if strings.EqualFold(k, n) {
			return true
		}
	}
	return false
}
