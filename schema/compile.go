package schema

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Compiled is a schema file compiled by jsonschema/v5, from which any
// definition's validator can be had. Tests use it as the reference
// validator the generated code is compared against.
type Compiled struct {
	file     string
	url      string
	defsKey  string
	names    []string
	mu       sync.Mutex // jsonschema/v5 compiles lazily, into shared state
	compiler *jsonschema.Compiler
}

// Compile compiles the schema in data with jsonschema/v5: the whole
// document is validated against its dialect's meta-schema, once. Load
// does not use it (its own keyword checks, keywords.go, refuse at least
// what this refuses, at a fraction of the cost); mcpgen validate and the
// tests do. The
// validator of each definition is compiled when Definition first asks for
// it. file names the schema in errors. An official schema is compiled with
// mcpgen's errata applied (errata.go), as Load reads it, so what validates
// agrees with what the generated types accept.
func Compile(file string, data []byte) (*Compiled, error) {
	obj, err := parseRoot(file, data)
	if err != nil {
		return nil, err
	}
	d, err := dialectOf(file, obj)
	if err != nil {
		return nil, err
	}
	canonical, err := canonicalDigest(obj)
	if err != nil {
		return nil, &Error{File: file, Msg: "cannot digest the schema", Err: err}
	}
	if _, data, err = applyErrata(file, OfficialRevision(canonical), obj, data); err != nil {
		return nil, err
	}
	return compile(file, data, obj, d)
}

// dialect is one JSON Schema dialect mcpgen reads.
type dialect struct {
	name    string // as the Model names it
	defsKey string // where its definitions are
	draft   *jsonschema.Draft
}

// dialects maps a $schema URL (without a trailing #) to its dialect.
var dialects = map[string]dialect{
	"http://json-schema.org/draft-07/schema":       {"draft-07", "definitions", jsonschema.Draft7},
	"https://json-schema.org/draft/2020-12/schema": {"2020-12", "$defs", jsonschema.Draft2020},
}

// parseRoot decodes the schema file, which must be one JSON object.
func parseRoot(file string, data []byte) (map[string]any, error) {
	root, err := decodeJSON(data)
	if err != nil {
		return nil, &Error{File: file, Msg: "invalid JSON", Err: err}
	}
	obj, ok := root.(map[string]any)
	if !ok {
		return nil, errAt(file, "#", "the schema is not a JSON object")
	}
	return obj, nil
}

// dialectOf reads the root's $schema.
func dialectOf(file string, obj map[string]any) (dialect, error) {
	s, _ := obj["$schema"].(string)
	d, ok := dialects[strings.TrimSuffix(s, "#")]
	if !ok {
		return dialect{}, errAt(file, "#/$schema", "unsupported JSON Schema dialect %q (want draft-07 or 2020-12)", s)
	}
	return d, nil
}

// compile is Compile for a schema already parsed.
//
// It compiles the root once, which makes jsonschema/v5 validate every
// definition against the meta-schema, and leaves the definitions to
// Definition. Compiling each definition here made loading quadratic in the
// size of the schema: for 2020-12, jsonschema/v5 scans every subschema of
// the document for $dynamicAnchor each time it compiles one subschema
// (Compiler.compileDynamicAnchors), so compiling them all costs
// subschemas².
func compile(file string, data []byte, obj map[string]any, d dialect) (*Compiled, error) {
	c := jsonschema.NewCompiler()
	c.Draft = d.draft
	defsKey := d.defsKey
	url := "mcpgen:///schema.json"
	if err := c.AddResource(url, bytes.NewReader(data)); err != nil {
		return nil, &Error{File: file, Pointer: "#", Msg: "jsonschema/v5 cannot load the schema", Err: err}
	}
	defs, _ := obj[defsKey].(map[string]any)
	cs := &Compiled{file: file, url: url, defsKey: defsKey, compiler: c}
	for name := range defs {
		cs.names = append(cs.names, name)
	}
	sort.Strings(cs.names)
	if _, err := c.Compile(url); err != nil {
		ptr, msg := cs.explain(err)
		return nil, &Error{File: file, Pointer: ptr, Msg: "does not compile", Err: fmt.Errorf("%s", msg)}
	}
	return cs, nil
}

// explain turns a jsonschema/v5 error into the JSON pointer of the
// offending node and a message without the internal URL. A meta-schema
// violation is reported at its deepest cause, the most precise place.
func (c *Compiled) explain(err error) (ptr, msg string) {
	var se *jsonschema.SchemaError
	if errors.As(err, &se) && se.Err != nil {
		err = se.Err
	}
	var ve *jsonschema.ValidationError
	if errors.As(err, &ve) {
		for len(ve.Causes) > 0 {
			ve = ve.Causes[0]
		}
		return "#" + ve.InstanceLocation, ve.Message
	}
	return "#", strings.ReplaceAll(err.Error(), c.url, "")
}

// Definition returns the compiled validator of the named definition,
// compiling it on first use. It is safe for concurrent use.
func (c *Compiled) Definition(name string) (*jsonschema.Schema, error) {
	ptr := "#/" + c.defsKey + "/" + escapePointer(name)
	c.mu.Lock()
	s, err := c.compiler.Compile(c.url + ptr)
	c.mu.Unlock()
	if err != nil {
		var se *jsonschema.SchemaError
		msg := err.Error()
		if errors.As(err, &se) && se.Err != nil {
			msg = se.Err.Error()
		}
		msg = strings.ReplaceAll(msg, c.url, "")
		return nil, &Error{File: c.file, Pointer: ptr, Msg: "does not compile", Err: fmt.Errorf("%s", msg)}
	}
	return s, nil
}

// Names lists the definitions, sorted.
func (c *Compiled) Names() []string { return c.names }
