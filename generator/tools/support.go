package tools

// supportSource is the part of a generated tools package that does not
// depend on the tools file or the bindings: the error types and the
// helpers the generated bind functions call. It is plain text rather than
// jennifer code because it never varies; it imports only the standard
// library.
const supportSource = `
import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// ValidationError says where a value breaks its schema: Pointer is the JSON
// pointer of the offending value (relative to what was decoded, "" for the
// whole value) and Message what is wrong with it.
type ValidationError struct {
	Pointer string
	Message string
}

// Error formats the pointer and the message.
func (e *ValidationError) Error() string {
	p := e.Pointer
	if p == "" {
		p = "(root)"
	}
	return p + ": " + e.Message
}

// ExecutionError is a tool failure the model should see: the dispatcher
// answers it with a result whose isError is true and whose text is Message,
// rather than with a JSON-RPC error (server/tools.mdx, "Error Handling":
// API failures and business logic errors are tool execution errors).
type ExecutionError struct {
	Message string
}

// Error returns the message.
func (e *ExecutionError) Error() string { return e.Message }

// Errorf returns an *ExecutionError with the formatted message; return it
// from a tool method to report a failure the model can correct.
func Errorf(format string, args ...any) error {
	return &ExecutionError{Message: fmt.Sprintf(format, args...)}
}

// ValidationErrors are several violations of one value, in the order of
// its members; errors.As finds the first *ValidationError.
type ValidationErrors []*ValidationError

// Error lists the violations.
func (e ValidationErrors) Error() string {
	s := make([]string, len(e))
	for i, v := range e {
		s[i] = v.Error()
	}
	return strings.Join(s, "; ")
}

// Unwrap returns the violations, for errors.As and errors.Is.
func (e ValidationErrors) Unwrap() []error {
	out := make([]error, len(e))
	for i, v := range e {
		out[i] = v
	}
	return out
}

// tvErrors collects the violations of one object.
type tvErrors []*ValidationError

// add records err's violations and reports whether there were none.
func (t *tvErrors) add(err error) bool {
	switch err := err.(type) {
	case nil:
		return true
	case *ValidationError:
		*t = append(*t, err)
	case ValidationErrors:
		*t = append(*t, err...)
	default:
		*t = append(*t, &ValidationError{Message: err.Error()})
	}
	return false
}

func (t tvErrors) err() error {
	switch len(t) {
	case 0:
		return nil
	case 1:
		return t[0]
	}
	return ValidationErrors(t)
}

func tvErr(p, format string, args ...any) *ValidationError {
	return &ValidationError{Pointer: p, Message: fmt.Sprintf(format, args...)}
}

// tvParse decodes one JSON value, keeping numbers exact.
func tvParse(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, &ValidationError{Message: "not JSON: " + err.Error()}
	}
	if _, err := d.Token(); err != io.EOF {
		return nil, &ValidationError{Message: "not JSON: data after the value"}
	}
	return v, nil
}

// tvArguments turns the arguments of tools/call into the value the input
// schema checks; absent arguments are the empty object.
func tvArguments(args map[string]json.RawMessage) (any, error) {
	m := make(map[string]any, len(args))
	for k, raw := range args {
		v, err := tvParse(raw)
		if err != nil {
			err.(*ValidationError).Pointer = "/" + tvEsc(k)
			return nil, err
		}
		m[k] = v
	}
	return m, nil
}

func tvKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "object"
	case []any:
		return "array"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

func tvObject(v any, p string) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, tvErr(p, "want object, got %s", tvKind(v))
	}
	return m, nil
}

func tvArray(v any, p string) ([]any, error) {
	a, ok := v.([]any)
	if !ok {
		return nil, tvErr(p, "want array, got %s", tvKind(v))
	}
	return a, nil
}

func tvString(v any, p string) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", tvErr(p, "want string, got %s", tvKind(v))
	}
	return s, nil
}

func tvBool(v any, p string) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, tvErr(p, "want boolean, got %s", tvKind(v))
	}
	return b, nil
}

// tvRat is n as an exact rational, or nil for numbers whose exponent is so
// large that computing with them would cost more than any tool is worth.
func tvRat(n string) *big.Rat {
	if i := strings.IndexAny(n, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(n[i+1:], "+"))
		if err != nil || e > 400 || e < -400 {
			return nil
		}
	}
	r, ok := new(big.Rat).SetString(n)
	if !ok {
		return nil
	}
	return r
}

func tvNumber(v any, p string) (*big.Rat, error) {
	n, ok := v.(json.Number)
	if !ok {
		return nil, tvErr(p, "want number, got %s", tvKind(v))
	}
	r := tvRat(n.String())
	if r == nil {
		return nil, tvErr(p, "number %s is out of the supported range", n)
	}
	return r, nil
}

// tvInteger accepts what JSON Schema calls an integer (7, 7.0, 7e2) that
// fits an int64.
func tvInteger(v any, p string) (*big.Rat, int64, error) {
	r, err := tvNumber(v, p)
	if err != nil {
		if _, ok := v.(json.Number); !ok {
			err = tvErr(p, "want integer, got %s", tvKind(v))
		}
		return nil, 0, err
	}
	if !r.IsInt() {
		return nil, 0, tvErr(p, "want integer, got %s", v)
	}
	if !r.Num().IsInt64() {
		return nil, 0, tvErr(p, "integer %s does not fit in 64 bits", v)
	}
	return r, r.Num().Int64(), nil
}

func tvFloat(r *big.Rat) float64 {
	f, _ := r.Float64()
	return f
}

// tvBounds checks r against a bound given as a JSON number literal; op is
// one of >=, <=, >, <.
func tvBound(r *big.Rat, op, bound string, p string) error {
	b, _ := new(big.Rat).SetString(bound)
	c := r.Cmp(b)
	ok := false
	switch op {
	case ">=":
		ok = c >= 0
	case "<=":
		ok = c <= 0
	case ">":
		ok = c > 0
	case "<":
		ok = c < 0
	}
	if !ok {
		words := map[string]string{">=": "at least", "<=": "at most", ">": "greater than", "<": "less than"}
		return tvErr(p, "must be %s %s, got %s", words[op], bound, r.RatString())
	}
	return nil
}

func tvLength(s string, min, max int, p string) error {
	n := utf8.RuneCountInString(s)
	if min >= 0 && n < min {
		return tvErr(p, "must be at least %d characters long, got %d", min, n)
	}
	if max >= 0 && n > max {
		return tvErr(p, "must be at most %d characters long, got %d", max, n)
	}
	return nil
}

func tvItems(a []any, min, max int, p string) error {
	if min >= 0 && len(a) < min {
		return tvErr(p, "must have at least %d items, got %d", min, len(a))
	}
	if max >= 0 && len(a) > max {
		return tvErr(p, "must have at most %d items, got %d", max, len(a))
	}
	return nil
}

func tvProps(m map[string]any, min, max int, p string) error {
	if min >= 0 && len(m) < min {
		return tvErr(p, "must have at least %d properties, got %d", min, len(m))
	}
	if max >= 0 && len(m) > max {
		return tvErr(p, "must have at most %d properties, got %d", max, len(m))
	}
	return nil
}

func tvUnique(a []any, p string) error {
	for i := range a {
		for j := 0; j < i; j++ {
			if tvEqual(a[i], a[j]) {
				return tvErr(p, "items %d and %d are equal (uniqueItems)", j, i)
			}
		}
	}
	return nil
}

func tvMultiple(r *big.Rat, m string, p string) error {
	d, _ := new(big.Rat).SetString(m)
	if !new(big.Rat).Quo(r, d).IsInt() {
		return tvErr(p, "must be a multiple of %s, got %s", m, r.RatString())
	}
	return nil
}

// tvRequired reports every missing name, in the order given (sorted by
// the generator).
func tvRequired(m map[string]any, p string, names ...string) error {
	var errs tvErrors
	for _, n := range names {
		if _, ok := m[n]; !ok {
			errs.add(tvErr(p, "missing required property %q", n))
		}
	}
	return errs.err()
}

// tvClosed reports every member, in sorted order, that allowed does not
// name (additionalProperties: false).
func tvClosed(m map[string]any, p string, allowed ...string) error {
	var bad []string
	for k := range m {
		found := false
		for _, a := range allowed {
			if a == k {
				found = true
				break
			}
		}
		if !found {
			bad = append(bad, k)
		}
	}
	sort.Strings(bad)
	var errs tvErrors
	for _, b := range bad {
		errs.add(tvErr(p+"/"+tvEsc(b), "property %q is not allowed", b))
	}
	return errs.err()
}

func tvEsc(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

// tvRaw is v written back as JSON.
func tvRaw(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// tvMap is an object bound to map[string]json.RawMessage (never nil, so an
// explicit {} survives).
func tvMap(m map[string]any) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		out[k] = tvRaw(v)
	}
	return out
}

// tvLits parses the literal array of an enum (or a one-element array for a
// const) written by the generator.
func tvLits(s string) []any {
	v, err := tvParse([]byte(s))
	if err != nil {
		panic(err)
	}
	return v.([]any)
}

// tvOneOf checks v against enum (or const) literals with JSON equality:
// numbers by value (1 equals 1.0), objects regardless of member order.
func tvOneOf(v any, lits []any, p string) error {
	for _, l := range lits {
		if tvEqual(v, l) {
			return nil
		}
	}
	if len(lits) == 1 {
		return tvErr(p, "must be %s", tvRaw(lits[0]))
	}
	return tvErr(p, "must be one of %s", tvRaw(lits))
}

func tvEqual(a, b any) bool {
	switch a := a.(type) {
	case json.Number:
		b, ok := b.(json.Number)
		if !ok {
			return false
		}
		ra, rb := tvRat(a.String()), tvRat(b.String())
		if ra == nil || rb == nil {
			return a == b
		}
		return ra.Cmp(rb) == 0
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, v := range a {
			w, ok := b[k]
			if !ok || !tvEqual(v, w) {
				return false
			}
		}
		return true
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !tvEqual(a[i], b[i]) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}

// tvResult is the JSON of a CallToolResult: one text block and, when not
// nil, structured content. server/tools.mdx recommends the text be the
// structured content's JSON, for clients that only read text; that is
// tvCheckResult's default.
func tvResult(structured []byte, text string, isError, resultType bool) []byte {
	var t bytes.Buffer
	enc := json.NewEncoder(&t)
	enc.SetEscapeHTML(false) // the text is for a model, not for a browser
	enc.Encode(text)
	var b bytes.Buffer
	b.WriteString(` + "`" + `{"content":[{"type":"text","text":` + "`" + `)
	b.Write(bytes.TrimSuffix(t.Bytes(), []byte("\n")))
	b.WriteString("}]")
	if structured != nil {
		b.WriteString(` + "`" + `,"structuredContent":` + "`" + `)
		b.Write(structured)
	}
	if isError {
		b.WriteString(` + "`" + `,"isError":true` + "`" + `)
	}
	if resultType {
		b.WriteString(` + "`" + `,"resultType":"complete"` + "`" + `)
	}
	b.WriteString("}")
	return b.Bytes()
}

// tvCheckResult encodes a tool's typed result and checks it against the
// output schema with the generated bind function, so the server never sends
// structured content its own schema rejects (server/tools.mdx: servers MUST
// provide structured results that conform to the output schema).
//
// text is what the text block says: the result's String method when it has
// one (write it in a file of your own in this package), else the JSON.
func tvCheckResult[T any](res *T, check func(any, string) (T, error)) (structured []byte, text string, err error) {
	if res == nil {
		return nil, "", errors.New("nil result")
	}
	b, err := json.Marshal(res)
	if err != nil {
		return nil, "", err
	}
	v, err := tvParse(b)
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

// tvArgumentsText lists the violations of the arguments of tools/call with
// pointers from the params (/arguments/ms), one per line after the first.
func tvArgumentsText(err error) string {
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

// tvBindArguments binds the arguments of tools/call with a generated bind
// function; pointers in its errors are relative to the arguments.
func tvBindArguments[T any](args map[string]json.RawMessage, bind func(any, string) (T, error)) (*T, error) {
	v, err := tvArguments(args)
	if err != nil {
		return nil, err
	}
	x, err := bind(v, "")
	if err != nil {
		return nil, err
	}
	return &x, nil
}

// tvConvert carries a result of one bindings package over to another's type
// through its JSON, for a Handler of a second revision: resultType is
// required from 2026-07-28 on (modern) and unknown before.
func tvConvert[T any](v any, modern bool) (*T, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if _, ok := m["resultType"]; modern && !ok {
		m["resultType"] = json.RawMessage(` + "`" + `"complete"` + "`" + `)
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

// tvArgs turns typed arguments into the arguments member of tools/call.
func tvArgs(args any) (map[string]json.RawMessage, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]json.RawMessage{} // nil arguments encode as null
	}
	return m, nil
}

// tvTyped reads the answer to a typed call, whatever the bindings' result
// type: an isError result is an *ExecutionError with the text of its text
// blocks; otherwise the structured content, decoded and validated against
// the output schema (server/tools.mdx: clients SHOULD validate structured
// results).
func tvTyped[T any](tool string, res any, decode func([]byte) (*T, error)) (*T, error) {
	b, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	var r struct {
		Content []struct {
			Type string ` + "`" + `json:"type"` + "`" + `
			Text string ` + "`" + `json:"text"` + "`" + `
		} ` + "`" + `json:"content"` + "`" + `
		IsError           bool            ` + "`" + `json:"isError"` + "`" + `
		StructuredContent json.RawMessage ` + "`" + `json:"structuredContent"` + "`" + `
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	if r.IsError {
		var texts []string
		for _, c := range r.Content {
			if c.Type == "text" {
				texts = append(texts, c.Text)
			}
		}
		return nil, &ExecutionError{Message: strings.Join(texts, "\n")}
	}
	if len(r.StructuredContent) == 0 || string(r.StructuredContent) == "null" {
		return nil, fmt.Errorf("tool %s: the result has no structured content", tool)
	}
	x, err := decode(r.StructuredContent)
	if err != nil {
		return nil, fmt.Errorf("tool %s: structured content: %w", tool, err)
	}
	return x, nil
}

// tvDecode decodes data and binds it with a generated bind function.
func tvDecode[T any](data []byte, bind func(any, string) (T, error)) (*T, error) {
	v, err := tvParse(data)
	if err != nil {
		return nil, err
	}
	x, err := bind(v, "")
	if err != nil {
		return nil, err
	}
	return &x, nil
}
`
