package streamhttp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// ParamHeader is one x-mcp-header annotation of a tool's inputSchema: the
// header Mcp-Param-{Name} mirrors the argument at Path (a chain of
// properties keys from the arguments object).
type ParamHeader struct {
	Name string
	Path []string
}

const (
	b64Prefix = "=?base64?"
	b64Suffix = "?="
)

// EncodeHeaderValue encodes a value for Mcp-Name or Mcp-Param-*: as is when
// it is plain header-safe ASCII, else in the Base64 sentinel form
// (streamable-http.mdx "Value Encoding").
func EncodeHeaderValue(v string) string {
	safe := v == strings.TrimSpace(v) && !(strings.HasPrefix(v, b64Prefix) && strings.HasSuffix(v, b64Suffix))
	for i := 0; safe && i < len(v); i++ {
		c := v[i]
		safe = (c >= 0x20 && c <= 0x7e) || c == '\t'
	}
	if safe {
		return v
	}
	return b64Prefix + base64.StdEncoding.EncodeToString([]byte(v)) + b64Suffix
}

// decodeHeaderValue undoes EncodeHeaderValue; ok is false for characters a
// header value may not carry or a broken Base64 form.
func decodeHeaderValue(v string) (string, bool) {
	if strings.HasPrefix(v, b64Prefix) && strings.HasSuffix(v, b64Suffix) && len(v) >= len(b64Prefix)+len(b64Suffix) {
		b, err := base64.StdEncoding.DecodeString(v[len(b64Prefix) : len(v)-len(b64Suffix)])
		if err != nil || !utf8.Valid(b) {
			return "", false
		}
		return string(b), true
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !((c >= 0x20 && c <= 0x7e) || c == '\t') {
			return "", false
		}
	}
	return v, true
}

// checkParamHeaders validates Mcp-Param-* headers against the arguments:
// a present non-null value needs its header, equal after decoding (integers
// compared numerically); an absent or null value must have no header.
func checkParamHeaders(hd http.Header, params []ParamHeader, args json.RawMessage) string {
	var obj map[string]json.RawMessage
	_ = json.Unmarshal(args, &obj)
	for _, ph := range params {
		name := HeaderParamPrefix + ph.Name
		got := hd.Values(name)
		val := lookupPath(obj, ph.Path)
		if val == nil || bytes.Equal(val, []byte("null")) {
			if len(got) > 0 {
				return name + " header present but the argument is absent"
			}
			continue
		}
		if len(got) != 1 {
			return name + " header is required when the argument is present"
		}
		hv, ok := decodeHeaderValue(got[0])
		if !ok {
			return name + " header value has invalid characters"
		}
		if !valueMatches(val, hv) {
			return name + " header value does not match the body"
		}
	}
	return ""
}

func lookupPath(obj map[string]json.RawMessage, path []string) json.RawMessage {
	for i, k := range path {
		v, ok := obj[k]
		if !ok {
			return nil
		}
		if i == len(path)-1 {
			return v
		}
		obj = nil
		if json.Unmarshal(v, &obj) != nil {
			return nil
		}
	}
	return nil
}

func valueMatches(val json.RawMessage, header string) bool {
	switch {
	case len(val) > 0 && val[0] == '"':
		var s string
		return json.Unmarshal(val, &s) == nil && s == header
	case bytes.Equal(val, []byte("true")), bytes.Equal(val, []byte("false")):
		return string(val) == header
	default:
		a, ok1 := new(big.Rat).SetString(string(val))
		b, ok2 := new(big.Rat).SetString(header)
		return ok1 && ok2 && a.Cmp(b) == 0
	}
}

// ParamHeadersFromSchema reads the x-mcp-header annotations of a tool's
// inputSchema, applying the constraints of streamable-http.mdx: a
// non-empty token name, unique case-insensitively, only on string, integer
// or boolean properties reachable through properties keys alone. An
// annotation anywhere else makes the whole tool invalid (the error says
// why); a client must then leave the tool out of its tools/list.
func ParamHeadersFromSchema(inputSchema json.RawMessage) ([]ParamHeader, error) {
	var out []ParamHeader
	seen := map[string]bool{}
	var walk func(schema json.RawMessage, path []string, reachable bool) error
	walk = func(schema json.RawMessage, path []string, reachable bool) error {
		var node map[string]json.RawMessage
		if json.Unmarshal(schema, &node) != nil {
			return nil // booleans and other non-objects carry no annotations
		}
		if raw, ok := node["x-mcp-header"]; ok {
			var name string
			if json.Unmarshal(raw, &name) != nil || !isToken(name) {
				return fmt.Errorf("x-mcp-header at %s is not an HTTP token", strings.Join(path, "."))
			}
			if !reachable || len(path) == 0 {
				return fmt.Errorf("x-mcp-header %q is not reachable through properties alone", name)
			}
			var typ string
			_ = json.Unmarshal(node["type"], &typ)
			if typ != "string" && typ != "integer" && typ != "boolean" {
				return fmt.Errorf("x-mcp-header %q is on a %q property (string, integer or boolean only)", name, typ)
			}
			key := strings.ToLower(name)
			if seen[key] {
				return fmt.Errorf("x-mcp-header %q is used twice", name)
			}
			seen[key] = true
			out = append(out, ParamHeader{Name: name, Path: append([]string(nil), path...)})
		}
		for k, v := range node {
			switch k {
			case "properties":
				var props map[string]json.RawMessage
				if json.Unmarshal(v, &props) == nil {
					for name, sub := range props {
						if err := walk(sub, append(path, name), reachable); err != nil {
							return err
						}
					}
				}
			case "items", "prefixItems", "additionalProperties", "oneOf", "anyOf", "allOf", "not",
				"if", "then", "else", "$defs", "definitions", "patternProperties", "contains":
				// Annotations under these are never valid; find them to refuse.
				var list []json.RawMessage
				if json.Unmarshal(v, &list) == nil {
					for _, sub := range list {
						if err := walk(sub, path, false); err != nil {
							return err
						}
					}
					continue
				}
				var m map[string]json.RawMessage
				if k == "$defs" || k == "definitions" || k == "patternProperties" {
					if json.Unmarshal(v, &m) == nil {
						for _, sub := range m {
							if err := walk(sub, path, false); err != nil {
								return err
							}
						}
					}
					continue
				}
				if err := walk(v, path, false); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(inputSchema, nil, true); err != nil {
		return nil, err
	}
	return out, nil
}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

// paramHeaderValue renders an argument for its Mcp-Param-* header; ok is
// false when the value is absent, null or not a primitive.
func paramHeaderValue(v json.RawMessage) (string, bool) {
	if len(v) == 0 || bytes.Equal(v, []byte("null")) {
		return "", false
	}
	switch v[0] {
	case '"':
		var s string
		if json.Unmarshal(v, &s) != nil {
			return "", false
		}
		return EncodeHeaderValue(s), true
	case 't', 'f':
		return string(v), true
	case '{', '[':
		return "", false
	}
	return string(v), true // an integer, as written
}

// peek is what the HTTP layer needs from a request's params: the version in
// _meta and the values mirrored into the standard headers.
type peek struct {
	Meta      map[string]json.RawMessage `json:"_meta"`
	Name      *string                    `json:"name"`
	URI       *string                    `json:"uri"`
	Arguments json.RawMessage            `json:"arguments"`

	// plain: read by peekPlain, which keeps _meta as its raw object in
	// meta (nil when absent or null) instead of Meta's map, and name and
	// uri as their raw string literals (nil when absent or null) instead
	// of Name and URI: copied out only when asked for (nameOf, uriOf).
	plain     bool
	meta      []byte
	name, uri []byte
}

// nameOf is the name member, as encoding/json sets Name: ok is false
// when it is absent or null.
func (p peek) nameOf() (string, bool) { return p.stringOf(p.Name, p.name) }

// uriOf is the uri member, as nameOf.
func (p peek) uriOf() (string, bool) { return p.stringOf(p.URI, p.uri) }

func (p peek) stringOf(decoded *string, raw []byte) (string, bool) {
	if !p.plain {
		if decoded == nil {
			return "", false
		}
		return *decoded, true
	}
	if raw == nil {
		return "", false
	}
	s, _ := jsonscan.Unquote(raw) // peekPlain checked that it unquotes
	return s, true
}

// metaMember is _meta's member key as Meta's map holds it.
func (p peek) metaMember(key string) (json.RawMessage, bool) {
	if p.plain {
		v := jsonscan.Member(p.meta, key) // the last one, escapes decoded, as in the map
		return v, v != nil
	}
	v, ok := p.Meta[key]
	return v, ok
}

func peekParams(params json.RawMessage) (peek, bool) {
	if len(params) == 0 {
		return peek{}, true
	}
	if params[0] != '{' {
		return peek{}, false
	}
	if pp, ok := peekPlain(params); ok {
		return pp, true
	}
	return peekSlow(params)
}

// peekSlow is peekParams by encoding/json. It is a function of its own so
// that only here does the peek escape to the heap (json.Unmarshal takes
// its address): the plain case, every request, allocates none.
func peekSlow(params json.RawMessage) (peek, bool) {
	var p peek
	// The params were valid JSON already (DecodeMessage checked), so an
	// error here means a member of the wrong type, e.g. "name": 3.
	err := json.Unmarshal(params, &p)
	return p, err == nil
}

// peekPlain is peekParams without encoding/json for the plain case (every
// request on both sides, so it matters); ok is false for anything only
// encoding/json reads exactly (a key matching a field without regard to
// case or through escapes, a string with escapes beyond the simple ones, a
// member of the wrong kind), which peekParams then decodes.
func peekPlain(params []byte) (p peek, ok bool) {
	p.plain, ok = true, true
	metas := 0
	jsonscan.EachMember(params, func(k, v []byte) bool {
		switch string(k) {
		case "_meta":
			// A second _meta object merges into the first's map in
			// encoding/json: left to it.
			if metas++; metas > 1 {
				ok = false
				break
			}
			switch v[0] {
			case '{':
				p.meta = v
			case 'n':
				p.meta = nil
			default:
				ok = false
			}
		case "name":
			p.name, ok = peekString(v)
		case "uri":
			p.uri, ok = peekString(v)
		case "arguments":
			p.Arguments = v // a slice of the params, which outlive the peek
		default:
			ok = bytes.IndexByte(k, '\\') < 0 && !foldsToPeeked(k)
		}
		return ok
	})
	return p, ok
}

// peekString checks a *string member's raw value v: null (nil), or a
// string Unquote reads (v itself), as encoding/json sets the field.
func peekString(v []byte) ([]byte, bool) {
	if v[0] == 'n' {
		return nil, true
	}
	if v[0] != '"' {
		return nil, false
	}
	for _, c := range v {
		if c == '\\' || c >= 0x80 {
			_, ok := jsonscan.Unquote(v) // escapes: only the rare case pays
			return v, ok
		}
	}
	return v, true
}

// foldsToPeeked reports whether k names one of peek's fields without
// regard to case (encoding/json's matching) without being it exactly.
func foldsToPeeked(k []byte) bool {
	for _, f := range [...]string{"_meta", "name", "uri", "arguments"} {
		if bytes.EqualFold(k, []byte(f)) {
			return true
		}
	}
	return false
}

// stringMember returns the string member of params that Mcp-Name mirrors
// (Revision.HTTPNameMembers); ok is false when it is absent or not a
// string.
// name and uri, the members of every revision so far, were peeked already.
func (p peek) stringMember(params json.RawMessage, member string) (string, bool) {
	switch member {
	case "name":
		return p.nameOf()
	case "uri":
		return p.uriOf()
	}
	var v string
	if raw := jsonscan.Member(params, member); raw == nil || json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	return v, true
}

// stringMemberIs reports whether the member stringMember reads is a
// string equal to v; a plain one is compared where it lies, not copied.
func (p peek) stringMemberIs(params json.RawMessage, member, v string) bool {
	if p.plain && (member == "name" || member == "uri") {
		raw := p.name
		if member == "uri" {
			raw = p.uri
		}
		if raw != nil && bytes.IndexByte(raw, '\\') < 0 {
			return string(raw[1:len(raw)-1]) == v
		}
	}
	want, ok := p.stringMember(params, member)
	return ok && want == v
}

// metaVersion returns _meta's protocol version and whether it is a
// string; one of known is returned as it is in known.
func (p peek) metaVersion(known []string) (string, bool) {
	raw, ok := p.metaMember(session.MetaProtocolVersion)
	if !ok {
		return "", false
	}
	if v, ok := jsonscan.UnquoteKnown(jsonscan.Trim(raw), known); ok {
		return v, true // a version is plain ASCII: no reflection
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	return v, true
}
