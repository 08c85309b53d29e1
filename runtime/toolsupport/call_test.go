package toolsupport

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// point is a result type with the bind function the generator would write
// for {"type":"object","properties":{"x":{"type":"integer","minimum":0}},
// "required":["x"],"additionalProperties":false}.
type point struct {
	X int64 `json:"x"`
}

func bindPoint(v any, p string) (point, error) {
	var x point
	m, err := AsObject(v, p)
	if err != nil {
		return x, err
	}
	var errs Violations
	errs.Add(Required(m, p, "x"))
	errs.Add(Closed(m, p, "x"))
	if w, ok := m["x"]; ok {
		r, i, err := AsInteger(w, p+"/x")
		if err == nil {
			err = Bound(r, ">=", "0", p+"/x")
		}
		if errs.Add(err) {
			x.X = i
		}
	}
	return x, errs.Err()
}

func decodePoint(data []byte) (*point, error) { return Decode(data, bindPoint) }

// named has a String method, which the text block uses.
type named struct {
	X int64 `json:"x"`
}

func (n named) String() string { return fmt.Sprintf("x is %d", n.X) }

func TestDecodeAndBind(t *testing.T) {
	p, err := decodePoint([]byte(`{"x":3.0}`))
	if err != nil || p.X != 3 {
		t.Fatalf("Decode: %+v, %v", p, err)
	}
	_, err = decodePoint([]byte(`{"x":-1,"y":0}`))
	if err == nil || err.Error() != `/y: property "y" is not allowed; /x: must be at least 0, got -1` {
		t.Errorf("Decode of a bad value: %v", err)
	}
	args := map[string]json.RawMessage{"x": json.RawMessage(`-2`), "a/b": json.RawMessage(`1`)}
	_, err = BindArguments(args, bindPoint)
	if got := ArgumentsText(err); got != "/arguments/a~1b: property \"a/b\" is not allowed\n/arguments/x: must be at least 0, got -2" {
		t.Errorf("ArgumentsText: %q", got)
	}
	args = map[string]json.RawMessage{"x": json.RawMessage(`{`)}
	_, err = BindArguments(args, bindPoint)
	wantViolation(t, "an argument that is not JSON", err, "/x", "not JSON")
	if got, err := BindArguments(nil, bindPoint); err == nil {
		t.Errorf("absent arguments bound to %+v, want the required x missing", got)
	} else if ArgumentsText(err) != `/arguments: missing required property "x"` {
		t.Errorf("absent arguments: %q", ArgumentsText(err))
	}
	if got := ArgumentsText(errors.New("plain")); got != "plain" {
		t.Errorf("ArgumentsText of a plain error: %q", got)
	}
}

func TestCheckResult(t *testing.T) {
	b, text, err := CheckResult(&point{X: 1}, bindPoint)
	if err != nil || string(b) != `{"x":1}` || text != `{"x":1}` {
		t.Errorf("CheckResult: %s, %q, %v", b, text, err)
	}
	_, _, err = CheckResult(&point{X: -1}, bindPoint)
	var ve *ValidationError
	if !errors.As(err, &ve) || !strings.HasPrefix(err.Error(), "result does not match the output schema: /x:") {
		t.Errorf("a result its schema rejects: %v", err)
	}
	if _, _, err := CheckResult[point](nil, bindPoint); err == nil {
		t.Error("nil result accepted")
	}
	bindNamed := func(v any, p string) (named, error) { x, err := bindPoint(v, p); return named(x), err }
	if _, text, err := CheckResult(&named{X: 4}, bindNamed); err != nil || text != "x is 4" {
		t.Errorf("a result with a String method: %q, %v", text, err)
	}
}

func TestResultJSON(t *testing.T) {
	for _, c := range []struct {
		structured      []byte
		text            string
		isError, modern bool
		want            string
	}{
		{[]byte(`{"x":1}`), `{"x":1}`, false, false, `{"content":[{"type":"text","text":"{\"x\":1}"}],"structuredContent":{"x":1}}`},
		{nil, "a <b> & \"c\"\n", true, true, `{"content":[{"type":"text","text":"a <b> & \"c\"\n"}],"isError":true,"resultType":"complete"}`},
	} {
		got := ResultJSON(c.structured, c.text, c.isError, c.modern)
		if string(got) != c.want {
			t.Errorf("ResultJSON:\n got %s\nwant %s", got, c.want)
		}
		if !json.Valid(got) {
			t.Errorf("ResultJSON is not JSON: %s", got)
		}
	}
}

func TestConvertResult(t *testing.T) {
	type result struct {
		Content    []any  `json:"content"`
		ResultType string `json:"resultType,omitempty"`
	}
	legacy := map[string]any{"content": []any{}}
	got, err := ConvertResult[result](legacy, true)
	if err != nil || got.ResultType != "complete" {
		t.Errorf("to a modern revision: %+v, %v", got, err)
	}
	got, err = ConvertResult[result](map[string]any{"content": []any{}, "resultType": "complete"}, false)
	if err != nil || got.ResultType != "" {
		t.Errorf("to a legacy revision: %+v, %v", got, err)
	}
	if _, err := ConvertResult[result]([]int{1}, true); err == nil {
		t.Error("a result that is not an object converted")
	}
}

func TestArgumentsOf(t *testing.T) {
	m, err := ArgumentsOf((*point)(nil))
	if err != nil || m == nil || len(m) != 0 {
		t.Errorf("nil arguments: %#v, %v; want {}", m, err)
	}
	m, err = ArgumentsOf(&point{X: 2})
	if err != nil || string(m["x"]) != "2" {
		t.Errorf("ArgumentsOf: %#v, %v", m, err)
	}
}

func TestTypedResult(t *testing.T) {
	res := map[string]any{"content": []any{map[string]any{"type": "text", "text": "{}"}}, "structuredContent": map[string]any{"x": 5}}
	p, err := TypedResult("t", res, decodePoint)
	if err != nil || p.X != 5 {
		t.Errorf("structured result: %+v, %v", p, err)
	}
	res = map[string]any{"content": []any{
		map[string]any{"type": "text", "text": "first"}, map[string]any{"type": "image", "data": "x"}, map[string]any{"type": "text", "text": "second"},
	}, "isError": true}
	var ee *ExecutionError
	if _, err := TypedResult("t", res, decodePoint); !errors.As(err, &ee) || ee.Message != "first\nsecond" {
		t.Errorf("isError result: %v, want an *ExecutionError with the text blocks", err)
	}
	for _, sc := range []any{nil, map[string]any{"x": -1}} {
		res = map[string]any{"content": []any{}, "structuredContent": sc}
		if _, err := TypedResult("t", res, decodePoint); err == nil || !strings.HasPrefix(err.Error(), "tool t: ") {
			t.Errorf("structured content %v: %v, want an error naming the tool", sc, err)
		}
	}
}

func TestErrorsForUsers(t *testing.T) {
	err := Errorf("no such city: %s", "Atlantis")
	var ee *ExecutionError
	if !errors.As(err, &ee) || ee.Message != "no such city: Atlantis" || err.Error() != ee.Message {
		t.Errorf("Errorf: %#v", err)
	}
	if got := (&ValidationError{Message: "m"}).Error(); got != "(root): m" {
		t.Errorf("a violation of the whole value: %q", got)
	}
}
