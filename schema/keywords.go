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
	file    string
	draft07 bool
}

// checkKeywords checks the root and every schema in the document.
func checkKeywords(file string, root map[string]any, d dialect) error {
	k := keywordChecker{file: file, draft07: d.name == "draft-07"}
	for _, key := range []string{"$comment", "description", "title"} {
		if err := k.str(root, key, "#"); err != nil {
			return err
		}
	}
	if err := k.id(root, "#"); err != nil {
		return err
	}
	containers := []string{d.defsKey}
	if !k.draft07 {
		// The 2020-12 meta-schema still reads "definitions" as schemas;
		// the draft-07 one does not know "$defs".
		containers = append(containers, "definitions")
	}
	for _, key := range containers {
		raw, ok := root[key]
		if !ok {
			continue
		}
		defs, ok := raw.(map[string]any)
		if !ok {
			return errAt(file, "#/"+key, "must be an object of schemas, got %s", jsonKindOf(raw))
		}
		for name, def := range defs {
			if err := k.schema(def, "#/"+key+"/"+escapePointer(name), true); err != nil {
				return err
			}
		}
	}
	return nil
}

// schema checks one schema and, through the applicator keywords, every
// schema inside it. A definition (top) may also carry $schema and $id.
func (k keywordChecker) schema(raw any, ptr string, top bool) error {
	s, ok := raw.(map[string]any)
	if !ok {
		if _, ok := raw.(bool); ok {
			return nil
		}
		return errAt(k.file, ptr, "a schema must be an object or a boolean, got %s", jsonKindOf(raw))
	}
	for key, v := range s {
		at := ptr + "/" + escapePointer(key)
		var err error
		switch key {
		case "description", "title", "$comment", "format":
			err = k.str(s, key, ptr)
		case "readOnly", "writeOnly":
			err = k.boolean(v, at)
		case "deprecated":
			if !k.draft07 { // unknown to draft-07: any value
				err = k.boolean(v, at)
			}
		case "examples":
			if _, ok := v.([]any); !ok {
				err = errAt(k.file, at, "must be an array, got %s", jsonKindOf(v))
			}
		case "default", "const":
		case "enum":
			err = k.enum(v, at)
		case "type":
			err = k.typ(v, at)
		case "required":
			err = k.stringArray(v, at)
		case "minimum", "maximum":
			if _, ok := v.(json.Number); !ok {
				err = errAt(k.file, at, "must be a number, got %s", jsonKindOf(v))
			}
		case "maxItems":
			if n, ok := v.(json.Number); !ok || !nonNegativeInteger(n) {
				err = errAt(k.file, at, "must be a non-negative integer")
			}
		case "$ref":
			if str, ok := v.(string); !ok {
				err = errAt(k.file, at, "must be a string, got %s", jsonKindOf(v))
			} else if !isURIReference(str) {
				err = errAt(k.file, at, "%q is not a URI reference", str)
			}
		case "properties":
			props, ok := v.(map[string]any)
			if !ok {
				err = errAt(k.file, at, "must be an object of schemas, got %s", jsonKindOf(v))
				break
			}
			for name, p := range props {
				if err = k.schema(p, at+"/"+escapePointer(name), false); err != nil {
					break
				}
			}
		case "additionalProperties", "propertyNames", "not":
			err = k.schema(v, at, false)
		case "items":
			if list, ok := v.([]any); ok && k.draft07 {
				err = k.schemaArray(list, at) // draft-07's tuple form
			} else {
				err = k.schema(v, at, false)
			}
		case "anyOf", "allOf":
			list, ok := v.([]any)
			if !ok {
				err = errAt(k.file, at, "must be a non-empty array of schemas, got %s", jsonKindOf(v))
			} else {
				err = k.schemaArray(list, at)
			}
		case "$schema":
			if !top {
				return errAt(k.file, at, "unsupported keyword %q", key)
			}
			if str, ok := v.(string); !ok || !isURI(str) {
				err = errAt(k.file, at, "must be an absolute URI")
			}
		case "$id":
			if !top {
				return errAt(k.file, at, "unsupported keyword %q", key)
			}
			err = k.id(s, ptr)
		default:
			// Outside mcpgen's vocabulary: the meta-schema may allow it,
			// but the normaliser would refuse it anyway, and a keyword
			// never checked here must never be accepted.
			return errAt(k.file, at, "unsupported keyword %q", key)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// str checks that s[key], if present, is a string.
func (k keywordChecker) str(s map[string]any, key, ptr string) error {
	v, ok := s[key]
	if !ok {
		return nil
	}
	if _, ok := v.(string); !ok {
		return errAt(k.file, ptr+"/"+escapePointer(key), "must be a string, got %s", jsonKindOf(v))
	}
	return nil
}

// id checks s's $id, if present: a URI reference, and in 2020-12 one
// without a non-empty fragment.
func (k keywordChecker) id(s map[string]any, ptr string) error {
	v, ok := s["$id"]
	if !ok {
		return nil
	}
	at := strings.TrimSuffix(ptr, "/") + "/$id"
	str, ok := v.(string)
	if !ok {
		return errAt(k.file, at, "must be a string, got %s", jsonKindOf(v))
	}
	if !isURIReference(str) {
		return errAt(k.file, at, "%q is not a URI reference", str)
	}
	if i := strings.IndexByte(str, '#'); !k.draft07 && i >= 0 && i != len(str)-1 {
		return errAt(k.file, at, "%q has a fragment (2020-12 allows none in $id)", str)
	}
	return nil
}

func (k keywordChecker) boolean(v any, at string) error {
	if _, ok := v.(bool); !ok {
		return errAt(k.file, at, "must be a boolean, got %s", jsonKindOf(v))
	}
	return nil
}

func (k keywordChecker) schemaArray(list []any, at string) error {
	if len(list) == 0 {
		return errAt(k.file, at, "must be a non-empty array of schemas")
	}
	for i, v := range list {
		if err := k.schema(v, at+"/"+strconv.Itoa(i), false); err != nil {
			return err
		}
	}
	return nil
}

// simpleTypes are the names the meta-schemas allow in "type".
var simpleTypes = map[string]bool{"array": true, "boolean": true, "integer": true, "null": true, "number": true, "object": true, "string": true}

func (k keywordChecker) typ(v any, at string) error {
	switch t := v.(type) {
	case string:
		if !simpleTypes[t] {
			return errAt(k.file, at, "unknown type %q", t)
		}
		return nil
	case []any:
		if len(t) == 0 {
			return errAt(k.file, at, "must name at least one type")
		}
		seen := map[string]bool{}
		for i, x := range t {
			name, ok := x.(string)
			if !ok || !simpleTypes[name] {
				return errAt(k.file, at+"/"+strconv.Itoa(i), "must be a type name (%s)", "array, boolean, integer, null, number, object or string")
			}
			if seen[name] {
				return errAt(k.file, at+"/"+strconv.Itoa(i), "type %q named twice", name)
			}
			seen[name] = true
		}
		return nil
	}
	return errAt(k.file, at, "must be a type name or an array of them, got %s", jsonKindOf(v))
}

func (k keywordChecker) stringArray(v any, at string) error {
	list, ok := v.([]any)
	if !ok {
		return errAt(k.file, at, "must be an array of strings, got %s", jsonKindOf(v))
	}
	seen := make(map[string]bool, len(list))
	for i, x := range list {
		str, ok := x.(string)
		if !ok {
			return errAt(k.file, at+"/"+strconv.Itoa(i), "must be a string, got %s", jsonKindOf(x))
		}
		if seen[str] {
			return errAt(k.file, at+"/"+strconv.Itoa(i), "%q is listed twice", str)
		}
		seen[str] = true
	}
	return nil
}

// enum checks an enum: an array, and in draft-07 a non-empty one of
// distinct values. mcpgen reads only string enums (the normaliser refuses
// any other), so that is required here already, which makes distinct a
// comparison of strings.
func (k keywordChecker) enum(v any, at string) error {
	list, ok := v.([]any)
	if !ok {
		return errAt(k.file, at, "must be an array, got %s", jsonKindOf(v))
	}
	if !k.draft07 {
		return nil
	}
	if len(list) == 0 {
		return errAt(k.file, at, "must not be empty")
	}
	return k.stringArray(v, at)
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
