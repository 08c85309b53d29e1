package tools

// The compact notation of a tools file (issue 36): a tool may give
// "input" and "output" instead of "inputSchema" and "outputSchema", each an
// object mapping property names to a short type, which the generator
// expands into the JSON Schemas tools/list returns. It exists because the
// schemas were most of the lines of a typed tool: {"a": "number"} says
// what eight lines of JSON Schema say.
//
//	{"name": "add", "input": {"a": "number", "b": "number"}, "output": {"sum": "number"}}
//
// A property's value is one of:
//
//	"string", "number", "integer", "boolean"   the JSON type
//	"integer 0..3600", "number ..1.5"          with minimum and/or maximum
//	"a|b|c"                                    a string, one of these
//	"string[]", "integer 1..9[]"               an array of the type before []
//	{"x": "number", ...}                       an object, in the same notation
//
// Every property is required unless its name ends in "?" ("limit?":
// "integer"), and no others are allowed (additionalProperties stays
// open, as the full notation's default). Anything richer (descriptions,
// patterns, formats) is written in full: "inputSchema" instead.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// member is one member of a JSON object, in the order written.
type member struct {
	key   string
	value json.RawMessage
}

// members reads a JSON object's members in order (encoding/json's maps
// lose it, and tools/list returns the schemas as written).
func members(raw json.RawMessage) ([]member, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, false
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		out = append(out, member{key: tok.(string), value: v})
	}
	return out, true
}

// expandCompact returns the tools file with every tool's "input" and
// "output" replaced by the "inputSchema" and "outputSchema" they stand
// for; a file without them comes back as it is. Errors name the JSON
// pointer of the value at fault.
func expandCompact(data []byte) ([]byte, error) {
	var entries []json.RawMessage
	if err := json.Unmarshal(data, &entries); err != nil {
		return data, nil // parseTools reports it
	}
	changed := false
	var out bytes.Buffer
	out.WriteByte('[')
	for i, raw := range entries {
		if i > 0 {
			out.WriteByte(',')
		}
		ms, ok := members(raw)
		if !ok {
			out.Write(raw)
			continue
		}
		has := map[string]bool{}
		for _, m := range ms {
			has[m.key] = true
		}
		var obj bytes.Buffer
		obj.WriteByte('{')
		for j, m := range ms {
			if j > 0 {
				obj.WriteByte(',')
			}
			key, value := m.key, m.value
			if full := map[string]string{"input": "inputSchema", "output": "outputSchema"}[m.key]; full != "" {
				ptr := fmt.Sprintf("#/%d/%s", i, m.key)
				if has[full] {
					return nil, fmt.Errorf("%s: give %q or %q, not both", ptr, m.key, full)
				}
				schema, err := compactObject(value, ptr)
				if err != nil {
					return nil, err
				}
				key, value, changed = full, schema, true
			}
			k, _ := json.Marshal(key)
			obj.Write(k)
			obj.WriteByte(':')
			obj.Write(value)
		}
		obj.WriteByte('}')
		out.Write(obj.Bytes())
	}
	out.WriteByte(']')
	if !changed {
		return data, nil
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, out.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	return indented.Bytes(), nil
}

// compactObject expands {"name": TYPE, ...} into an object schema.
func compactObject(raw json.RawMessage, ptr string) (json.RawMessage, error) {
	ms, ok := members(raw)
	if !ok {
		return nil, fmt.Errorf("%s: want an object of property names and types, e.g. {\"a\": \"number\"}", ptr)
	}
	var props bytes.Buffer
	var required []string
	props.WriteByte('{')
	for i, m := range ms {
		name, optional := strings.CutSuffix(m.key, "?")
		if name == "" {
			return nil, fmt.Errorf("%s: an empty property name", ptr)
		}
		if !optional {
			required = append(required, name)
		}
		p, err := compactType(m.value, ptr+"/"+escapePointer(m.key))
		if err != nil {
			return nil, err
		}
		if i > 0 {
			props.WriteByte(',')
		}
		k, _ := json.Marshal(name)
		props.Write(k)
		props.WriteByte(':')
		props.Write(p)
	}
	props.WriteByte('}')
	var b bytes.Buffer
	b.WriteString(`{"type":"object","properties":`)
	b.Write(props.Bytes())
	if len(required) > 0 {
		r, _ := json.Marshal(required)
		b.WriteString(`,"required":`)
		b.Write(r)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// compactType expands one property's type.
func compactType(raw json.RawMessage, ptr string) (json.RawMessage, error) {
	if bytes.HasPrefix(bytes.TrimSpace(raw), []byte("{")) {
		return compactObject(raw, ptr)
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("%s: want a type (\"number\", \"integer 0..10\", \"a|b\", \"string[]\") or an object of properties", ptr)
	}
	s = strings.TrimSpace(s)
	if elem, ok := strings.CutSuffix(s, "[]"); ok {
		e, _ := json.Marshal(elem)
		items, err := compactType(e, ptr)
		if err != nil {
			return nil, err
		}
		return json.RawMessage(`{"type":"array","items":` + string(items) + `}`), nil
	}
	typ, rng, hasRange := strings.Cut(s, " ")
	if strings.Contains(typ, "|") && !hasRange {
		enum, _ := json.Marshal(strings.Split(typ, "|"))
		return json.RawMessage(`{"type":"string","enum":` + string(enum) + `}`), nil
	}
	switch typ {
	case "string", "number", "integer", "boolean":
	default:
		return nil, fmt.Errorf("%s: unknown type %q: use string, number, integer, boolean, a|b|c, T[] or an object", ptr, typ)
	}
	out := `{"type":"` + typ + `"`
	if hasRange {
		if typ != "number" && typ != "integer" {
			return nil, fmt.Errorf("%s: %q: a range MIN..MAX is for number and integer", ptr, s)
		}
		lo, hi, ok := strings.Cut(strings.TrimSpace(rng), "..")
		if !ok || lo == "" && hi == "" {
			return nil, fmt.Errorf("%s: %q: want a range MIN..MAX, MIN.. or ..MAX", ptr, s)
		}
		for _, b := range []struct{ kw, v string }{{"minimum", lo}, {"maximum", hi}} {
			if b.v == "" {
				continue
			}
			if _, err := strconv.ParseFloat(b.v, 64); err != nil || !json.Valid([]byte(b.v)) {
				return nil, fmt.Errorf("%s: %q: %s %q is not a number", ptr, s, b.kw, b.v)
			}
			out += `,"` + b.kw + `":` + b.v
		}
	}
	return json.RawMessage(out + "}"), nil
}

// escapePointer escapes a property name for a JSON pointer (RFC 6901).
func escapePointer(s string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(s)
}
