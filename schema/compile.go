package schema

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
)

// Compiled is a schema file compiled by jsonschema/v5, from which any
// definition's validator can be had. Tests use it as the reference
// validator the generated code is compared against.
type Compiled struct {
	file     string
	url      string
	defsKey  string
	compiler *jsonschema.Compiler
	names    []string
}

// Compile compiles every definition of the schema in data with
// jsonschema/v5, so a schema that does not compile is refused before any
// code is generated. file names the schema in errors.
func Compile(file string, data []byte) (*Compiled, error) {
	root, err := decodeJSON(data)
	if err != nil {
		return nil, &Error{File: file, Msg: "invalid JSON", Err: err}
	}
	obj, _ := root.(map[string]any)
	c := jsonschema.NewCompiler()
	defsKey := "definitions"
	switch s, _ := obj["$schema"].(string); strings.TrimSuffix(s, "#") {
	case "http://json-schema.org/draft-07/schema":
		c.Draft = jsonschema.Draft7
	case "https://json-schema.org/draft/2020-12/schema":
		c.Draft = jsonschema.Draft2020
		defsKey = "$defs"
	default:
		return nil, errAt(file, "#/$schema", "unsupported JSON Schema dialect %q (want draft-07 or 2020-12)", s)
	}
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
	for _, name := range cs.names {
		if _, err := cs.Definition(name); err != nil {
			return nil, err
		}
	}
	return cs, nil
}

// Definition returns the compiled validator of the named definition.
func (c *Compiled) Definition(name string) (*jsonschema.Schema, error) {
	ptr := "#/" + c.defsKey + "/" + escapePointer(name)
	s, err := c.compiler.Compile(c.url + ptr)
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
