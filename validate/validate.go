// Package validate checks JSON-RPC messages against an MCP revision: the
// message kind (request, notification, response, error), the method, and the
// params or result against the schema definition the revision gives them,
// with jsonschema/v5. Every problem names its line and JSON pointer.
package validate

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/mcpgen/mcpgen/schema"
)

// Problem is one reason a message is invalid.
type Problem struct {
	// Line is the 1-based line of the input where the message starts.
	Line int `json:"line"`
	// Pointer is the JSON pointer of the offending value inside the message
	// ("" for the message itself).
	Pointer string `json:"pointer"`
	// Msg says what is wrong.
	Msg string `json:"message"`
}

// String reads "line 3: /params/name: missing properties: 'name'".
func (p Problem) String() string {
	ptr := p.Pointer
	if ptr == "" {
		ptr = "(message)"
	}
	return fmt.Sprintf("line %d: %s: %s", p.Line, ptr, p.Msg)
}

// Validator validates messages of one revision.
type Validator struct {
	m *schema.Model
	c *schema.Compiled
	// pending maps the id of each request seen so far to its method, so a
	// later response's result is checked against that method's result.
	pending map[string]string
}

// New returns a Validator for the model m and its compiled schema c.
func New(m *schema.Model, c *schema.Compiled) *Validator {
	return &Validator{m: m, c: c, pending: map[string]string{}}
}

// Stream validates r: either one JSON document (a message, or an array of
// messages) or one message per line (blank lines skipped). It returns the
// number of messages read and their problems in input order.
func (v *Validator) Stream(r io.Reader) (int, []Problem, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return 0, nil, err
	}
	trimmed := bytes.TrimSpace(data)
	if json.Valid(trimmed) && bytes.Count(trimmed, []byte("\n")) > 0 {
		return v.document(data)
	}
	n := 0
	var problems []Problem
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for line := 1; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		n++
		problems = append(problems, v.value(line, "", text)...)
	}
	return n, problems, sc.Err()
}

// document validates a multi-line JSON document, naming the line where each
// element of a top-level array starts.
func (v *Validator) document(data []byte) (int, []Problem, error) {
	if t := bytes.TrimSpace(data); t[0] != '[' {
		return 1, v.message(lineAt(data, bytes.IndexByte(data, t[0])), "", t), nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return 0, nil, err
	}
	n := 0
	var problems []Problem
	for i := 0; dec.More(); i++ {
		off := int(dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return n, problems, err
		}
		for off < len(data) && strings.ContainsRune(" \t\r\n,", rune(data[off])) {
			off++
		}
		n++
		problems = append(problems, v.message(lineAt(data, off), fmt.Sprintf("/%d", i), raw)...)
	}
	return n, problems, nil
}

func lineAt(data []byte, off int) int { return 1 + bytes.Count(data[:off], []byte("\n")) }

// value validates one line: a message or a JSON-RPC batch.
func (v *Validator) value(line int, prefix string, raw []byte) []Problem {
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(t, &batch); err != nil {
			return []Problem{{Line: line, Pointer: prefix, Msg: "not JSON: " + err.Error()}}
		}
		var out []Problem
		for i, m := range batch {
			out = append(out, v.message(line, fmt.Sprintf("%s/%d", prefix, i), m)...)
		}
		return out
	}
	return v.message(line, prefix, raw)
}

// message validates one JSON-RPC message.
func (v *Validator) message(line int, prefix string, raw []byte) []Problem {
	bad := func(ptr, format string, args ...any) []Problem {
		return []Problem{{Line: line, Pointer: prefix + ptr, Msg: fmt.Sprintf(format, args...)}}
	}
	var msg struct {
		JSONRPC *string         `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  *string         `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(raw, &msg); err != nil {
		return bad("", "not a JSON-RPC message: %v", err)
	}
	if msg.JSONRPC == nil || *msg.JSONRPC != "2.0" {
		return bad("/jsonrpc", `must be "2.0"`)
	}
	var inst any
	if err := json.Unmarshal(raw, &inst); err != nil {
		return bad("", "not JSON: %v", err)
	}
	switch {
	case msg.Method != nil:
		me := v.lookup(*msg.Method)
		if me == nil {
			return bad("/method", "unknown method %q in revision %s", *msg.Method, v.m.Revision)
		}
		isRequest := msg.ID != nil
		if isRequest != (me.Kind == schema.Request) {
			if isRequest {
				return bad("/id", "%q is a notification in revision %s: it has no id", me.Name, v.m.Revision)
			}
			return bad("", "%q is a request in revision %s: it needs an id", me.Name, v.m.Revision)
		}
		if isRequest {
			v.pending[string(msg.ID)] = me.Name
		}
		return v.against(line, prefix, me.Definition, inst)
	case msg.ID != nil && msg.Result != nil:
		method, ok := v.pending[string(msg.ID)]
		if !ok {
			// Without the request we cannot know which result it is.
			return nil
		}
		delete(v.pending, string(msg.ID))
		me := v.lookup(method)
		var result any
		json.Unmarshal(msg.Result, &result)
		// resultType tells an InputRequiredResult from the method's own
		// result (2026-07-28 basic/index.mdx): the schema cannot, as every
		// member of InputRequiredResult but resultType is optional, so
		// without this any result would pass as one.
		obj, _ := result.(map[string]any)
		rt, _ := obj["resultType"].(string)
		if rt == "input_required" && slices.Contains(me.ResultAlternatives, "InputRequiredResult") {
			return v.against(line, prefix+"/result", "InputRequiredResult", result)
		}
		problems := v.against(line, prefix+"/result", me.Result, result)
		for _, alt := range me.ResultAlternatives {
			if len(problems) == 0 {
				break
			}
			if alt != "InputRequiredResult" && len(v.against(line, prefix+"/result", alt, result)) == 0 {
				problems = nil
			}
		}
		return problems
	case msg.ID != nil && msg.Error != nil:
		for _, def := range []string{"JSONRPCErrorResponse", "JSONRPCError"} {
			if v.m.Definition(def) != nil {
				return v.against(line, prefix, def, inst)
			}
		}
		return nil
	}
	return bad("", "neither a request, a notification nor a response (no method, result or error)")
}

func (v *Validator) lookup(method string) *schema.Method {
	for _, me := range v.m.Methods {
		if me.Name == method {
			return me
		}
	}
	return nil
}

// against validates inst against a definition and turns every leaf cause
// into a Problem.
func (v *Validator) against(line int, prefix, def string, inst any) []Problem {
	s, err := v.c.Definition(def)
	if err != nil {
		return []Problem{{Line: line, Pointer: prefix, Msg: err.Error()}}
	}
	err = s.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []Problem{{Line: line, Pointer: prefix, Msg: err.Error()}}
	}
	var out []Problem
	seen := map[string]bool{}
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			p := Problem{Line: line, Pointer: prefix + e.InstanceLocation, Msg: fmt.Sprintf("%s (%s)", e.Message, def)}
			if !seen[p.String()] {
				seen[p.String()] = true
				out = append(out, p)
			}
			return
		}
		for _, c := range branches(e) {
			walk(c)
		}
	}
	walk(ve)
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pointer < out[j].Pointer })
	return out
}

// branches are the causes of e worth reporting. For a failed anyOf or oneOf
// they are the branches whose constants matched (the branch the message
// meant: a text content block that lacks "text"), when there are any; the
// others only say the discriminator has another value.
func branches(e *jsonschema.ValidationError) []*jsonschema.ValidationError {
	if !strings.HasSuffix(e.KeywordLocation, "/anyOf") && !strings.HasSuffix(e.KeywordLocation, "/oneOf") {
		return e.Causes
	}
	var matched []*jsonschema.ValidationError
	for _, c := range e.Causes {
		if !failsConst(c) {
			matched = append(matched, c)
		}
	}
	if len(matched) == 0 {
		return e.Causes
	}
	return matched
}

// failsConst reports whether e's failure includes a const mismatch.
func failsConst(e *jsonschema.ValidationError) bool {
	if strings.HasSuffix(e.KeywordLocation, "/const") {
		return true
	}
	for _, c := range e.Causes {
		if failsConst(c) {
			return true
		}
	}
	return false
}
