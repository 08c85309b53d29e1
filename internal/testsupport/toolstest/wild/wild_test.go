package wild

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	mcp "github.com/mcpgen/mcpgen/generated/mcp20251125"
)

// server implements Tools the way a server someone else wrote would: it
// validates the arguments against the tool's schema as published (with
// jsonschema/v5, the reference), which is what covers the constructs the
// generated code leaves as raw JSON, and records what it was given.
type server struct {
	t       *testing.T
	schemas map[string]*jsonschema.Schema
	got     any
}

func (s *server) check(tool string, args any) error {
	s.got = args
	b, _ := json.Marshal(args)
	var v any
	json.Unmarshal(b, &v)
	if sch := s.schemas[tool]; sch == nil {
		return nil
	} else if err := sch.Validate(v); err != nil {
		return Errorf("%s: %v", tool, err)
	}
	return nil
}

func ok() *mcp.CallToolResult { return &mcp.CallToolResult{Content: []mcp.ContentBlock{}} }

func (s *server) AllOf(_ context.Context, a *AllOfArgs) (*mcp.CallToolResult, error) {
	return ok(), s.check(ToolAllOf, a)
}
func (s *server) OneOf(_ context.Context, a *OneOfArgs) (*mcp.CallToolResult, error) {
	return ok(), s.check(ToolOneOf, a)
}
func (s *server) Refs(_ context.Context, a *RefsArgs) (*RefsResult, error) {
	if err := s.check(ToolRefs, a); err != nil {
		return nil, err
	}
	return &RefsResult{Mid: RefsResultMid{X: (a.From.X + a.To.X) / 2, Y: (a.From.Y + a.To.Y) / 2}}, nil
}
func (s *server) Recursive(_ context.Context, a *RecursiveArgs) (*mcp.CallToolResult, error) {
	return ok(), s.check(ToolRecursive, a)
}
func (s *server) MixedEnum(_ context.Context, a *MixedEnumArgs) (*mcp.CallToolResult, error) {
	return ok(), s.check(ToolMixedEnum, a)
}
func (s *server) Maps(_ context.Context, a *MapsArgs) (*mcp.CallToolResult, error) {
	return ok(), s.check(ToolMaps, a)
}
func (s *server) Formats(_ context.Context, a *FormatsArgs) (*mcp.CallToolResult, error) {
	return ok(), s.check(ToolFormats, a)
}
func (s *server) Tuples(_ context.Context, a *TuplesArgs) (*mcp.CallToolResult, error) {
	return ok(), s.check(ToolTuples, a)
}
func (s *server) Odd(_ context.Context, a *OddArgs) (*OddResult, error) {
	if err := s.check(ToolOdd, a); err != nil {
		return nil, err
	}
	return &OddResult{Echo: map[string]json.RawMessage{"either": a.Either}}, nil
}

func (s *server) Draft07(_ context.Context, a *Draft07Args) (*mcp.CallToolResult, error) {
	return ok(), s.check(ToolDraft07, a)
}
func (s *server) Draft04(_ context.Context, a *Draft04Args) (*mcp.CallToolResult, error) {
	return ok(), s.check(ToolDraft04, a)
}
func (s *server) Ecma(_ context.Context, a *EcmaArgs) (*mcp.CallToolResult, error) {
	return ok(), s.check(ToolEcma, a)
}
func (s *server) RootOneOf(_ context.Context, a *RootOneOfArgs) (*mcp.CallToolResult, error) {
	return ok(), s.check(ToolRootOneOf, a)
}

// newServer compiles every tool's input schema from the snapshot.
func newServer(t *testing.T) *server {
	data, err := os.ReadFile("../../../../generator/tools/testdata/wild.json")
	if err != nil {
		t.Fatal(err)
	}
	var snap struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(data, &snap); err != nil {
		t.Fatal(err)
	}
	s := &server{t: t, schemas: map[string]*jsonschema.Schema{}}
	for _, tl := range snap.Tools {
		c := jsonschema.NewCompiler()
		c.Draft = jsonschema.Draft2020
		url := "mem:///" + tl.Name + ".json"
		if err := c.AddResource(url, bytes.NewReader(tl.InputSchema)); err != nil {
			t.Fatal(err)
		}
		sch, err := c.Compile(url)
		if err != nil {
			// An ECMA-262 pattern (formats' lookahead) that Go's regexp,
			// and so jsonschema/v5, cannot compile: a JavaScript server
			// would check it; this stand-in checks nothing for that tool.
			continue
		}
		s.schemas[tl.Name] = sch
	}
	return s
}

func ptr[T any](v T) *T { return &v }

// sameJSON reports whether a and b encode to the same JSON value (raw
// members may come back with their keys in another order).
func sameJSON(a, b any) bool {
	var x, y any
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	json.Unmarshal(ja, &x)
	json.Unmarshal(jb, &y)
	return reflect.DeepEqual(x, y)
}

// TestRoundTrip calls every tool through the generated Caller and Handler
// with valid typed arguments, one per construct: the arguments arrive as
// sent, and their JSON is valid against the schema the server published.
func TestRoundTrip(t *testing.T) {
	s := newServer(t)
	c := NewCaller(NewHandler(s))
	ctx := context.Background()
	calls := []struct {
		name string
		args any
		call func() error
	}{}
	add := func(name string, args any, call func() error) {
		calls = append(calls, struct {
			name string
			args any
			call func() error
		}{name, args, call})
	}
	allOf := &AllOfArgs{A: "x", B: ptr[int64](2)}
	add("allOf merged", allOf, func() error { _, err := c.AllOf(ctx, allOf); return err })
	oneOf := &OneOfArgs{Shape: json.RawMessage(`{"r":1.5}`), Unit: ptr(OneOfArgsUnitIn), Label: ptr("l")}
	add("oneOf raw, anyOf of consts an enum, nullable input a pointer", oneOf, func() error { _, err := c.OneOf(ctx, oneOf); return err })
	refs := &RefsArgs{From: RefsArgsFrom{X: 0, Y: 0}, To: RefsArgsTo{X: 2, Y: 4}, Color: ptr(RefsArgsColorGreen)}
	add("$ref/$defs and definitions", refs, func() error {
		res, err := c.Refs(ctx, refs)
		if err == nil && (res.Mid != RefsResultMid{X: 1, Y: 2}) {
			t.Errorf("refs: result %+v", res)
		}
		return err
	})
	rec := &RecursiveArgs{Tree: RecursiveArgsTree{Name: "root", Children: []json.RawMessage{json.RawMessage(`{"name":"leaf","children":[{"name":"leaf2"}]}`)}}}
	add("recursive", rec, func() error { _, err := c.Recursive(ctx, rec); return err })
	for _, v := range []string{`1`, `"one"`, `true`, `null`} {
		me := &MixedEnumArgs{V: json.RawMessage(v), K: ptr(MixedEnumArgsKB)}
		add("mixed enum "+v, me, func() error { _, err := c.MixedEnum(ctx, me); return err })
	}
	maps := &MapsArgs{Env: map[string]json.RawMessage{"HOME": json.RawMessage(`"/root"`)}, Opts: &MapsArgsOpts{Q: ptr(true)}}
	add("additionalProperties schema", maps, func() error { _, err := c.Maps(ctx, maps); return err })
	formats := &FormatsArgs{When: "2026-11-28T10:00:00Z", Mail: ptr("a@example.com"), Site: ptr("https://example.com/"), ID: ptr("123e4567-e89b-12d3-a456-426614174000")}
	add("formats, draft-07, ECMA pattern", formats, func() error { _, err := c.Formats(ctx, formats); return err })
	tuples := &TuplesArgs{Pair: json.RawMessage(`["a",1]`), List: []string{"x"}}
	add("prefixItems", tuples, func() error { _, err := c.Tuples(ctx, tuples); return err })
	d07 := &Draft07Args{Old: json.RawMessage(`["b",2.5]`), Seen: ptr("2026-11-28")}
	add("draft-07: items array, format", d07, func() error { _, err := c.Draft07(ctx, d07); return err })
	d04 := &Draft04Args{Pos: 0.5}
	add("draft-04: boolean exclusiveMinimum", d04, func() error { _, err := c.Draft04(ctx, d04); return err })
	ecma := &EcmaArgs{ID: "123e4567-e89b-12d3-a456-426614174000"}
	add("ECMA-262 pattern", ecma, func() error { _, err := c.Ecma(ctx, ecma); return err })
	rootOneOf := &RootOneOfArgs{B: ptr("b")}
	add("oneOf at the root", rootOneOf, func() error { _, err := c.RootOneOf(ctx, rootOneOf); return err })
	odd := &OddArgs{Either: json.RawMessage(`7`), Single: ptr("s"), Anything: json.RawMessage(`{"z":[1]}`), Notx: json.RawMessage(`"y"`),
		Cond: json.RawMessage(`{"a":1,"b":2}`), Pp: json.RawMessage(`{"x-a":"b"}`), C: json.RawMessage(`"fixed"`)}
	add("type lists, boolean schemas, not, if/then, patternProperties, const", odd, func() error {
		res, err := c.Odd(ctx, odd)
		if err == nil && string(res.Echo["either"]) != "7" {
			t.Errorf("odd: result %+v", res)
		}
		return err
	})
	for _, call := range calls {
		s.got = nil
		if err := call.call(); err != nil {
			t.Errorf("%s: %v", call.name, err)
			continue
		}
		if !sameJSON(s.got, call.args) {
			t.Errorf("%s: the server got %+v, want %+v", call.name, s.got, call.args)
		}
	}
}

// TestInvalid sends arguments each schema rejects: the generated checks
// catch what is bound (the Handler answers isError, an *ExecutionError to
// the caller); never a panic.
func TestInvalid(t *testing.T) {
	s := newServer(t)
	c := NewCaller(NewHandler(s))
	ctx := context.Background()
	for name, call := range map[string]func() error{
		"allOf: b below minimum":   func() error { _, err := c.AllOf(ctx, &AllOfArgs{A: "x", B: ptr[int64](0)}); return err },
		"$ref enum: not a color":   func() error { _, err := c.Refs(ctx, &RefsArgs{Color: ptr(RefsArgsColor("blue"))}); return err },
		"mixed enum: not a member": func() error { _, err := c.MixedEnum(ctx, &MixedEnumArgs{V: json.RawMessage(`2`)}); return err },
		"const: another value":     func() error { _, err := c.Odd(ctx, &OddArgs{C: json.RawMessage(`"other"`)}); return err },
	} {
		err := call()
		var ee *ExecutionError
		if !errors.As(err, &ee) {
			t.Errorf("%s: got %v, want an *ExecutionError", name, err)
		}
	}
}

// rawInvalid are arguments whose raw-JSON member (a construct bound to
// json.RawMessage) the published schema rejects, with the pointer of the
// value at fault, relative to the arguments.
var rawInvalid = []struct {
	name, tool, args, ptr, msg string
}{
	{"oneOf: neither shape", ToolOneOf, `{"shape":{"r":"wide"}}`, "/shape", "exactly one schema of oneOf"},
	{"recursive: child without name", ToolRecursive, `{"tree":{"name":"r","children":[{"name":"a","children":[{"children":[]}]}]}}`, "/tree/children/0/children/0", `missing required property "name"`},
	{"prefixItems: wrong item type", ToolTuples, `{"pair":[1,"a"]}`, "/pair/0", "want string"},
	{"additionalProperties schema: wrong value", ToolMaps, `{"env":{"A":"a","B":1}}`, "/env/B", "want string"},
	{"draft-07 tuple: wrong item type", ToolDraft07, `{"old":["a","b"]}`, "/old/1", "want number"},
	{"type list: boolean", ToolOdd, `{"either":true}`, "/either", "want string or integer"},
	{"false schema: a value", ToolOdd, `{"nothing":1}`, "/nothing", "no value is allowed"},
	{"not: the excluded value", ToolOdd, `{"notx":"x"}`, "/notx", "must not match"},
	{"if/then: then fails", ToolOdd, `{"cond":{"a":1}}`, "/cond", `missing required property "b"`},
	{"patternProperties: wrong value", ToolOdd, `{"pp":{"x-a":1}}`, "/pp/x-a", "want string"},
	// Assertions normalize dropped where the types stay: the whole
	// arguments are checked against the published schema.
	{"draft-04: exclusive minimum", ToolDraft04, `{"pos":0}`, "/pos", "greater than 0"},
	{"draft-04: below minimum", ToolDraft04, `{"pos":-1}`, "/pos", "greater than 0"},
	{"oneOf at the root: both", ToolRootOneOf, `{"a":"x","b":"y"}`, "", "exactly one schema of oneOf, matches 2"},
	{"oneOf at the root: neither", ToolRootOneOf, `{}`, "", "matches none"},
}

// TestCallerChecksRawJSON: the Caller checks each raw-JSON argument against
// its fragment of the published schema before sending, so the server is
// never called and the error is a *ValidationError naming the pointer.
// Without the check these calls reach the server (the stand-in's
// jsonschema/v5 would reject them as an *ExecutionError).
func TestCallerChecksRawJSON(t *testing.T) {
	s := newServer(t)
	c := NewCaller(NewHandler(s))
	ctx := context.Background()
	for _, tc := range rawInvalid {
		s.got = nil
		var err error
		switch tc.tool {
		case ToolOneOf:
			var a OneOfArgs
			decodeInto(t, tc.args, &a)
			_, err = c.OneOf(ctx, &a)
		case ToolRecursive:
			var a RecursiveArgs
			decodeInto(t, tc.args, &a)
			_, err = c.Recursive(ctx, &a)
		case ToolTuples:
			var a TuplesArgs
			decodeInto(t, tc.args, &a)
			_, err = c.Tuples(ctx, &a)
		case ToolMaps:
			var a MapsArgs
			decodeInto(t, tc.args, &a)
			_, err = c.Maps(ctx, &a)
		case ToolDraft07:
			var a Draft07Args
			decodeInto(t, tc.args, &a)
			_, err = c.Draft07(ctx, &a)
		case ToolOdd:
			var a OddArgs
			decodeInto(t, tc.args, &a)
			_, err = c.Odd(ctx, &a)
		case ToolDraft04:
			var a Draft04Args
			decodeInto(t, tc.args, &a)
			_, err = c.Draft04(ctx, &a)
		case ToolRootOneOf:
			var a RootOneOfArgs
			decodeInto(t, tc.args, &a)
			_, err = c.RootOneOf(ctx, &a)
		default:
			t.Fatalf("%s: no call for tool %s", tc.name, tc.tool)
		}
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Pointer != tc.ptr || !strings.Contains(ve.Message, tc.msg) {
			t.Errorf("%s: got %v, want a *ValidationError at %s containing %q", tc.name, err, tc.ptr, tc.msg)
		}
		if s.got != nil {
			t.Errorf("%s: the server was called with %+v", tc.name, s.got)
		}
	}
}

// TestHandlerChecksRawJSON: the Handler (a server generated from the
// snapshot, a fake in tests) checks the same raw members when it binds the
// arguments: the result is isError, naming the pointer under /arguments,
// and the tool method is not called.
func TestHandlerChecksRawJSON(t *testing.T) {
	s := newServer(t)
	h := NewHandler(s)
	for _, tc := range rawInvalid {
		s.got = nil
		var args map[string]json.RawMessage
		decodeInto(t, tc.args, &args)
		res, err := h.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: tc.tool, Arguments: args})
		if err != nil || res.IsError == nil || !*res.IsError {
			t.Errorf("%s: got %+v, %v, want an isError result", tc.name, res, err)
			continue
		}
		b, _ := json.Marshal(res.Content)
		if !strings.Contains(string(b), "/arguments"+tc.ptr+": ") {
			t.Errorf("%s: the result %s does not name /arguments%s", tc.name, b, tc.ptr)
		}
		if s.got != nil {
			t.Errorf("%s: the tool was called with %+v", tc.name, s.got)
		}
	}
}

func decodeInto(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
}
