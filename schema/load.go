package schema

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Options tune Load.
type Options struct {
	// Revision names the protocol revision ("2025-11-25"). When empty it is
	// taken from the content if it is an official schema (recognised by
	// CanonicalDigest, so formatting does not matter), else from the name
	// of the directory that holds the file. A Revision that contradicts an
	// official schema's own is an error.
	Revision string
}

// Load reads the schema file at path and builds its Model.
func Load(path string, opts Options) (*Model, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &Error{File: path, Msg: "cannot read schema", Err: unwrapPathError(err)}
	}
	return LoadBytes(path, data, opts)
}

func unwrapPathError(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

var revisionPattern = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// LoadBytes builds the Model of a schema held in memory; file names it in
// errors and is used to guess the revision.
func LoadBytes(file string, data []byte, opts Options) (*Model, error) {
	sum := sha256.Sum256(data)
	digest := hex.EncodeToString(sum[:])

	obj, err := parseRoot(file, data)
	if err != nil {
		return nil, err
	}

	canonical, err := canonicalDigest(obj)
	if err != nil {
		return nil, &Error{File: file, Msg: "cannot digest the schema", Err: err}
	}
	officialRev := OfficialRevision(canonical)
	revision := opts.Revision
	if revision != "" && officialRev != "" && revision != officialRev {
		return nil, errAt(file, "", "revision %s was given, but this is the official schema of revision %s", revision, officialRev)
	}
	if revision == "" {
		revision = officialRev
	}
	if revision == "" {
		if dir := filepath.Base(filepath.Dir(file)); revisionPattern.MatchString(dir) {
			revision = dir
		}
	}
	if revision == "" {
		return nil, errAt(file, "", "cannot tell the protocol revision: not an official schema and not in a YYYY-MM-DD directory; pass --revision")
	}
	if !revisionPattern.MatchString(revision) {
		return nil, errAt(file, "", "revision %q is not of the form YYYY-MM-DD", revision)
	}

	d, err := dialectOf(file, obj)
	if err != nil {
		return nil, err
	}
	// The digests above are of the file as published; the Model is of
	// the document with mcpgen's errata applied (errata.go).
	applied, _, err := applyErrata(file, officialRev, obj, data)
	if err != nil {
		return nil, err
	}
	m := &Model{Revision: revision, SHA256: digest, Dialect: d.name, DefsKey: d.defsKey, Errata: applied, defDigests: map[string]string{}}
	for key := range obj {
		switch key {
		case "$schema", "definitions", "$defs", "$id", "$comment", "description", "title":
		default:
			return nil, errAt(file, "#/"+escapePointer(key), "unsupported keyword %q at the root (mcpgen reads the definitions only)", key)
		}
	}
	defsKey := d.defsKey
	rawDefs, ok := obj[defsKey].(map[string]any)
	if !ok {
		return nil, errAt(file, "#/"+defsKey, "missing or not an object")
	}
	if err := checkKeywords(file, obj, d); err != nil {
		return nil, err
	}

	rootID, _ := obj["$id"].(string)
	rawDefs, err = stripDefinitionDialects(file, defsKey, rawDefs, obj["$schema"], rootID)
	if err != nil {
		return nil, err
	}
	n := &normaliser{file: file, defsKey: defsKey, defs: rawDefs, rootID: rootID}
	names := make([]string, 0, len(rawDefs))
	for name := range rawDefs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		ptr := "#/" + defsKey + "/" + escapePointer(name)
		t, err := n.node(rawDefs[name], ptr)
		if err != nil {
			return nil, err
		}
		m.Definitions = append(m.Definitions, &Definition{Name: name, Pointer: ptr, Description: t.Description, Type: t})
		if m.defDigests[name], err = canonicalDigest(rawDefs[name]); err != nil {
			return nil, errAt(file, ptr, "cannot digest the definition: %v", err)
		}
	}
	a := newAnalyser(m, file)
	if err := a.run(); err != nil {
		return nil, err
	}
	if err := checkRequiredCycles(m, file); err != nil {
		return nil, err
	}
	return m, nil
}

// decodeJSON decodes one JSON document keeping numbers exact and refusing
// trailing data.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if se, ok := err.(*json.SyntaxError); ok {
			line, col := position(data, se.Offset)
			return nil, fmt.Errorf("line %d, column %d: %v", line, col, err)
		}
		if err.Error() == "unexpected EOF" {
			line, col := position(data, int64(len(data)))
			return nil, fmt.Errorf("line %d, column %d: unexpected end of input", line, col)
		}
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		line, col := position(data, dec.InputOffset())
		return nil, fmt.Errorf("line %d, column %d: data after the JSON document", line, col)
	}
	return v, nil
}

// position turns a byte offset into a 1-based line and column.
func position(data []byte, off int64) (line, col int) {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}

func escapePointer(s string) string {
	s = strings.ReplaceAll(s, "~", "~0")
	return strings.ReplaceAll(s, "/", "~1")
}

// normaliser turns raw schema nodes into Types.
type normaliser struct {
	file    string
	defsKey string
	defs    map[string]any
	// rootID is the document's $id: a reference that spells it out
	// ("<$id>#/$defs/X") is the same reference as "#/$defs/X".
	rootID string
}

// annotations are keywords that never change what a value may be.
var annotations = map[string]bool{
	"description": true, "title": true, "$comment": true, "examples": true,
	"deprecated": true, "readOnly": true, "writeOnly": true, "default": true,
}

// structural are the keywords mcpgen maps onto Go types.
var structural = map[string]bool{
	"type": true, "$ref": true, "properties": true, "required": true,
	"additionalProperties": true, "items": true, "anyOf": true, "allOf": true,
	"const": true, "enum": true, "format": true, "minimum": true, "maximum": true,
	"maxItems": true, "propertyNames": true, "not": true,
}

func (n *normaliser) node(raw any, ptr string) (*Type, error) {
	switch v := raw.(type) {
	case bool:
		if v {
			return &Type{Kind: KindAny, Pointer: ptr}, nil
		}
		return nil, errAt(n.file, ptr, "unsupported schema: false (nothing is valid)")
	case map[string]any:
		return n.object(v, ptr)
	default:
		return nil, errAt(n.file, ptr, "a schema must be an object or a boolean, got %s", jsonKindOf(raw))
	}
}

func (n *normaliser) object(s map[string]any, ptr string) (*Type, error) {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !structural[k] && !annotations[k] {
			return nil, errAt(n.file, ptr+"/"+escapePointer(k), "unsupported keyword %q", k)
		}
	}
	if pn, ok := s["propertyNames"]; ok && !isStringSchema(pn) {
		// Every JSON object key is a string, so {"type":"string"} says
		// nothing (zod writes it on every record); anything narrower would
		// need checks mcpgen does not generate.
		return nil, errAt(n.file, ptr+"/propertyNames", `only propertyNames {"type":"string"} is supported`)
	}
	if _, ok := s["not"]; ok {
		return nil, errAt(n.file, ptr+"/not", `"not" is supported only as additionalProperties {"not":{}} (no member beyond the declared ones)`)
	}
	t := &Type{Pointer: ptr}
	if d, ok := s["description"].(string); ok {
		t.Description = d
	}

	if ref, ok := s["$ref"]; ok {
		for _, k := range keys {
			if k != "$ref" && !annotations[k] {
				return nil, errAt(n.file, ptr+"/"+escapePointer(k), "keyword %q beside $ref is not supported", k)
			}
		}
		r, _ := ref.(string)
		if n.rootID != "" && strings.HasPrefix(r, n.rootID+"#") {
			// The document's own $id spelled out: a reference into this
			// document, not to another one.
			r = strings.TrimPrefix(r, n.rootID)
		}
		prefix := "#/" + n.defsKey + "/"
		if !strings.HasPrefix(r, prefix) {
			return nil, errAt(n.file, ptr+"/$ref", "unsupported reference %q (only %s<name> of this document is supported; a definition of another document must be copied into this one)", r, prefix)
		}
		name := strings.ReplaceAll(strings.ReplaceAll(strings.TrimPrefix(r, prefix), "~1", "/"), "~0", "~")
		if _, ok := n.defs[name]; !ok {
			return nil, errAt(n.file, ptr+"/$ref", "reference to undefined definition %q", name)
		}
		t.Kind, t.Ref = KindRef, name
		return t, nil
	}

	if all, ok := s["allOf"]; ok {
		return n.allOf(t, s, all, ptr)
	}
	if anyOf, ok := s["anyOf"]; ok {
		list, ok := anyOf.([]any)
		if !ok || len(list) == 0 {
			return nil, errAt(n.file, ptr+"/anyOf", "anyOf must be a non-empty array")
		}
		u := &Union{Pointer: ptr + "/anyOf", DefaultBranch: -1}
		nullable := false
		for i, b := range list {
			bptr := fmt.Sprintf("%s/anyOf/%d", ptr, i)
			if isNullSchema(b) {
				// anyOf [X, {"type":"null"}] is X or null: the zod
				// spelling of a nullable member (ext-tasks' ttlMs).
				nullable = true
				continue
			}
			bt, err := n.node(b, bptr)
			if err != nil {
				return nil, err
			}
			u.Branches = append(u.Branches, spliceScalarUnion(bt)...)
		}
		if len(u.Branches) == 0 {
			return nil, errAt(n.file, ptr+"/anyOf", "a value that can only be null is not supported")
		}
		if vals, ok := stringConsts(u.Branches); ok {
			// anyOf of string constants is a string enum (ext-tasks'
			// TaskStatus): one named string type with typed constants,
			// not a union of five types.
			t.Kind, t.Enum, t.Nullable = KindString, vals, nullable
			return t, nil
		}
		if len(u.Branches) == 1 {
			b := u.Branches[0]
			if nullable && (b.Nullable || b.Kind == KindAny) {
				return nil, errAt(n.file, ptr+"/anyOf", "null in a union whose other branch already admits null is not supported")
			}
			if b.Description == "" {
				b.Description = t.Description
			}
			b.Nullable = b.Nullable || nullable
			return b, nil
		}
		if nullable {
			return nil, errAt(n.file, ptr+"/anyOf", "a nullable union of several branches is not supported")
		}
		t.Kind, t.Union, t.UnionPointer = KindUnion, u, u.Pointer
		return t, nil
	}

	kinds, err := n.types(s, ptr)
	if err != nil {
		return nil, err
	}
	if len(kinds) > 1 {
		u := &Union{Pointer: ptr + "/type", DefaultBranch: -1}
		for _, k := range kinds {
			u.Branches = append(u.Branches, &Type{Kind: k, Pointer: ptr + "/type"})
		}
		t.Kind, t.Union, t.UnionPointer = KindUnion, u, u.Pointer
		return t, nil
	}
	if len(kinds) == 1 {
		t.Kind = kinds[0]
	}
	if _, ok := s["type"]; ok && len(kinds) == 0 {
		return nil, errAt(n.file, ptr+"/type", "a value that can only be null is not supported")
	}
	if list, ok := s["type"].([]any); ok {
		for _, k := range list {
			if k == "null" {
				t.Nullable = true
			}
		}
	}

	if c, ok := s["const"]; ok {
		switch v := c.(type) {
		case string:
			t.Const = v
			if t.Kind == "" {
				t.Kind = KindString
			}
		case json.Number:
			i, err := strconv.ParseInt(v.String(), 10, 64)
			if err != nil {
				return nil, errAt(n.file, ptr+"/const", "only string and integer constants are supported, got %s", v)
			}
			t.Const = i
			if t.Kind == "" {
				t.Kind = KindInteger
			}
		default:
			return nil, errAt(n.file, ptr+"/const", "only string and integer constants are supported, got %s", jsonKindOf(c))
		}
	}
	if e, ok := s["enum"]; ok {
		list, _ := e.([]any)
		if len(list) == 0 {
			return nil, errAt(n.file, ptr+"/enum", "enum must be a non-empty array")
		}
		for i, v := range list {
			str, ok := v.(string)
			if !ok {
				return nil, errAt(n.file, fmt.Sprintf("%s/enum/%d", ptr, i), "only string enums are supported, got %s", jsonKindOf(v))
			}
			t.Enum = append(t.Enum, str)
		}
		if t.Kind == "" {
			t.Kind = KindString
		}
	}
	if f, ok := s["format"].(string); ok {
		t.Format = f
	}
	for _, b := range []struct {
		key string
		dst **float64
	}{{"minimum", &t.Minimum}, {"maximum", &t.Maximum}} {
		if v, ok := s[b.key]; ok {
			num, ok := v.(json.Number)
			if !ok {
				return nil, errAt(n.file, ptr+"/"+b.key, "must be a number")
			}
			f, _ := num.Float64()
			*b.dst = &f
		}
	}
	if v, ok := s["maxItems"]; ok {
		num, _ := v.(json.Number)
		i, err := strconv.Atoi(num.String())
		if err != nil || i < 0 {
			return nil, errAt(n.file, ptr+"/maxItems", "must be a non-negative integer")
		}
		t.MaxItems = &i
	}

	_, hasProps := s["properties"]
	_, hasAdd := s["additionalProperties"]
	_, hasReq := s["required"]
	if hasProps || hasAdd || hasReq {
		if t.Kind == "" {
			t.Kind = KindObject
		}
		if t.Kind != KindObject {
			return nil, errAt(n.file, ptr, "object keywords on a %s schema are not supported", t.Kind)
		}
		if err := n.objectMembers(t, s, ptr); err != nil {
			return nil, err
		}
	}
	if items, ok := s["items"]; ok {
		if t.Kind == "" {
			t.Kind = KindArray
		}
		if t.Kind != KindArray {
			return nil, errAt(n.file, ptr+"/items", "items on a %s schema is not supported", t.Kind)
		}
		if _, ok := items.([]any); ok {
			return nil, errAt(n.file, ptr+"/items", "tuple items (an array of schemas) are not supported")
		}
		it, err := n.node(items, ptr+"/items")
		if err != nil {
			return nil, err
		}
		t.Items = it
	}
	switch t.Kind {
	case "":
		t.Kind = KindAny
	case KindArray:
		if t.Items == nil {
			t.Items = &Type{Kind: KindAny, Pointer: ptr + "/items"}
		}
	}
	return t, nil
}

// types reads the type keyword: the non-null kinds it allows.
func (n *normaliser) types(s map[string]any, ptr string) ([]Kind, error) {
	raw, ok := s["type"]
	if !ok {
		return nil, nil
	}
	var names []string
	switch v := raw.(type) {
	case string:
		names = []string{v}
	case []any:
		for i, x := range v {
			str, ok := x.(string)
			if !ok {
				return nil, errAt(n.file, fmt.Sprintf("%s/type/%d", ptr, i), "type names must be strings")
			}
			names = append(names, str)
		}
	default:
		return nil, errAt(n.file, ptr+"/type", "type must be a string or an array of strings")
	}
	var kinds []Kind
	for i, name := range names {
		switch name {
		case "null":
		case "string", "integer", "number", "boolean", "object", "array":
			kinds = append(kinds, Kind(name))
		default:
			return nil, errAt(n.file, fmt.Sprintf("%s/type/%d", ptr, i), "unknown type %q", name)
		}
	}
	return kinds, nil
}

func (n *normaliser) objectMembers(t *Type, s map[string]any, ptr string) error {
	required := map[string]bool{}
	if r, ok := s["required"]; ok {
		list, ok := r.([]any)
		if !ok {
			return errAt(n.file, ptr+"/required", "required must be an array of strings")
		}
		for i, x := range list {
			name, ok := x.(string)
			if !ok {
				return errAt(n.file, fmt.Sprintf("%s/required/%d", ptr, i), "required must be an array of strings")
			}
			required[name] = true
		}
	}
	props := map[string]any{}
	if p, ok := s["properties"]; ok {
		props, ok = p.(map[string]any)
		if !ok {
			return errAt(n.file, ptr+"/properties", "properties must be an object")
		}
	}
	names := make([]string, 0, len(props))
	for name := range props {
		names = append(names, name)
	}
	for name := range required {
		if _, ok := props[name]; !ok {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		pptr := ptr + "/properties/" + escapePointer(name)
		var pt *Type
		if raw, ok := props[name]; ok {
			var err error
			if pt, err = n.node(raw, pptr); err != nil {
				return err
			}
		} else {
			pt = &Type{Kind: KindAny, Pointer: pptr}
		}
		t.Properties = append(t.Properties, &Property{Name: name, Required: required[name], Type: pt})
	}
	if a, ok := s["additionalProperties"]; ok {
		if isNever(a) {
			// An object that admits no undeclared member. Supported only
			// without declared members (ext-tasks' TasksExtensionCapability:
			// exactly {}); MCP's own objects are open.
			if len(t.Properties) > 0 {
				return errAt(n.file, ptr+"/additionalProperties", "additionalProperties: false beside declared properties is not supported (MCP objects are open)")
			}
			t.Closed = true
			return nil
		}
		at, err := n.node(a, ptr+"/additionalProperties")
		if err != nil {
			return err
		}
		t.Additional = at
	}
	return nil
}

// allOf flattens an intersection of object schemas into one object: the
// union of their properties (a later member's constraint on a property
// wins, which is how the MCP schemas narrow Error.code to a const), the
// union of their required lists, and the first additionalProperties seen.
//
// One member may be an anyOf of objects (ext-tasks' GetTaskResult is
// Result ∧ (WorkingTask ∨ … ∨ CancelledTask)): the intersection is then
// distributed over it, A ∧ (B1 ∨ B2) = (A ∧ B1) ∨ (A ∧ B2), so the result
// is a union whose branches are flattened objects and keep the anyOf's
// pointers.
func (n *normaliser) allOf(t *Type, s map[string]any, raw any, ptr string) (*Type, error) {
	for k := range s {
		if k != "allOf" && !annotations[k] && k != "type" {
			return nil, errAt(n.file, ptr+"/"+escapePointer(k), "keyword %q beside allOf is not supported", k)
		}
	}
	list, ok := raw.([]any)
	if !ok || len(list) == 0 {
		return nil, errAt(n.file, ptr+"/allOf", "allOf must be a non-empty array")
	}
	var members []*Type
	var refs []string
	unionAt := -1
	for i, m := range list {
		mptr := fmt.Sprintf("%s/allOf/%d", ptr, i)
		mt, err := n.node(m, mptr)
		if err != nil {
			return nil, err
		}
		seen := map[string]bool{}
		for mt.Kind == KindRef {
			if seen[mt.Ref] {
				return nil, errAt(n.file, mptr, "allOf member refers to itself")
			}
			seen[mt.Ref] = true
			refs = append(refs, mt.Ref)
			if mt, err = n.node(n.defs[mt.Ref], "#/"+n.defsKey+"/"+escapePointer(mt.Ref)); err != nil {
				return nil, err
			}
		}
		if mt.Kind == KindUnion && unionAt < 0 && objectBranches(mt.Union) {
			unionAt = len(members)
		} else if mt.Kind != KindObject {
			if mt.Kind == KindUnion {
				return nil, errAt(n.file, mptr, "allOf with more than one anyOf member, or an anyOf member with non-object branches, is not supported")
			}
			return nil, errAt(n.file, mptr, "allOf members must be objects, got %s", mt.Kind)
		}
		members = append(members, mt)
	}
	if unionAt < 0 {
		t.Kind = KindObject
		t.AllOf = refs
		mergeObjects(t, members)
		return t, nil
	}
	u := members[unionAt].Union
	dist := &Union{Pointer: u.Pointer, DefaultBranch: -1}
	for _, b := range u.Branches {
		parts := append(append(append([]*Type(nil), members[:unionAt]...), b), members[unionAt+1:]...)
		bt := &Type{Kind: KindObject, Pointer: b.Pointer, Description: b.Description, AllOf: refs, derived: true}
		mergeObjects(bt, parts)
		dist.Branches = append(dist.Branches, bt)
	}
	t.Kind, t.Union, t.UnionPointer = KindUnion, dist, dist.Pointer
	return t, nil
}

// objectBranches reports whether every branch of u is an inline object.
func objectBranches(u *Union) bool {
	for _, b := range u.Branches {
		if b.Kind != KindObject {
			return false
		}
	}
	return true
}

// mergeObjects writes the intersection of the object members into t.
func mergeObjects(t *Type, members []*Type) {
	index := map[string]int{}
	for _, mt := range members {
		for _, p := range mt.Properties {
			if j, ok := index[p.Name]; ok {
				old := t.Properties[j]
				t.Properties[j] = &Property{Name: p.Name, Required: old.Required || p.Required, Type: p.Type}
				if p.Type.Description == "" {
					t.Properties[j].Type.Description = old.Type.Description
				}
				continue
			}
			index[p.Name] = len(t.Properties)
			t.Properties = append(t.Properties, &Property{Name: p.Name, Required: p.Required, Type: p.Type})
		}
		if t.Additional == nil {
			t.Additional = mt.Additional
		}
	}
	sort.Slice(t.Properties, func(i, j int) bool { return t.Properties[i].Name < t.Properties[j].Name })
}

// spliceScalarUnion lets an anyOf branch that is itself a type array
// (["string","integer","boolean"]) contribute its kinds directly, so the
// union is decided by JSON kind in one step.
func spliceScalarUnion(t *Type) []*Type {
	if t.Kind == KindUnion && strings.HasSuffix(t.Union.Pointer, "/type") {
		return t.Union.Branches
	}
	return []*Type{t}
}

func jsonKindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// stripDefinitionDialects returns the definitions with a definition-level
// $schema removed where it names the document's own dialect (bundlers such
// as zod-to-json-schema write one on every definition: ext-tasks does). A
// definition in another dialect, or with an $id of its own (which would
// make "#/$defs/..." inside it refer to a different document), is refused.
func stripDefinitionDialects(file, defsKey string, defs map[string]any, rootDialect any, rootID string) (map[string]any, error) {
	out := make(map[string]any, len(defs))
	for name, raw := range defs {
		out[name] = raw
		m, ok := raw.(map[string]any)
		if !ok {
			continue
		}
		ptr := "#/" + defsKey + "/" + escapePointer(name)
		if idv, ok := m["$id"]; ok && idv != rootID {
			return nil, errAt(file, ptr+"/$id", "a definition with its own $id (%v) is not supported: its references would resolve against another document", idv)
		}
		sv, hasSchema := m["$schema"]
		_, hasID := m["$id"]
		if !hasSchema && !hasID {
			continue
		}
		if hasSchema && strings.TrimSuffix(fmt.Sprint(sv), "#") != strings.TrimSuffix(fmt.Sprint(rootDialect), "#") {
			return nil, errAt(file, ptr+"/$schema", "definition declares dialect %v, the document %v: mixed dialects are not supported", sv, rootDialect)
		}
		c := make(map[string]any, len(m))
		for k, v := range m {
			if k != "$schema" && k != "$id" {
				c[k] = v
			}
		}
		out[name] = c
	}
	return out, nil
}

// isNullSchema reports whether raw is {"type":"null"} (annotations aside).
func isNullSchema(raw any) bool {
	m, ok := raw.(map[string]any)
	if !ok || m["type"] != "null" {
		return false
	}
	for k := range m {
		if k != "type" && !annotations[k] {
			return false
		}
	}
	return true
}

// isStringSchema reports whether raw is {"type":"string"}.
func isStringSchema(raw any) bool {
	m, ok := raw.(map[string]any)
	return ok && len(m) == 1 && m["type"] == "string"
}

// isNever reports whether raw admits nothing: false or {"not":{}}.
func isNever(raw any) bool {
	if b, ok := raw.(bool); ok {
		return !b
	}
	m, ok := raw.(map[string]any)
	if !ok || len(m) != 1 {
		return false
	}
	inner, ok := m["not"].(map[string]any)
	return ok && len(inner) == 0
}

// stringConsts returns the values when every branch is a plain string
// constant.
func stringConsts(branches []*Type) ([]string, bool) {
	var vals []string
	for _, b := range branches {
		c, ok := b.Const.(string)
		if b.Kind != KindString || !ok || b.Nullable || len(b.Enum) > 0 || b.Format != "" {
			return nil, false
		}
		vals = append(vals, c)
	}
	return vals, len(vals) > 1
}
