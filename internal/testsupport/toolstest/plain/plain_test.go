package plain

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/toolsupport"
)

// values are what each member is set to in turn: every kind, the edges of
// the raw helpers (-0, integers at and past 64 bits, exponents, escapes,
// invalid UTF-8) and the string rules of "s" (length, pattern).
var values = []string{
	`"abc"`, `""`, `"abcdef"`, `"ABC"`, `"é"`, `"\u00e9"`, `"a\u0000"`, "\"a\xffb\"", `"a\"b"`,
	`0`, `1`, `-0`, `-0.0`, `1.0`, `1e2`, `1E-2`, `-5`, `0.1`, `123456789.987654321`,
	`9223372036854775807`, `9223372036854775808`, `-9223372036854775808`, `-9223372036854775809`,
	`1` + strings.Repeat("0", 400), `true`, `false`, `null`, `{}`, `[]`, `["a"]`,
	`{"k":"v"}`, `{"k":1}`, `{"k":"v","j":2}`, `{"k":"v","j":2.5}`, `{"j":2}`, `{"k":"v","x":null}`,
	`{"k":"v","k":"w"}`, `{"\u006b":"v"}`, `{"k":"v"`,
}

// mutations of the object seed: each member removed, set to each value,
// duplicated; an extra member, an escaped key, whitespace, broken JSON.
func mutations(seed map[string]string, keys []string) []string {
	enc := func(m map[string]string, extra string) string {
		var b strings.Builder
		b.WriteString("{")
		first := true
		for _, k := range keys {
			v, ok := m[k]
			if !ok {
				continue
			}
			if !first {
				b.WriteString(",")
			}
			first = false
			b.WriteString(`"` + k + `":` + v)
		}
		if extra != "" {
			if !first {
				b.WriteString(",")
			}
			b.WriteString(extra)
		}
		b.WriteString("}")
		return b.String()
	}
	copyOf := func() map[string]string {
		m := map[string]string{}
		for k, v := range seed {
			m[k] = v
		}
		return m
	}
	base := enc(seed, "")
	out := []string{base, " " + base + "\n", base + "x", base[:len(base)-1], "[]", "null", `"x"`, "",
		enc(seed, `"extra":1`), enc(seed, `"\u0073":"abc"`), enc(seed, `"s":"zz"`), enc(seed, `"s":"ZZ"`),
		strings.ReplaceAll(base, ":", " : "), strings.ReplaceAll(base, ",", " ,\t")}
	for _, k := range keys {
		m := copyOf()
		delete(m, k)
		out = append(out, enc(m, ""))
		for _, v := range values {
			m := copyOf()
			m[k] = v
			out = append(out, enc(m, ""), enc(seed, `"`+k+`":`+v))
		}
	}
	return out
}

// same checks one input: when fast accepts, bind must accept it with the
// same value (compared as Go values and as JSON, which tells -0 from 0).
func same[T any](t *testing.T, in string, fastOK bool, fast T, slow *T, err error) bool {
	t.Helper()
	if !fastOK {
		return false
	}
	if err != nil {
		t.Errorf("%s: the fast binder accepts what the bind function rejects: %v", in, err)
		return true
	}
	a, _ := json.Marshal(fast)
	b, _ := json.Marshal(slow)
	if !reflect.DeepEqual(fast, *slow) || !bytes.Equal(a, b) {
		t.Errorf("%s: fast binder %s, bind function %s", in, a, b)
	}
	return true
}

func check[T any](t *testing.T, name string, inputs []string, fast func([]byte) (T, bool), fastArgs func(map[string]json.RawMessage) (T, bool), bind func(any, string) (T, error), decode func([]byte) (*T, error)) {
	accepted, argsAccepted, total := 0, 0, 0
	for _, in := range inputs {
		total++
		x, ok := fast([]byte(in))
		slow, err := toolsupport.Decode([]byte(in), bind)
		if same(t, in, ok, x, slow, err) {
			accepted++
		}
		// The generated Decode gives the bind function's answer either way.
		got, gotErr := decode([]byte(in))
		if (gotErr == nil) != (err == nil) || (err == nil && !reflect.DeepEqual(*got, *slow)) || (err != nil && gotErr.Error() != err.Error()) {
			t.Errorf("%s: Decode gives %v, %v; the bind function %v, %v", in, got, gotErr, slow, err)
		}
		if fastArgs == nil {
			continue
		}
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(in), &m) != nil {
			continue
		}
		x, ok = fastArgs(m)
		slow, err = toolsupport.BindArguments(m, bind)
		if same(t, in+" (arguments)", ok, x, slow, err) {
			argsAccepted++
		}
	}
	if accepted == 0 || accepted == total || (fastArgs != nil && argsAccepted == 0) {
		t.Fatalf("%s: the fast binder accepted %d of %d inputs (%d as arguments): the inputs do not exercise both outcomes", name, accepted, total, argsAccepted)
	}
	t.Logf("%s: %d inputs, %d taken by the fast binder, %d as arguments", name, total, accepted, argsAccepted)
}

// TestFastAgreesWithBind: a fast binder accepts only what its bind
// function accepts, and binds it to the same value.
func TestFastAgreesWithBind(t *testing.T) {
	closed := map[string]string{"s": `"abc"`, "n": `1.5`, "i": `7`, "b": `true`, "opt": `"x"`, "optN": `-2`, "optI": `0`, "optB": `false`, "o": `{"k":"v","j":3}`}
	keys := []string{"s", "n", "i", "b", "opt", "optN", "optI", "optB", "o"}
	check(t, "plain_closed in", mutations(closed, keys), fastPlainClosedArgs, fastArgsPlainClosedArgs, bindPlainClosedArgs, DecodePlainClosedArgs)
	check(t, "plain_closed out", mutations(map[string]string{"s": `"abc"`, "o": `{"k":"v"}`}, []string{"s", "o"}), fastPlainClosedResult, nil, bindPlainClosedResult, DecodePlainClosedResult)
	check(t, "plain_open in", mutations(map[string]string{"a": `"x"`}, []string{"a"}), fastPlainOpenArgs, fastArgsPlainOpenArgs, bindPlainOpenArgs, DecodePlainOpenArgs)
}

// TestArgumentsAgreeWithArgumentsOf: the Caller's generated encoder writes
// the object encoding/json writes for the struct, byte for byte (and so the
// members ArgumentsOf takes from it), nil as {}, and fails where
// encoding/json fails (NaN, infinities).
func TestArgumentsAgreeWithArgumentsOf(t *testing.T) {
	str := func(s string) *string { return &s }
	i64 := func(i int64) *int64 { return &i }
	f64 := func(f float64) *float64 { return &f }
	yes := true
	cases := []*PlainScalarsArgs{nil, {}, {S: "a<b>&c\u2028\u2029\"\\\x01", E: "b<", I: math.MinInt64, N: 1e21, B: true},
		{S: "\xff\xfeé", I: math.MaxInt64, N: 1e-7, Os: str(""), Oi: i64(-1), On: f64(math.Copysign(0, -1)), Ob: &yes},
		{N: 0.1}, {N: 123456789.125}, {N: -1e-6}, {N: 1e20}, {N: 5e-324}, {N: math.MaxFloat64},
		{N: math.NaN()}, {N: math.Inf(1)}, {On: f64(math.Inf(-1))}}
	for _, c := range cases {
		o := toolsupport.NewObject()
		gerr := argumentsPlainScalarsArgs(o, c)
		want, werr := toolsupport.ArgumentsOf(c)
		if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
			t.Errorf("%+v: errors %v and %v", c, gerr, werr)
		}
		if gerr != nil {
			o.Free()
			continue
		}
		raw := o.JSON()
		wantRaw := []byte("{}")
		if c != nil {
			wantRaw, _ = json.Marshal(c)
		}
		if !bytes.Equal(raw, wantRaw) {
			t.Errorf("%+v: wrote %s, encoding/json %s", c, raw, wantRaw)
		}
		got, err := toolsupport.ArgumentsMap(raw)
		o.Free()
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Errorf("%+v: %d members, ArgumentsOf %d", c, len(got), len(want))
		}
		for k, v := range want {
			if string(got[k]) != string(v) {
				t.Errorf("%+v: %s is %s, ArgumentsOf %s", c, k, got[k], v)
			}
		}
	}
}

// embeddingCaller is a ToolCaller embedding the bindings' ServerCaller with
// a CallTool of its own (a user's logging wrapper, say).
type embeddingCaller struct {
	*mcp.ServerCaller
	got chan *mcp.CallToolRequestParams
}

func (c embeddingCaller) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	c.got <- p
	return &mcp.CallToolResult{StructuredContent: json.RawMessage(`{}`)}, nil
}

// TestCallerKeepsOwnCallTool: a Caller calling a type that embeds the
// bindings' ServerCaller goes through that type's CallTool (the promoted
// CallToolJSON would bypass it), with the arguments as a map of their own
// (not the pooled buffer they were written in).
func TestCallerKeepsOwnCallTool(t *testing.T) {
	x, y := "x", "y"
	ec := embeddingCaller{got: make(chan *mcp.CallToolRequestParams, 1)}
	_, err := NewCaller(ec).PlainOpen(context.Background(), &PlainOpenArgs{A: &x})
	if err != nil {
		t.Fatal(err)
	}
	p := <-ec.got
	if p.Name != ToolPlainOpen || len(p.Arguments) != 1 || string(p.Arguments["a"]) != `"x"` {
		t.Fatalf("CallTool got %+v", p)
	}
	// The next call writes its arguments into the pooled buffer again.
	_, _ = NewCaller(ec).PlainOpen(context.Background(), &PlainOpenArgs{A: &y})
	<-ec.got
	if string(p.Arguments["a"]) != `"x"` {
		t.Errorf("the first call's arguments changed under it: %s", p.Arguments["a"])
	}
}
