package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Drift compares two snapshot files (see snapshot.go): committed, the one
// the typed package was generated from, and live, what the server lists
// now. It returns one line per difference that matters to the generated
// callers, in a fixed order: tools and prompts added or removed, arguments
// added, removed or retyped, required changed, output schemas added,
// removed or changed, resource templates added or removed, and a changed
// protocol version. Descriptions, titles and examples are not compared
// (they change no Go type); nor is the server's version (a release that
// changes no tool is no drift). No lines means no drift.
func Drift(committed, live []byte) ([]string, error) {
	a, err := readDrift(committed)
	if err != nil {
		return nil, fmt.Errorf("committed snapshot: %w", err)
	}
	b, err := readDrift(live)
	if err != nil {
		return nil, fmt.Errorf("live snapshot: %w", err)
	}
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	if a.proto != b.proto {
		add("protocol version: %s → %s", a.proto, b.proto)
	}
	for _, name := range union(a.toolNames, b.toolNames) {
		ta, inA := a.tools[name]
		tb, inB := b.tools[name]
		switch {
		case !inA:
			add("tool %q: added", name)
			continue
		case !inB:
			add("tool %q: removed", name)
			continue
		}
		where := fmt.Sprintf("tool %q", name)
		out = append(out, schemaDrift(where+": argument", ta.in, tb.in)...)
		switch {
		case ta.out == nil && tb.out != nil:
			add("%s: output schema added (the caller would return a typed result)", where)
		case ta.out != nil && tb.out == nil:
			add("%s: output schema removed (the caller would return the raw CallToolResult)", where)
		case ta.out != nil && canon(ta.out) != canon(tb.out):
			add("%s: output schema changed", where)
			for _, l := range schemaDrift(where+": result member", ta.out, tb.out) {
				out = append(out, "  "+l)
			}
		}
	}
	for _, name := range union(a.promptNames, b.promptNames) {
		pa, inA := a.prompts[name]
		pb, inB := b.prompts[name]
		switch {
		case !inA:
			add("prompt %q: added", name)
		case !inB:
			add("prompt %q: removed", name)
		default:
			for _, arg := range union(pa.names, pb.names) {
				ra, inA := pa.required[arg]
				rb, inB := pb.required[arg]
				switch {
				case !inA:
					add("prompt %q: argument %q added%s", name, arg, reqNote(rb))
				case !inB:
					add("prompt %q: argument %q removed", name, arg)
				case ra != rb:
					add("prompt %q: argument %q %s", name, arg, map[bool]string{true: "became required", false: "is no longer required"}[rb])
				}
			}
		}
	}
	for _, t := range union(a.templates, b.templates) {
		switch inA, inB := contains(a.templates, t), contains(b.templates, t); {
		case !inA:
			add("resource template %q: added", t)
		case !inB:
			add("resource template %q: removed", t)
		}
	}
	return out, nil
}

func reqNote(required bool) string {
	if required {
		return " (required)"
	}
	return ""
}

// schemaDrift compares the top-level members of two object schemas.
func schemaDrift(what string, a, b map[string]any) []string {
	var out []string
	pa, _ := a["properties"].(map[string]any)
	pb, _ := b["properties"].(map[string]any)
	ra, rb := requiredSet(a), requiredSet(b)
	for _, name := range union(keys(pa), keys(pb)) {
		sa, inA := pa[name]
		sb, inB := pb[name]
		switch {
		case !inA:
			out = append(out, fmt.Sprintf("%s %q: added%s", what, name, reqNote(rb[name])))
			continue
		case !inB:
			out = append(out, fmt.Sprintf("%s %q: removed", what, name))
			continue
		}
		if ta, tb := typeOf(sa), typeOf(sb); ta != tb {
			out = append(out, fmt.Sprintf("%s %q: retyped %s → %s", what, name, ta, tb))
		} else if canon(sa) != canon(sb) {
			out = append(out, fmt.Sprintf("%s %q: schema changed: %s → %s", what, name, canon(sa), canon(sb)))
		}
		if ra[name] != rb[name] {
			out = append(out, fmt.Sprintf("%s %q: %s", what, name, map[bool]string{true: "became required", false: "is no longer required"}[rb[name]]))
		}
	}
	// Members of a schema other than its properties (additionalProperties,
	// a root allOf, ...) also change what the caller may send.
	if canon(rest(a)) != canon(rest(b)) {
		whole, member := strings.TrimSuffix(what, " argument"), "arguments"
		if whole == what {
			whole, member = strings.TrimSuffix(what, " result member"), "result members"
		}
		out = append(out, fmt.Sprintf("%s the schema around the %s changed: %s → %s", whole, member, canon(rest(a)), canon(rest(b))))
	}
	return out
}

// rest is a schema without properties and required, which schemaDrift
// compares member by member.
func rest(s map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range s {
		if k != "properties" && k != "required" {
			out[k] = v
		}
	}
	return out
}

// typeOf describes the type of a member schema for the report: its "type"
// (or list of types), its $ref, or "any".
func typeOf(s any) string {
	m, ok := s.(map[string]any)
	if !ok {
		return fmt.Sprint(s)
	}
	if t, ok := m["type"]; ok {
		b, _ := json.Marshal(t)
		s := strings.Trim(string(b), `"`)
		if s == "array" {
			return "array of " + typeOf(m["items"])
		}
		return s
	}
	if r, ok := m["$ref"].(string); ok {
		return r
	}
	for _, k := range []string{"oneOf", "anyOf", "allOf"} {
		if _, ok := m[k]; ok {
			return k
		}
	}
	if _, ok := m["enum"]; ok {
		return "enum"
	}
	return "any"
}

func requiredSet(s map[string]any) map[string]bool {
	out := map[string]bool{}
	r, _ := s["required"].([]any)
	for _, v := range r {
		if n, ok := v.(string); ok {
			out[n] = true
		}
	}
	return out
}

type driftTool struct{ in, out map[string]any }

type driftPrompt struct {
	names    []string
	required map[string]bool
}

type driftSnap struct {
	proto                  string
	toolNames, promptNames []string
	tools                  map[string]driftTool
	prompts                map[string]driftPrompt
	templates              []string
}

func readDrift(data []byte) (*driftSnap, error) {
	var f struct {
		Version *int   `json:"mcpgenSnapshot"`
		Proto   string `json:"protocolVersion"`
		Tools   []struct {
			Name string          `json:"name"`
			In   json.RawMessage `json:"inputSchema"`
			Out  json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
		Prompts []struct {
			Name string `json:"name"`
			Args []struct {
				Name     string `json:"name"`
				Required bool   `json:"required"`
			} `json:"arguments"`
		} `json:"prompts"`
		Templates []struct {
			URI string `json:"uriTemplate"`
		} `json:"resourceTemplates"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("#: not a snapshot: %v", err)
	}
	if f.Version == nil || *f.Version != 1 {
		return nil, fmt.Errorf("#/mcpgenSnapshot: want 1 (a snapshot written by mcpgen tools --from-server)")
	}
	s := &driftSnap{proto: f.Proto, tools: map[string]driftTool{}, prompts: map[string]driftPrompt{}}
	for i, t := range f.Tools {
		in, err := decodeSchema(t.In)
		if err != nil || in == nil {
			return nil, fmt.Errorf("#/tools/%d/inputSchema: want a schema object", i)
		}
		out, err := decodeSchema(t.Out)
		if err != nil {
			return nil, fmt.Errorf("#/tools/%d/outputSchema: want a schema object", i)
		}
		s.toolNames = append(s.toolNames, t.Name)
		s.tools[t.Name] = driftTool{in: in, out: out}
	}
	for _, p := range f.Prompts {
		dp := driftPrompt{required: map[string]bool{}}
		for _, a := range p.Args {
			dp.names = append(dp.names, a.Name)
			dp.required[a.Name] = a.Required
		}
		s.promptNames = append(s.promptNames, p.Name)
		s.prompts[p.Name] = dp
	}
	for _, t := range f.Templates {
		s.templates = append(s.templates, t.URI)
	}
	return s, nil
}

// decodeSchema decodes a schema object with its $refs resolved (so a
// change inside $defs shows at the member that uses it) and its
// annotations removed; nil for an absent schema.
func decodeSchema(raw json.RawMessage) (map[string]any, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not an object")
	}
	nz := &normalizer{root: m}
	return stripSchema(nz, m).(map[string]any), nil
}

// schemaAnnotations are the members of a schema that change no Go type.
var schemaAnnotations = map[string]bool{
	"description": true, "title": true, "examples": true, "example": true, "$comment": true,
	"$schema": true, "$id": true, "$defs": true, "definitions": true, "default": true, "deprecated": true,
}

// stripSchema returns s with local $refs inlined (a recursive one kept as
// the $ref) and annotations removed, recursing only into the members that
// hold schemas (a property named "description" is kept).
func stripSchema(nz *normalizer, s any) any {
	m, ok := s.(map[string]any)
	if !ok {
		return s
	}
	if ref, ok := m["$ref"].(string); ok {
		if t, reason := nz.resolve(ref); reason == "" {
			nz.stack = append(nz.stack, ref)
			defer func() { nz.stack = nz.stack[:len(nz.stack)-1] }()
			r := stripSchema(nz, t)
			if len(m) == 1 {
				return r
			}
			m = cloneMap(m)
			delete(m, "$ref")
			m["allOf"] = append(asSlice(m["allOf"]), r)
		}
	}
	out := map[string]any{}
	for k, v := range m {
		switch {
		case schemaAnnotations[k]:
		case k == "properties" || k == "patternProperties" || k == "dependentSchemas":
			props, ok := v.(map[string]any)
			if !ok {
				out[k] = v
				continue
			}
			p := map[string]any{}
			for name, sub := range props {
				p[name] = stripSchema(nz, sub)
			}
			out[k] = p
		case k == "items" || k == "additionalProperties" || k == "not" || k == "if" || k == "then" || k == "else" ||
			k == "contains" || k == "propertyNames" || k == "additionalItems" || k == "unevaluatedItems" || k == "unevaluatedProperties":
			if arr, ok := v.([]any); ok {
				out[k] = stripAll(nz, arr)
			} else {
				out[k] = stripSchema(nz, v)
			}
		case k == "allOf" || k == "anyOf" || k == "oneOf" || k == "prefixItems":
			out[k] = stripAll(nz, asSlice(v))
		default:
			out[k] = v
		}
	}
	return out
}

func stripAll(nz *normalizer, vs []any) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = stripSchema(nz, v)
	}
	return out
}

// canon is v's JSON with sorted keys.
func canon(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// union returns the names of a and b, sorted.
func union(a, b []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range append(append([]string{}, a...), b...) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
