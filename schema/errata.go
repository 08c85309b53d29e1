package schema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Erratum is one correction mcpgen makes to an official schema where it
// contradicts the specification's own pages: the pages are normative, the
// schema is generated from TypeScript and sometimes narrower. The embedded
// files of package official stay exactly as published; the correction is
// made to the parsed document when an official schema is loaded (Load,
// LoadBytes) or compiled (Compile), so generation and `mcpgen validate`
// see the same corrected schema.
type Erratum struct {
	// Revision is the official revision the erratum applies to.
	Revision string `json:"revision"`
	// Pointer is the JSON pointer of the value replaced, e.g.
	// "#/$defs/ElicitResult/properties/content/additionalProperties/anyOf/1/type".
	Pointer string `json:"pointer"`
	// Upstream is the value the official schema has there, as compact
	// JSON. Loading fails if the schema no longer has it: the erratum is
	// then stale (upstream fixed or changed the schema) and must be
	// revisited rather than silently skipped.
	Upstream string `json:"upstream"`
	// Patched is the value mcpgen uses instead, as JSON.
	Patched string `json:"patched"`
	// Spec is the page and line of the specification (under
	// https://github.com/modelcontextprotocol/modelcontextprotocol/docs/specification/<revision>/)
	// the patched value follows.
	Spec string `json:"spec"`
	// Why says in one line what the page allows that the schema does not.
	Why string `json:"why"`
}

// String reads "2025-11-25 #/$defs/...: ... (client/elicitation.mdx:140)".
func (e Erratum) String() string {
	return fmt.Sprintf("%s %s: %s (spec %s)", e.Revision, e.Pointer, e.Why, e.Spec)
}

const elicitNumberWhy = `the page's Number Schema allows "type": "number" fields, whose answers are non-integer numbers; the schema admits only integers in ElicitResult.content`

// errata is the table of corrections, by revision. Keep it short: an entry
// is justified only by a spec page that says otherwise, named with its line.
var errata = []Erratum{
	{
		Revision: "2025-06-18",
		Pointer:  "#/definitions/ElicitResult/properties/content/additionalProperties/type",
		Upstream: `["string","integer","boolean"]`,
		Patched:  `["string","integer","number","boolean"]`,
		Spec:     "client/elicitation.mdx:243",
		Why:      elicitNumberWhy,
	},
	{
		Revision: "2025-11-25",
		Pointer:  "#/$defs/ElicitResult/properties/content/additionalProperties/anyOf/1/type",
		Upstream: `["string","integer","boolean"]`,
		Patched:  `["string","integer","number","boolean"]`,
		Spec:     "client/elicitation.mdx:140",
		Why:      elicitNumberWhy,
	},
	{
		Revision: "2026-07-28",
		Pointer:  "#/$defs/ElicitResult/properties/content/additionalProperties/anyOf/1/type",
		Upstream: `["string","integer","boolean"]`,
		Patched:  `["string","integer","number","boolean"]`,
		Spec:     "client/elicitation.mdx:144",
		Why:      elicitNumberWhy,
	},
}

// Errata lists the corrections mcpgen makes to the official schema of
// revision rev (none for a revision that needs none).
func Errata(rev string) []Erratum {
	var out []Erratum
	for _, e := range errata {
		if e.Revision == rev {
			out = append(out, e)
		}
	}
	return out
}

// applyErrata corrects obj, the parsed official schema of revision rev, in
// place and returns the errata applied and the corrected document as JSON
// (data itself when there is nothing to correct). A schema that is not
// official (rev "") is never touched: a user's schema means what it says.
func applyErrata(file, rev string, obj map[string]any, data []byte) ([]Erratum, []byte, error) {
	list := Errata(rev)
	if rev == "" || len(list) == 0 {
		return nil, data, nil
	}
	for _, e := range list {
		if err := e.apply(obj); err != nil {
			return nil, nil, errAt(file, e.Pointer, "mcpgen erratum (spec %s) no longer applies: %v; the official schema changed, so revisit the erratum in schema/errata.go", e.Spec, err)
		}
	}
	return reencode(file, list, obj)
}

// reencode returns list and obj, a schema the errata in list corrected, as
// JSON again.
func reencode(file string, list []Erratum, obj map[string]any) ([]Erratum, []byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(obj); err != nil {
		return nil, nil, &Error{File: file, Msg: "cannot re-encode the corrected schema", Err: err}
	}
	return list, buf.Bytes(), nil
}

// apply replaces the value at e.Pointer, which must be e.Upstream.
func (e Erratum) apply(obj map[string]any) error {
	segs := strings.Split(strings.TrimPrefix(e.Pointer, "#/"), "/")
	var parent any = obj
	for i, s := range segs {
		s = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
		var cur any
		var set func(any)
		switch p := parent.(type) {
		case map[string]any:
			v, ok := p[s]
			if !ok {
				return fmt.Errorf("no member %q", s)
			}
			cur, set = v, func(x any) { p[s] = x }
		case []any:
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 || n >= len(p) {
				return fmt.Errorf("no item %q", s)
			}
			cur, set = p[n], func(x any) { p[n] = x }
		default:
			return fmt.Errorf("%q is inside a scalar", s)
		}
		if i < len(segs)-1 {
			parent = cur
			continue
		}
		got, err := json.Marshal(cur)
		if err != nil {
			return err
		}
		if string(got) != e.Upstream {
			return fmt.Errorf("it has %s, the erratum expects %s", got, e.Upstream)
		}
		patched, err := decodeJSON([]byte(e.Patched))
		if err != nil {
			return fmt.Errorf("the patched value: %v", err)
		}
		set(patched)
	}
	return nil
}

// applyCoreErrata applies to an extension document root those errata of
// its core revision rev that fall inside a definition the extension copies
// (a pointer under #/$defs/<Name>/ or #/definitions/<Name>/ where root has
// that definition), and returns them and the corrected document.
func applyCoreErrata(file, rev string, root map[string]any, data []byte) ([]Erratum, []byte, error) {
	var list []Erratum
	for _, e := range Errata(rev) {
		segs := strings.SplitN(strings.TrimPrefix(e.Pointer, "#/"), "/", 3)
		if len(segs) < 2 {
			continue
		}
		if defs, ok := root[segs[0]].(map[string]any); ok {
			if _, ok := defs[segs[1]]; ok {
				list = append(list, e)
			}
		}
	}
	if len(list) == 0 {
		return nil, data, nil
	}
	for _, e := range list {
		if err := e.apply(root); err != nil {
			return nil, nil, errAt(file, e.Pointer, "mcpgen erratum of %s (spec %s) does not apply to the extension's copy: %v", rev, e.Spec, err)
		}
	}
	return reencode(file, list, root)
}
