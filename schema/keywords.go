package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// Keyword checks: what Load refuses as an invalid JSON Schema.
//
// mcpgen reads a fixed vocabulary (structural and annotations in load.go)
// and refuses any other keyword, so checking a document against its
// dialect's meta-schema comes down to checking the value of each keyword
// of that vocabulary by the meta-schema's rule for it. checkKeywords does
// exactly that, in one walk over the parsed document. It replaced a
// whole-document validation by jsonschema/v5 against the 2020-12
// meta-schema, which allocated half of all a large generation allocated
// and took a quarter of its CPU (TestScale). The rules are the meta-schemas'
// (draft-07 and 2020-12, as jsonschema/v5 embeds them, formats asserted);
// TestKeywordsRefuseWhatTheMetaSchemaRefuses and FuzzLoadAcceptsOnlyValid
// hold that whatever Load accepts jsonschema/v5 compiles.

// keywordChecker walks one document.
type keywordChecker struct {
	draft07 bool
}

// refusal is what the walk found wrong, with the JSON pointer's segments
// from the offending value up to the node that reports it: they are
// appended as the walk unwinds (in), so no pointer is built for the
// millions of values a large schema has that are fine.
type refusal struct {
	path []string // innermost first
	msg  string
}

func refuse(format string, args ...any) *refusal {
	return &refusal{msg: fmt.Sprintf(format, args...)}
}

// in returns r one level further out, under seg; nil stays nil.
func (r *refusal) in(seg string) *refusal {
	if r != nil {
		r.path = append(r.path, seg)
	}
	return r
}

// pointer is r's place below base.
func (r *refusal) pointer(base string) string {
	var b strings.Builder
	b.WriteString(base)
	for i := len(r.path) - 1; i >= 0; i-- {
		b.WriteByte('/')
		b.WriteString(escapePointer(r.path[i]))
	}
	return b.String()
}

// firstOf keeps, of the refusals found under the members of one object,
// the one under the smallest key: a map's order is random, and the error
// must not be (the normaliser reports in key order too).
type firstOf struct {
	r   *refusal
	key string
}

func (f *firstOf) add(key string, r *refusal) {
	if r != nil && (f.r == nil || key < f.key) {
		f.r, f.key = r, key
	}
}

func (f *firstOf) result() *refusal { return f.r.in(f.key) }

// checkKeywords checks the root and every schema in the document.
func checkKeywords(file string, root map[string]any, d dialect) error {
	k := keywordChecker{draft07: d.name == "draft-07"}
	var top firstOf
	for _, key := range []string{"$comment", "description", "title"} {
		if v, ok := root[key]; ok {
			top.add(key, checkString(v))
		}
	}
	if v, ok := root["$id"]; ok {
		top.add("$id", k.id(v))
	}
	containers := []string{d.defsKey}
	if !k.draft07 {
		// The 2020-12 meta-schema still reads "definitions" as schemas;
		// the draft-07 one does not know "$defs".
		containers = append(containers, "definitions")
	}
	for _, key := range containers {
		if raw, ok := root[key]; ok {
			top.add(key, k.schemaMap(raw, true))
		}
	}
	if r := top.result(); r != nil {
		return errAt(file, r.pointer("#"), "%s", r.msg)
	}
	return nil
}

// schemaMap checks an object of schemas (definitions, properties).
func (k keywordChecker) schemaMap(raw any, top bool) *refusal {
	m, ok := raw.(map[string]any)
	if !ok {
		return refuse("must be an object of schemas, got %s", jsonKindOf(raw))
	}
	var first firstOf
	for name, v := range m {
		first.add(name, k.schema(v, top))
	}
	return first.result()
}

// schema checks one schema and, through the applicator keywords, every
// schema inside it. A definition (top) may also carry $schema and $id.
func (k keywordChecker) schema(raw any, top bool) *refusal {
	s, ok := raw.(map[string]any)
	if !ok {
		if _, ok := raw.(bool); ok {
			return nil
		}
		return refuse("a schema must be an object or a boolean, got %s", jsonKindOf(raw))
	}
	var first firstOf
	for key, v := range s {
		first.add(key, k.keyword(key, v, top))
	}
	return first.result()
}

// keyword checks the value v of one keyword of a schema.
func (k keywordChecker) keyword(key string, v any, top bool) *refusal {
	switch key {
	case "description", "title", "$comment", "format":
		return checkString(v)
	case "readOnly", "writeOnly":
		return checkBool(v)
	case "deprecated":
		if !k.draft07 { // unknown to draft-07: any value
			return checkBool(v)
		}
	case "examples":
		if _, ok := v.([]any); !ok {
			return refuse("must be an array, got %s", jsonKindOf(v))
		}
	case "default", "const":
	case "enum":
		return k.enum(v)
	case "type":
		return typ(v)
	case "required":
		return stringArray(v)
	case "minimum", "maximum":
		if _, ok := v.(json.Number); !ok {
			return refuse("must be a number, got %s", jsonKindOf(v))
		}
	case "maxItems":
		if n, ok := v.(json.Number); !ok || !nonNegativeInteger(n) {
			return refuse("must be a non-negative integer")
		}
	case "$ref":
		str, ok := v.(string)
		if !ok {
			return refuse("must be a string, got %s", jsonKindOf(v))
		}
		if !isURIReference(str) {
			return refuse("%q is not a URI reference", str)
		}
	case "properties":
		return k.schemaMap(v, false)
	case "additionalProperties", "propertyNames", "not":
		return k.schema(v, false)
	case "items":
		if list, ok := v.([]any); ok && k.draft07 {
			return k.schemaArray(list) // draft-07's tuple form
		}
		return k.schema(v, false)
	case "anyOf", "allOf":
		list, ok := v.([]any)
		if !ok {
			return refuse("must be a non-empty array of schemas, got %s", jsonKindOf(v))
		}
		return k.schemaArray(list)
	case "$schema":
		if !top {
			return refuse("unsupported keyword %q", key)
		}
		if str, ok := v.(string); !ok || !isURI(str) {
			return refuse("must be an absolute URI")
		}
	case "$id":
		if !top {
			return refuse("unsupported keyword %q", key)
		}
		return k.id(v)
	default:
		// Outside mcpgen's vocabulary: the meta-schema may allow it,
		// but the normaliser would refuse it anyway, and a keyword
		// never checked here must never be accepted.
		return refuse("unsupported keyword %q", key)
	}
	return nil
}

// id checks an $id: a URI reference, and in 2020-12 one without a
// non-empty fragment.
func (k keywordChecker) id(v any) *refusal {
	str, ok := v.(string)
	if !ok {
		return refuse("must be a string, got %s", jsonKindOf(v))
	}
	if !isURIReference(str) {
		return refuse("%q is not a URI reference", str)
	}
	if i := strings.IndexByte(str, '#'); !k.draft07 && i >= 0 && i != len(str)-1 {
		return refuse("%q has a fragment (2020-12 allows none in $id)", str)
	}
	return nil
}

func checkString(v any) *refusal {
	if _, ok := v.(string); !ok {
		return refuse("must be a string, got %s", jsonKindOf(v))
	}
	return nil
}

func checkBool(v any) *refusal {
	if _, ok := v.(bool); !ok {
		return refuse("must be a boolean, got %s", jsonKindOf(v))
	}
	return nil
}

// schemaArray checks a non-empty array of schemas; the first refusal in
// the array's order is reported.
func (k keywordChecker) schemaArray(list []any) *refusal {
	if len(list) == 0 {
		return refuse("must be a non-empty array of schemas")
	}
	for i, v := range list {
		if r := k.schema(v, false); r != nil {
			return r.in(strconv.Itoa(i))
		}
	}
	return nil
}

// simpleTypes are the names the meta-schemas allow in "type".
var simpleTypes = map[string]bool{"array": true, "boolean": true, "integer": true, "null": true, "number": true, "object": true, "string": true}

func typ(v any) *refusal {
	switch t := v.(type) {
	case string:
		if !simpleTypes[t] {
			return refuse("unknown type %q", t)
		}
		return nil
	case []any:
		if len(t) == 0 {
			return refuse("must name at least one type")
		}
		seen := map[string]bool{}
		for i, x := range t {
			name, ok := x.(string)
			if !ok || !simpleTypes[name] {
				return refuse("must be a type name (%s)", "array, boolean, integer, null, number, object or string").in(strconv.Itoa(i))
			}
			if seen[name] {
				return refuse("type %q named twice", name).in(strconv.Itoa(i))
			}
			seen[name] = true
		}
		return nil
	}
	return refuse("must be a type name or an array of them, got %s", jsonKindOf(v))
}

func stringArray(v any) *refusal {
	list, ok := v.([]any)
	if !ok {
		return refuse("must be an array of strings, got %s", jsonKindOf(v))
	}
	seen := make(map[string]bool, len(list))
	for i, x := range list {
		str, ok := x.(string)
		if !ok {
			return refuse("must be a string, got %s", jsonKindOf(x)).in(strconv.Itoa(i))
		}
		if seen[str] {
			return refuse("%q is listed twice", str).in(strconv.Itoa(i))
		}
		seen[str] = true
	}
	return nil
}

// enum checks an enum: an array, and in draft-07 a non-empty one of
// distinct values. mcpgen reads only string enums (the normaliser refuses
// any other), so that is required here already, which makes distinct a
// comparison of strings.
func (k keywordChecker) enum(v any) *refusal {
	list, ok := v.([]any)
	if !ok {
		return refuse("must be an array, got %s", jsonKindOf(v))
	}
	if !k.draft07 {
		return nil
	}
	if len(list) == 0 {
		return refuse("must not be empty")
	}
	return stringArray(v)
}

// nonNegativeInteger reports whether n is an integer ≥ 0; like the
// normaliser, it takes only integers written without a fraction.
func nonNegativeInteger(n json.Number) bool {
	i, err := strconv.ParseInt(n.String(), 10, 64)
	return err == nil && i >= 0
}

// isURIReference and isURI are jsonschema/v5's "uri-reference" and "uri"
// formats, which its meta-schemas assert.
func isURIReference(s string) bool {
	_, err := parseURL(s)
	return err == nil && !strings.Contains(s, `\`)
}

func isURI(s string) bool {
	u, err := parseURL(s)
	return err == nil && u.IsAbs()
}

// parseURL is url.Parse that also refuses an IPv6 host not in brackets or
// not a valid address.
func parseURL(s string) (*url.URL, error) {
	u, err := url.Parse(s)
	if err != nil {
		return nil, err
	}
	if host := u.Hostname(); strings.IndexByte(host, ':') >= 0 {
		if !strings.Contains(u.Host, "[") || !strings.Contains(u.Host, "]") {
			return nil, errors.New("IPv6 address not in brackets")
		}
		if net.ParseIP(host) == nil {
			return nil, fmt.Errorf("invalid IPv6 address %q", host)
		}
	}
	return u, nil
}
