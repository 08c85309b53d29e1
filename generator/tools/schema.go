package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// kind is the JSON type a schema node admits; kindAny is a node without
// "type", bound to json.RawMessage.
type kind string

const (
	kindObject  kind = "object"
	kindArray   kind = "array"
	kindString  kind = "string"
	kindInteger kind = "integer"
	kindNumber  kind = "number"
	kindBoolean kind = "boolean"
	kindAny     kind = ""
)

// node is one schema of a tool's input or output, reduced to the keywords
// the generated validator implements.
type node struct {
	ptr  string // JSON pointer of the schema inside the tools file
	kind kind
	doc  string // description, for the Go doc comment

	// goName names the Go type of an object with properties or of a
	// string enum; empty for the others.
	goName string

	props  []*prop // sorted by JSON name
	closed bool    // additionalProperties: false

	minLength, maxLength *int64
	pattern              string
	minimum, maximum     string // JSON number literals, "" when absent
	exclMin, exclMax     string
	minItems, maxItems   *int64
	unique               bool   // uniqueItems: true
	multipleOf           string // JSON number literal, "" when absent
	minProps, maxProps   *int64
	items                *node

	enum     json.RawMessage // the enum array as written, nil when absent
	constant json.RawMessage // the const value as written, nil when absent
	strEnum  []string        // enum of a string node: a named type with constants
	consts   []string        // the Go names of strEnum's constants

	// raw: a snapshot's fallback (wild.go), bound to json.RawMessage and
	// checked against the fragment of the published schema it stands
	// for; values: a map's members, checked against the
	// additionalProperties schema normalize replaced. nil for the others.
	raw, values *rawRef

	fn   string // name of the generated bind function
	re   string // name of the compiled pattern's variable, when pattern is set
	fast string // name of the generated fast binder (fast.go), when plain
}

// rawRef is a fragment of a tool's schema as the server published it.
type rawRef struct {
	src *schemaSrc
	at  string // JSON pointer inside src
}

// schemaSrc is one published tool schema that raw values are checked
// against; the generated package holds it once, as a toolsupport.Schema.
type schemaSrc struct {
	json   string
	goName string // its package variable, once emitted
}

// prop is one member of an object node.
type prop struct {
	name     string
	field    string
	required bool
	n        *node
}

// annotations are keywords that do not constrain instances, so the
// validator may ignore them.
var annotations = map[string]bool{
	"$schema": true, "$comment": true, "$id": true, "title": true, "description": true,
	"default": true, "examples": true, "deprecated": true, "readOnly": true, "writeOnly": true,
}

// parser turns schemas into nodes, naming types and collecting errors with
// the JSON pointer that caused them.
type parser struct {
	names map[string]string // Go type name → pointer that claimed it
	// formatAsserted: the schema being read declares a draft before
	// 2019-09, where "format" may be an assertion.
	formatAsserted bool
	// lenient: the schemas come from a server's snapshot (wild.go): a
	// member or item schema parse cannot bind becomes json.RawMessage.
	lenient bool
	// src: the published schema being read (a snapshot's), which the
	// fallbacks' pointers point into.
	src *schemaSrc
}

// rawRefs records what normalize noted on n (members are its schema's):
// the pointer a fallback stands for, and that of a map's members.
func (ps *parser) rawRefs(n *node, members map[string]json.RawMessage) {
	if ps.src == nil {
		return
	}
	var at string
	if _, ok := members[fallbackKey]; ok && json.Unmarshal(members[atKey], &at) == nil {
		n.raw = &rawRef{src: ps.src, at: at}
	}
	if raw, ok := members[valuesKey]; ok && n.kind == kindObject && json.Unmarshal(raw, &at) == nil {
		n.values = &rawRef{src: ps.src, at: at}
	}
}

func (ps *parser) claim(name, ptr string) error {
	if prev, ok := ps.names[name]; ok {
		return fmt.Errorf("#%s: Go type name %s is already used by #%s", ptr, name, prev)
	}
	ps.names[name] = ptr
	return nil
}

// parse reads the schema raw at ptr; name is the Go type name an object
// with properties (or a string enum) gets.
func (ps *parser) parse(raw json.RawMessage, ptr, name string) (*node, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil || members == nil {
		return nil, fmt.Errorf("#%s: a schema must be a JSON object here (boolean schemas are not supported)", ptr)
	}
	n := &node{ptr: ptr}
	keys := make([]string, 0, len(members))
	for k := range members {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	str := func(k string) (string, error) {
		var s string
		if err := json.Unmarshal(members[k], &s); err != nil {
			return "", fmt.Errorf("#%s/%s: must be a string", ptr, esc(k))
		}
		return s, nil
	}
	count := func(k string) (*int64, error) {
		var v int64
		if err := json.Unmarshal(members[k], &v); err != nil || v < 0 {
			return nil, fmt.Errorf("#%s/%s: must be a non-negative integer", ptr, esc(k))
		}
		return &v, nil
	}
	number := func(k string) (string, error) {
		var v json.Number
		d := json.NewDecoder(bytes.NewReader(members[k]))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			return "", fmt.Errorf("#%s/%s: must be a number", ptr, esc(k))
		}
		if _, ok := new(big.Rat).SetString(v.String()); !ok {
			return "", fmt.Errorf("#%s/%s: must be a number", ptr, esc(k))
		}
		return v.String(), nil
	}
	var err error
	for _, k := range keys {
		p := ptr + "/" + esc(k)
		switch k {
		case "type":
			s, e := str(k)
			if e != nil {
				return nil, fmt.Errorf("#%s: only a single type name is supported", p)
			}
			switch kind(s) {
			case kindObject, kindArray, kindString, kindInteger, kindNumber, kindBoolean:
				n.kind = kind(s)
			default:
				return nil, fmt.Errorf("#%s: unsupported type %q", p, s)
			}
		case "description":
			n.doc, err = str(k)
		case "properties", "required", "additionalProperties", "items":
			// read below, once the type is known
		case "minLength":
			n.minLength, err = count(k)
		case "maxLength":
			n.maxLength, err = count(k)
		case "minItems":
			n.minItems, err = count(k)
		case "minProperties":
			n.minProps, err = count(k)
		case "maxProperties":
			n.maxProps, err = count(k)
		case "uniqueItems":
			if e := json.Unmarshal(members[k], &n.unique); e != nil {
				err = fmt.Errorf("#%s: must be a boolean", p)
			}
		case "multipleOf":
			if n.multipleOf, err = number(k); err == nil {
				if r, _ := new(big.Rat).SetString(n.multipleOf); r.Sign() <= 0 {
					err = fmt.Errorf("#%s: must be greater than 0", p)
				}
			}
		case "format":
			// An annotation in JSON Schema 2020-12, the tools' default
			// dialect (jsonschema/v5 does not assert it either); earlier
			// drafts may assert it, which the generated code would not.
			if ps.formatAsserted {
				err = fmt.Errorf("#%s: \"format\" is only supported in JSON Schema 2020-12, where it is an annotation", p)
			}
		case "maxItems":
			n.maxItems, err = count(k)
		case "minimum":
			n.minimum, err = number(k)
		case "maximum":
			n.maximum, err = number(k)
		case "exclusiveMinimum":
			n.exclMin, err = number(k)
		case "exclusiveMaximum":
			n.exclMax, err = number(k)
		case "pattern":
			if n.pattern, err = str(k); err == nil {
				if _, e := regexp.Compile(n.pattern); e != nil {
					err = fmt.Errorf("#%s: not a Go regular expression: %v", p, e)
				}
			}
		case "enum":
			var vals []json.RawMessage
			if e := json.Unmarshal(members[k], &vals); e != nil || len(vals) == 0 {
				return nil, fmt.Errorf("#%s: must be a non-empty array", p)
			}
			n.enum = compact(members[k])
		case "const":
			n.constant = compact(members[k])
		default:
			// x-… are extensions (x-mcp-header of 2026-07-28 mirrors a
			// parameter into an HTTP header): they never constrain values.
			if !annotations[k] && !strings.HasPrefix(k, "x-") {
				return nil, fmt.Errorf("#%s: unsupported keyword %q", p, k)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	// Keywords that only apply to one kind must come with that "type", so
	// the generated code knows which Go type to check and bind.
	need := func(k string, ok bool, want kind) error {
		if _, present := members[k]; present && !ok {
			return fmt.Errorf("#%s/%s: needs \"type\": %q next to it", ptr, esc(k), want)
		}
		return nil
	}
	isNum := n.kind == kindInteger || n.kind == kindNumber
	for _, c := range []struct {
		k    string
		ok   bool
		want kind
	}{
		{"properties", n.kind == kindObject, kindObject},
		{"required", n.kind == kindObject, kindObject},
		{"additionalProperties", n.kind == kindObject, kindObject},
		{"items", n.kind == kindArray, kindArray},
		{"minItems", n.kind == kindArray, kindArray},
		{"uniqueItems", n.kind == kindArray, kindArray},
		{"minProperties", n.kind == kindObject, kindObject},
		{"maxProperties", n.kind == kindObject, kindObject},
		{"multipleOf", isNum, kindNumber},
		{"maxItems", n.kind == kindArray, kindArray},
		{"minLength", n.kind == kindString, kindString},
		{"maxLength", n.kind == kindString, kindString},
		{"pattern", n.kind == kindString, kindString},
		{"minimum", isNum, kindNumber},
		{"maximum", isNum, kindNumber},
		{"exclusiveMinimum", isNum, kindNumber},
		{"exclusiveMaximum", isNum, kindNumber},
	} {
		if err := need(c.k, c.ok, c.want); err != nil {
			return nil, err
		}
	}

	ps.rawRefs(n, members)
	switch n.kind {
	case kindObject:
		if err := ps.object(n, members, name); err != nil {
			return nil, err
		}
	case kindArray:
		if raw, ok := members["items"]; ok {
			if n.items, err = ps.parseChild(raw, ptr+"/items", name+"Item"); err != nil {
				return nil, err
			}
		}
	case kindString:
		if n.enum != nil {
			var vals []string
			if json.Unmarshal(n.enum, &vals) == nil {
				n.strEnum = vals
				n.goName = name
				if err := ps.claim(name, ptr); err != nil {
					return nil, err
				}
				for i, v := range vals {
					c := name + goName(v)
					if _, taken := ps.names[c]; taken {
						c = fmt.Sprintf("%s%d", name, i)
					}
					if err := ps.claim(c, fmt.Sprintf("%s/enum/%d", ptr, i)); err != nil {
						return nil, err
					}
					n.consts = append(n.consts, c)
				}
			}
		}
	}
	return n, nil
}

// object reads properties, required and additionalProperties.
func (ps *parser) object(n *node, members map[string]json.RawMessage, name string) error {
	ptr := n.ptr
	var required []string
	if raw, ok := members["required"]; ok {
		if err := json.Unmarshal(raw, &required); err != nil {
			return fmt.Errorf("#%s/required: must be an array of strings", ptr)
		}
	}
	if raw, ok := members["additionalProperties"]; ok {
		var b bool
		if err := json.Unmarshal(raw, &b); err != nil {
			return fmt.Errorf("#%s/additionalProperties: only true or false is supported", ptr)
		}
		n.closed = !b
	}
	var props map[string]json.RawMessage
	if raw, ok := members["properties"]; ok {
		if err := json.Unmarshal(raw, &props); err != nil || props == nil {
			return fmt.Errorf("#%s/properties: must be an object", ptr)
		}
	}
	req := map[string]bool{}
	for i, r := range required {
		req[r] = true
		if _, ok := props[r]; !ok && (len(props) > 0 || n.closed) {
			// A typo, or a property removed but still required: no
			// argument could ever satisfy it (or it would be an unchecked
			// extra), so say so here rather than at every call.
			return fmt.Errorf("#%s/required/%d: %q is not one of the properties", ptr, i, r)
		}
	}
	if len(props) == 0 {
		// A map: required names and additionalProperties are still checked.
		for _, r := range required {
			n.props = append(n.props, &prop{name: r, required: true})
		}
		sort.Slice(n.props, func(i, j int) bool { return n.props[i].name < n.props[j].name })
		return nil
	}
	n.goName = name
	if err := ps.claim(name, ptr); err != nil {
		return err
	}
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	sort.Strings(names)
	fields := map[string]string{}
	for _, k := range names {
		if !validTag(k) {
			if ps.lenient {
				continue // a snapshot's: the struct cannot hold it (wild.go)
			}
			return fmt.Errorf("#%s/properties/%s: encoding/json cannot name a struct field %q (commas, quotes and backslashes are not allowed)", ptr, esc(k), k)
		}
		f := goName(k)
		if _, ok := fields[f]; ok && ps.lenient {
			// A snapshot's "a_b" beside "aB": number the later one.
			for i := 2; ; i++ {
				if _, taken := fields[fmt.Sprintf("%s%d", f, i)]; !taken {
					f = fmt.Sprintf("%s%d", f, i)
					break
				}
			}
		}
		if prev, ok := fields[f]; ok {
			return fmt.Errorf("#%s/properties/%s: Go field name %s is also the name of property %q", ptr, esc(k), f, prev)
		}
		fields[f] = k
		child, err := ps.parseChild(props[k], ptr+"/properties/"+esc(k), name+f)
		if err != nil {
			return err
		}
		n.props = append(n.props, &prop{name: k, field: f, required: req[k], n: child})
		delete(req, k)
	}
	// Required names without a declared property are checked for presence
	// only.
	extra := make([]string, 0, len(req))
	for r := range req {
		extra = append(extra, r)
	}
	sort.Strings(extra)
	for _, r := range extra {
		n.props = append(n.props, &prop{name: r, required: true})
	}
	sort.SliceStable(n.props, func(i, j int) bool { return n.props[i].name < n.props[j].name })
	return nil
}

// esc escapes a member name for a JSON pointer (RFC 6901).
func esc(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func compact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}

// goName turns a JSON name into an exported Go identifier:
// "get_weather" → GetWeather, "maxResults" → MaxResults, "id" → ID.
func goName(s string) string {
	var b strings.Builder
	var word []rune
	flush := func() {
		if len(word) == 0 {
			return
		}
		w := string(word)
		if up := strings.ToUpper(w); initialisms[up] {
			b.WriteString(up)
		} else {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
		word = word[:0]
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case r > 127 || !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'):
			flush()
		case r >= 'A' && r <= 'Z' && i > 0 && (rs[i-1] >= 'a' && rs[i-1] <= 'z' || rs[i-1] >= '0' && rs[i-1] <= '9'):
			flush()
			word = append(word, r)
		default:
			word = append(word, r)
		}
	}
	flush()
	out := b.String()
	if out == "" || out[0] >= '0' && out[0] <= '9' {
		out = "X" + out
	}
	return out
}

var initialisms = map[string]bool{
	"API": true, "HTTP": true, "ID": true, "JSON": true, "URI": true, "URL": true, "UUID": true,
}

// quote is strconv.Quote, named for what it is used for here.
func quote(s string) string { return strconv.Quote(s) }

// validTag reports whether encoding/json accepts s as a field name in a
// struct tag (its isValidTag); otherwise it would silently use the Go name.
func validTag(s string) bool {
	if s == "" || s == "-" { // "-" alone means: skip the field
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
