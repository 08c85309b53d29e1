package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Schemas from the wild. A snapshot of a server someone else wrote
// (mcpgen tools --from-server) carries schemas written by zod, pydantic,
// schemars, jsonschema-go or by hand, in draft-07 or 2020-12, with
// keywords the validator of a tools.json does not implement. A tools.json
// of one's own fails on those keywords (a check silently skipped would be a
// bug in one's own server); a snapshot must generate whatever the server
// publishes. So, for snapshots only, normalize rewrites each schema into the
// subset parse binds, keeping every constraint it can and replacing what it
// cannot bind by a fallback: a schema that admits any value, bound to
// json.RawMessage, with its original description plus a note saying why,
// and the pointer of the published fragment it stands for (atKey), which
// the generated code checks the raw value against (toolsupport.Schema: in
// the Caller before sending, in the Handler, in result decoders). An
// assertion dropped without a fallback (normalizer.loose) makes the whole
// value checked against the published schema. What becomes what, and what
// is checked, is listed in docs/typed-callers.md and tested per construct
// in internal/testsupport/toolstest/wild.

// fallbackKey marks a schema normalize replaced: its value is the reason.
// parse ignores x-... members, so the node binds to json.RawMessage.
const fallbackKey = "x-mcpgen-fallback"

// atKey is the JSON pointer, inside the tool's schema as the server
// published it, of the schema a normalized node stands for: parse keeps it
// on a fallback, whose raw value the generated code checks against that
// fragment (toolsupport.Schema), and a node normalized twice (an allOf
// member, a $ref target) keeps the pointer of its first reading.
const atKey = "x-mcpgen-at"

// valuesKey is the pointer of an additionalProperties schema normalize
// replaced by true: the members of the map it binds to are raw JSON,
// checked against that fragment.
const valuesKey = "x-mcpgen-values"

// ptrJoin appends one member name or index to a JSON pointer.
func ptrJoin(at string, tok any) string { return at + "/" + esc(fmt.Sprint(tok)) }

// typeName are the values of "type" JSON Schema defines.
var typeName = map[string]bool{"object": true, "array": true, "string": true, "integer": true, "number": true, "boolean": true, "null": true}

// isTypeName says t is one of typeName.
func isTypeName(t any) bool {
	s, ok := t.(string)
	return ok && typeName[s]
}

// appliesTo are the keywords that only assert on values of one type
// (number covers integer): next to another "type" they assert nothing, so
// normalize drops them where parse would ask for the type they need.
var appliesTo = map[string]string{
	"properties": "object", "required": "object", "additionalProperties": "object", "patternProperties": "object",
	"propertyNames": "object", "minProperties": "object", "maxProperties": "object", "dependentRequired": "object",
	"dependentSchemas": "object", "dependencies": "object", "unevaluatedProperties": "object",
	"items": "array", "prefixItems": "array", "additionalItems": "array", "contains": "array", "minContains": "array",
	"maxContains": "array", "minItems": "array", "maxItems": "array", "uniqueItems": "array", "unevaluatedItems": "array",
	"minLength": "string", "maxLength": "string", "pattern": "string",
	"minimum": "number", "maximum": "number", "exclusiveMinimum": "number", "exclusiveMaximum": "number", "multipleOf": "number",
}

// bound are the keywords parse implements.
var bound = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true, "items": true,
	"enum": true, "const": true, "minimum": true, "maximum": true, "exclusiveMinimum": true,
	"exclusiveMaximum": true, "minLength": true, "maxLength": true, "pattern": true, "minItems": true,
	"maxItems": true, "uniqueItems": true, "multipleOf": true, "minProperties": true, "maxProperties": true,
	"description": true,
}

// dropped are keywords normalize removes: annotations parse does not know,
// keywords that only organise a schema ($defs, resolved by $ref), and
// assertions that are only ever annotations here (format: an annotation in
// 2020-12; the server asserts it if it wants to).
var dropped = map[string]bool{
	"$defs": true, "definitions": true, "$id": true, "$anchor": true, "$dynamicAnchor": true,
	"$schema": true, "$comment": true, "$vocabulary": true, "format": true, "nullable": true,
	"contentEncoding": true, "contentMediaType": true, "contentSchema": true, "title": true,
	"default": true, "examples": true, "deprecated": true, "readOnly": true, "writeOnly": true,
	"example": true, "discriminator": true,
}

// normalizer rewrites one tool schema; root is the whole schema, which
// local $refs point into.
type normalizer struct {
	root  any
	stack []string // the $refs being expanded, to stop at recursion
	// input: the schema is an inputSchema, whose values the caller only
	// sends (they are validated by the server): a nullable X ("type":
	// [X, "null"], or anyOf X or null) binds to X there, since the caller
	// never needs to send null. In an outputSchema null may come back, so
	// a nullable member stays raw JSON.
	input bool
	// loose: normalize dropped an assertion that no fallback keeps (a
	// oneOf, not, ... at the root, where the properties stay typed; an
	// allOf member's additionalProperties: false; a required name that is
	// not a property; draft-04's boolean exclusive bounds): then the
	// generated code checks the whole value against the published schema.
	loose bool
}

// normalize returns raw rewritten into what parse binds (see above);
// input says raw is an inputSchema; loose that an assertion was dropped
// (normalizer.loose).
func normalize(raw json.RawMessage, input bool) (norm json.RawMessage, loose bool, err error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, false, err
	}
	nz := &normalizer{root: v, input: input}
	out := nz.schema(v, true, "")
	norm, err = json.Marshal(out)
	return norm, nz.loose, err
}

// fallback is the schema that replaces one normalize cannot bind.
// at is the pointer of the schema it replaces in the published schema,
// which the generated code checks the raw value against.
func fallback(m map[string]any, reason, at string) map[string]any {
	note := "Raw JSON: mcpgen binds no Go type to " + reason + "; the value is checked against the server's schema for it."
	if d, ok := m["description"].(string); ok && d != "" {
		note = d + " (" + note + ")"
	}
	return map[string]any{fallbackKey: reason, "description": note, atKey: at}
}

// schema normalizes one schema; at the root of a tool's schema an
// unbindable assertion is dropped instead (the root must stay an object
// with its properties typed).
// at is v's pointer in the published schema.
func (nz *normalizer) schema(v any, root bool, at string) any {
	switch s := v.(type) {
	case bool:
		if s {
			return map[string]any{}
		}
		return fallback(nil, "the schema false (it admits nothing)", at)
	case map[string]any:
		return nz.object(s, root, at)
	default:
		return fallback(nil, "a value that is not a schema", at)
	}
}

func (nz *normalizer) object(m map[string]any, root bool, at string) any {
	if a, ok := m[atKey].(string); ok {
		at = a // normalized before: keep the pointer of its first reading
	}
	m = cloneMap(m)
	m[atKey] = at
	if ref, ok := m["$ref"].(string); ok {
		delete(m, "$ref")
		target, reason := nz.resolve(ref)
		if reason != "" {
			return fallback(m, reason, at)
		}
		nz.stack = append(nz.stack, ref)
		resolved := nz.schema(target, root, refPointer(ref))
		nz.stack = nz.stack[:len(nz.stack)-1]
		if onlyAnnotations(m) {
			rm, ok := resolved.(map[string]any)
			if ok {
				rm = cloneMap(rm)
				if d, ok := m["description"].(string); ok {
					rm["description"] = d
				}
				return rm
			}
			return resolved
		}
		// Siblings of $ref (allowed from 2019-09 on) apply too: both hold.
		m["allOf"] = append(asSlice(m["allOf"]), resolved)
	}
	if all, ok := m["allOf"]; ok {
		delete(m, "allOf")
		merged, reason := nz.allOf(m, asSlice(all), at)
		if reason != "" {
			if root {
				nz.loose = true
				return nz.object(m, true, at)
			}
			return fallback(m, reason, at)
		}
		m = merged
	}
	for _, k := range []string{"oneOf", "anyOf"} {
		alts, ok := m[k]
		if !ok {
			continue
		}
		delete(m, k)
		if other, i, ok := nullable(asSlice(alts)); ok && nz.input {
			if om, ok := other.(map[string]any); ok {
				if _, done := om[atKey]; !done {
					om = cloneMap(om)
					om[atKey] = ptrJoin(ptrJoin(at, k), i)
				}
				other = om
			}
			m["allOf"] = []any{other}
			return nz.object(m, root, at)
		}
		if e, ok := nz.stringAlternatives(asSlice(alts)); ok && (m["type"] == nil || m["type"] == "string") {
			m["type"], m["enum"] = "string", e
			continue
		}
		if root {
			nz.loose = true
			continue
		}
		return fallback(m, k+" (a choice between schemas)", at)
	}
	if t, ok := m["type"].([]any); ok {
		var nonNull []any
		for _, x := range t {
			if x != "null" {
				nonNull = append(nonNull, x)
			}
		}
		switch {
		case len(t) == 1:
			m["type"] = t[0]
		case len(t) == 2 && len(nonNull) == 1 && nz.input:
			m["type"] = nonNull[0]
		case root:
			nz.loose = true
			delete(m, "type")
		default:
			return fallback(m, fmt.Sprintf("a list of types %v", t), at)
		}
	}
	if t, ok := m["type"]; ok && !isTypeName(t) && !root {
		// Not a type name (an object, a number, an unknown name): no
		// JSON value could have it, and parse would refuse it. At the
		// root, the end of object makes it an object.
		return fallback(m, "a \"type\" that is not a type name", at)
	}
	if m["type"] == "null" && !root {
		return fallback(m, "type null", at)
	}
	// An enum of strings needs "type" to become a named string type.
	if e, ok := m["enum"].([]any); ok && m["type"] == nil && allStrings(e) {
		m["type"] = "string"
	}
	if m["type"] == nil {
		switch {
		case m["properties"] != nil || m["required"] != nil || m["additionalProperties"] != nil || root:
			m["type"] = "object"
		case m["items"] != nil || m["prefixItems"] != nil:
			m["type"] = "array"
		}
	}
	if t, ok := m["type"].(string); ok {
		for k := range m {
			if want, ok := appliesTo[k]; ok && want != t && (want != "number" || t != "integer") {
				delete(m, k) // asserts nothing on a value of type t
			}
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		val := m[k]
		switch {
		case dropped[k]:
			delete(m, k)
		case k == "properties":
			props, ok := val.(map[string]any)
			if !ok {
				delete(m, k)
				continue
			}
			out := map[string]any{}
			for name, p := range props {
				out[name] = nz.schema(p, false, ptrJoin(ptrJoin(at, k), name))
			}
			m[k] = out
		case k == "items":
			if _, tuple := val.([]any); tuple {
				if root {
					nz.loose = true
					delete(m, k)
					continue
				}
				return fallback(m, "items as an array (a draft-07 tuple)", at)
			}
			m[k] = nz.schema(val, false, ptrJoin(at, k))
		case k == "additionalProperties":
			if _, ok := val.(bool); !ok {
				// A schema for the other members: they stay raw JSON
				// (the struct, or map[string]json.RawMessage, admits them),
				// checked against the schema where a map holds them.
				m[k] = true
				if a, ok := m[valuesKey].(string); !ok || a == "" {
					m[valuesKey] = ptrJoin(at, k)
				}
			}
		case k == "exclusiveMinimum" || k == "exclusiveMaximum":
			if b, ok := val.(bool); ok {
				delete(m, k) // draft-04's boolean form: minimum/maximum still hold
				nz.loose = nz.loose || b
			}
		case k == "pattern":
			if s, ok := val.(string); !ok || !validRegexp(s) {
				delete(m, k) // ECMA-262 only (lookaround, \p{...} forms Go lacks): the server checks it
			}
		case k == "required":
			if _, ok := val.([]any); !ok {
				delete(m, k) // draft-03's boolean form
			}
		case k == "enum":
			if e, ok := val.([]any); !ok || len(e) == 0 {
				delete(m, k)
			}
		case bound[k], strings.HasPrefix(k, "x-"), k == fallbackKey:
		case root:
			nz.loose = true
			delete(m, k)
		default:
			return fallback(m, "the keyword "+k, at)
		}
	}
	// Keywords that need a type parse cannot infer: without one the node
	// is raw JSON anyway, so its typed checks cannot apply.
	if m["type"] == nil {
		for _, k := range []string{"minLength", "maxLength", "pattern", "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems", "uniqueItems", "minProperties", "maxProperties"} {
			if _, ok := m[k]; ok {
				return fallback(m, "the keyword "+k+" without a type", at)
			}
		}
	}
	if req, ok := m["required"].([]any); ok {
		if props, ok := m["properties"].(map[string]any); ok && len(props) > 0 {
			// parse rejects a required name that is not a property (a typo
			// in one's own file); a server's schema may do it: keep the rest.
			var keep []any
			for _, r := range req {
				if s, ok := r.(string); ok {
					if _, ok := props[s]; ok {
						keep = append(keep, s)
						continue
					}
				}
				nz.loose = true
			}
			m["required"] = keep
			if keep == nil {
				delete(m, "required")
			}
		}
	}
	if root && m["type"] != "object" {
		// The Tool definition requires an object at the root; a schema
		// that says otherwise through an allOf or a $ref still generates:
		// arguments with no typed members, the whole value checked
		// against the published schema.
		nz.loose = true
		shell := map[string]any{"type": "object", atKey: m[atKey]}
		if d, ok := m["description"]; ok {
			shell["description"] = d
		}
		return shell
	}
	return m
}

// allOf merges the members of an allOf into m when each is an object
// schema of properties, required and annotations; otherwise it says why not.
func (nz *normalizer) allOf(m map[string]any, members []any, at string) (map[string]any, string) {
	props := map[string]any{}
	if p, ok := m["properties"].(map[string]any); ok {
		for k, v := range p {
			props[k] = v
		}
	}
	req := asSlice(m["required"])
	for i, mem := range members {
		n, ok := nz.schema(mem, false, ptrJoin(ptrJoin(at, "allOf"), i)).(map[string]any)
		if !ok || n[fallbackKey] != nil {
			return nil, "allOf with a member that is not bound"
		}
		if len(n) == 0 {
			continue
		}
		if t := n["type"]; t != nil && t != "object" {
			if len(members) == 1 && m["type"] == nil && m["properties"] == nil {
				for k, v := range n {
					if _, ok := m[k]; !ok {
						m[k] = v
					}
				}
				return m, ""
			}
			return nil, "allOf of non-object schemas"
		}
		for k, v := range n {
			switch k {
			case "additionalProperties":
				if v == false {
					nz.loose = true
				}
			case "type", "description", atKey, valuesKey:
			case "properties":
				for name, p := range v.(map[string]any) {
					if prev, ok := props[name]; ok && !sameJSON(prev, p) {
						return nil, "allOf members that define property " + quote(name) + " differently"
					}
					props[name] = p
				}
			case "required":
				req = append(req, asSlice(v)...)
			default:
				return nil, "allOf member with the keyword " + k
			}
		}
	}
	m["type"] = "object"
	if len(props) > 0 {
		m["properties"] = props
	}
	if len(req) > 0 {
		seen := map[string]bool{}
		var uniq []any
		for _, r := range req {
			if s, ok := r.(string); ok && !seen[s] {
				seen[s] = true
				uniq = append(uniq, s)
			}
		}
		m["required"] = uniq
	}
	// An additionalProperties: false of one member would reject the
	// others' properties under JSON Schema's rules; the merge keeps the
	// object open, which admits at least what the server does (and the
	// whole value is checked against the published schema).
	if m["additionalProperties"] == false {
		nz.loose = true
	}
	delete(m, "additionalProperties")
	return m, ""
}

// stringAlternatives returns the strings of a oneOf/anyOf whose members are
// all string consts or string enums (zod's and pydantic's literal unions).
func (nz *normalizer) stringAlternatives(alts []any) ([]any, bool) {
	var out []any
	for _, a := range alts {
		m, ok := a.(map[string]any)
		if !ok {
			return nil, false
		}
		if ref, ok := m["$ref"].(string); ok {
			t, reason := nz.resolve(ref)
			if reason != "" {
				return nil, false
			}
			if m, ok = t.(map[string]any); !ok {
				return nil, false
			}
		}
		if c, ok := m["const"].(string); ok && (m["type"] == nil || m["type"] == "string") {
			out = append(out, c)
			continue
		}
		if e, ok := m["enum"].([]any); ok && allStrings(e) && (m["type"] == nil || m["type"] == "string") {
			out = append(out, e...)
			continue
		}
		return nil, false
	}
	return out, len(out) > 0
}

// resolve returns the schema a local $ref points to, or why it cannot.
func (nz *normalizer) resolve(ref string) (any, string) {
	for _, s := range nz.stack {
		if s == ref {
			return nil, "a recursive $ref " + ref
		}
	}
	if len(nz.stack) > 32 {
		return nil, "$refs nested deeper than 32"
	}
	if ref != "#" && !strings.HasPrefix(ref, "#/") {
		return nil, "a $ref to another document " + ref
	}
	cur := nz.root
	for _, tok := range strings.Split(strings.TrimPrefix(ref, "#"), "/")[1:] {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, "a $ref that points nowhere " + ref
		}
		if cur, ok = m[tok]; !ok {
			return nil, "a $ref that points nowhere " + ref
		}
	}
	return cur, ""
}

// nullable returns X of the alternatives [X, {"type": "null"}] (either
// order) and its index.
func nullable(alts []any) (any, int, bool) {
	if len(alts) != 2 {
		return nil, 0, false
	}
	isNull := func(a any) bool {
		m, ok := a.(map[string]any)
		return ok && len(m) == 1 && m["type"] == "null"
	}
	switch {
	case isNull(alts[0]) && !isNull(alts[1]):
		return alts[1], 1, true
	case isNull(alts[1]) && !isNull(alts[0]):
		return alts[0], 0, true
	}
	return nil, 0, false
}

// refPointer is the JSON pointer a local $ref (resolve accepted it) names.
func refPointer(ref string) string {
	return strings.TrimPrefix(ref, "#")
}

func onlyAnnotations(m map[string]any) bool {
	for k := range m {
		if !dropped[k] && k != "description" && !strings.HasPrefix(k, "x-") {
			return false
		}
	}
	return true
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func allStrings(vs []any) bool {
	for _, v := range vs {
		if _, ok := v.(string); !ok {
			return false
		}
	}
	return len(vs) > 0
}

func cloneMap(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// sameJSON compares two schemas, without the pointers normalize noted
// (the same schema read at two places is the same).
func sameJSON(a, b any) bool {
	x, _ := json.Marshal(withoutPointers(a))
	y, _ := json.Marshal(withoutPointers(b))
	return bytes.Equal(x, y)
}

func withoutPointers(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, w := range v {
			if k != atKey && k != valuesKey {
				out[k] = withoutPointers(w)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, w := range v {
			out[i] = withoutPointers(w)
		}
		return out
	}
	return v
}

func validRegexp(s string) bool {
	_, err := regexp.Compile(s)
	return err == nil
}
