package toolsupport

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
)

// Decode decodes data and binds it with a generated bind function (which
// checks the decoded value against a schema and converts it).
func Decode[T any](data []byte, bind func(any, string) (T, error)) (*T, error) {
	v, err := Parse(data)
	if err != nil {
		return nil, err
	}
	x, err := bind(v, "")
	if err != nil {
		return nil, err
	}
	return &x, nil
}

// BindArguments binds the arguments of tools/call with a generated bind
// function; pointers in its errors are relative to the arguments.
func BindArguments[T any](args map[string]json.RawMessage, bind func(any, string) (T, error)) (*T, error) {
	v, err := arguments(args)
	if err != nil {
		return nil, err
	}
	x, err := bind(v, "")
	if err != nil {
		return nil, err
	}
	return &x, nil
}

// ArgumentsText lists the violations of the arguments of tools/call with
// pointers from the params (/arguments/ms), one per line after the first.
func ArgumentsText(err error) string {
	var list []*ValidationError
	switch e := err.(type) {
	case *ValidationError:
		list = []*ValidationError{e}
	case ValidationErrors:
		list = e
	default:
		return err.Error()
	}
	s := make([]string, len(list))
	for i, v := range list {
		s[i] = "/arguments" + v.Pointer + ": " + v.Message
	}
	return strings.Join(s, "\n")
}

// CheckResult encodes a tool's typed result and checks it against the
// output schema with the generated bind function, so the server never sends
// structured content its own schema rejects (server/tools.mdx: servers MUST
// provide structured results that conform to the output schema).
//
// text is what the text block says: the result's String method when it has
// one (the user writes it in a file of their own in the tools package),
// else the JSON.
func CheckResult[T any](res *T, check func(any, string) (T, error)) (structured []byte, text string, err error) {
	if res == nil {
		return nil, "", errors.New("nil result")
	}
	b, err := json.Marshal(res)
	if err != nil {
		return nil, "", err
	}
	v, err := Parse(b)
	if err != nil {
		return nil, "", err
	}
	if _, err := check(v, ""); err != nil {
		return nil, "", fmt.Errorf("result does not match the output schema: %w", err)
	}
	if s, ok := any(res).(fmt.Stringer); ok {
		return b, s.String(), nil
	}
	return b, string(b), nil
}

// ResultJSON is the JSON of a CallToolResult: one text block and, when not
// nil, structured content; resultType adds "resultType":"complete" (from
// 2026-07-28 on). server/tools.mdx recommends the text be the structured
// content's JSON, for clients that only read text; that is CheckResult's
// default.
func ResultJSON(structured []byte, text string, isError, resultType bool) []byte {
	b := make([]byte, 0, len(`{"content":[{"type":"text","text":""}],"structuredContent":,"isError":true,"resultType":"complete"}`)+len(text)+len(structured)+8)
	b = append(b, `{"content":[{"type":"text","text":`...)
	b = jsonscan.AppendString(b, text, false) // the text is for a model, not for a browser: no HTML escaping
	b = append(b, "}]"...)
	if structured != nil {
		b = append(b, `,"structuredContent":`...)
		b = append(b, structured...)
	}
	if isError {
		b = append(b, `,"isError":true`...)
	}
	if resultType {
		b = append(b, `,"resultType":"complete"`...)
	}
	return append(b, '}')
}

// ConvertResult carries a result of one bindings package over to another's
// type through its JSON, for a Handler of a second revision: resultType is
// required from 2026-07-28 on (modern) and unknown before.
func ConvertResult[T any](v any, modern bool) (*T, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if _, ok := m["resultType"]; modern && !ok {
		m["resultType"] = json.RawMessage(`"complete"`)
	} else if !modern {
		delete(m, "resultType")
	}
	if b, err = json.Marshal(m); err != nil {
		return nil, err
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// ArgumentsOf turns typed arguments into the arguments member of
// tools/call (never nil, so nil arguments are sent as {}).
func ArgumentsOf(args any) (map[string]json.RawMessage, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	return splitArguments(b)
}

// splitArguments splits the encoded arguments b into their members (values
// sharing b); null, as nil arguments encode, is no members.
func splitArguments(b []byte) (map[string]json.RawMessage, error) {
	if m, ok := membersFast(b); ok {
		return m, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	return m, nil
}

// TypedResult reads the answer to a typed call, whatever the bindings'
// result type: an isError result is an *ExecutionError with the text of its
// text blocks; otherwise the structured content, decoded and validated
// against the output schema by decode (server/tools.mdx: clients SHOULD
// validate structured results).
func TypedResult[T any](tool string, res any, decode func([]byte) (*T, error)) (*T, error) {
	var b []byte
	var err error
	if m, ok := res.(generatedJSON); ok && !nilPointer(res) {
		// The bindings' results marshal themselves, compact and HTML-safe;
		// json.Marshal would only check and compact that once more per call.
		b, err = m.MarshalJSON()
	} else {
		b, err = json.Marshal(res)
	}
	if err != nil {
		return nil, err
	}
	r, ok := toolResult{}, false
	if jsonscan.Valid(b) {
		r, ok = toolResultFast(b)
	}
	if !ok {
		if r, err = toolResultSlow(b); err != nil {
			return nil, err
		}
	}
	if r.isError {
		return nil, &ExecutionError{Message: strings.Join(r.texts, "\n")}
	}
	if len(r.structuredContent) == 0 || string(r.structuredContent) == "null" {
		return nil, fmt.Errorf("tool %s: the result has no structured content", tool)
	}
	x, err := decode(r.structuredContent)
	if err != nil {
		return nil, fmt.Errorf("tool %s: structured content: %w", tool, err)
	}
	return x, nil
}

// generatedJSON is what the bindings' generated types implement; their
// MarshalJSON writes what json.Marshal would write of them.
type generatedJSON interface {
	json.Marshaler
	AppendJSON(buf []byte) ([]byte, error)
}

// nilPointer reports whether v is a nil pointer, which json.Marshal writes
// as null without calling its MarshalJSON.
func nilPointer(v any) bool {
	r := reflect.ValueOf(v)
	return r.Kind() == reflect.Pointer && r.IsNil()
}

// toolResultSlow is what TypedResult reads of a result, with encoding/json.
func toolResultSlow(b []byte) (toolResult, error) {
	var r struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError           bool            `json:"isError"`
		StructuredContent json.RawMessage `json:"structuredContent"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return toolResult{}, err
	}
	out := toolResult{isError: r.IsError, structuredContent: r.StructuredContent}
	for _, c := range r.Content {
		if c.Type == "text" {
			out.texts = append(out.texts, c.Text)
		}
	}
	return out, nil
}
