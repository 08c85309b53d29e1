// Tests of the code mcpgen tools generates, run on the package generated
// from generator/tools/testdata/kitchen.json (every supported keyword).
package kitchen

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v5"

	mcp "github.com/mcpgen/mcpgen/generated/mcp20251125"
	"github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

func ptr[T any](v T) *T { return &v }

// full sets every field of every generated argument type, so a field added
// to the schema without a value here fails TestFullIsFull.
var full = SearchItemsArgs{
	Anything: json.RawMessage(`{"any":[1,"two",null]}`),
	Exact:    ptr(false),
	Extra:    map[string]json.RawMessage{"k": json.RawMessage(`0`)},
	Labels:   map[string]json.RawMessage{"a": json.RawMessage(`"b"`)},
	Page:     ptr(int64(-6)),
	Site:     ptr("https://example.com"),
	Filter:   &SearchItemsArgsFilter{Field: "name", Op: json.RawMessage(`"eq"`), Values: []int64{1, 3}},
	Limit:    ptr(int64(1)),
	Order:    ptr(SearchItemsArgsOrderByName),
	Points:   []SearchItemsArgsPointsItem{{X: 0.5, Y: -2}},
	Query:    "q",
	Score:    ptr(1.25),
	Tags:     []string{"abc"},
}

// argValues are the argument values of the round trip: full, minimal, and
// explicit empties that must survive (an empty array is not an absent one).
var argValues = []SearchItemsArgs{
	full,
	{Query: "minimal"},
	{Query: "empties", Extra: map[string]json.RawMessage{"k": json.RawMessage(`null`)}, Points: []SearchItemsArgsPointsItem{}, Tags: []string{"a"},
		Filter: &SearchItemsArgsFilter{Field: "", Values: []int64{}}, Exact: ptr(true), Limit: ptr(int64(100))},
}

func TestFullIsFull(t *testing.T) {
	var walk func(v reflect.Value, path string)
	walk = func(v reflect.Value, path string) {
		switch v.Kind() {
		case reflect.Pointer:
			if v.IsNil() {
				t.Errorf("%s is nil: give it a value in full", path)
				return
			}
			walk(v.Elem(), path)
		case reflect.Struct:
			for i := 0; i < v.NumField(); i++ {
				walk(v.Field(i), path+"."+v.Type().Field(i).Name)
			}
		case reflect.Slice:
			if v.Len() == 0 {
				t.Errorf("%s is empty: give it an element in full", path)
				return
			}
			if v.Type().Elem().Kind() == reflect.Struct {
				walk(v.Index(0), path+"[0]")
			}
		case reflect.Map:
			if v.Len() == 0 {
				t.Errorf("%s is empty", path)
			}
		}
	}
	walk(reflect.ValueOf(full), "full")
}

// TestRoundTrip: every argument and result type encodes with encoding/json
// and decodes with the generated decoder to an equal value; encoding/json
// decodes the same bytes to the same value.
func TestRoundTrip(t *testing.T) {
	check := func(t *testing.T, name string, v any, decode func([]byte) (any, error), fresh func() any) {
		t.Helper()
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := decode(b)
		if err != nil {
			t.Fatalf("%s: generated decoder rejects %s: %v", name, b, err)
		}
		if d := cmp.Diff(v, got); d != "" {
			t.Errorf("%s: generated decoder, %s: (-want +got)\n%s", name, b, d)
		}
		std := fresh()
		if err := json.Unmarshal(b, std); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(v, reflect.ValueOf(std).Elem().Interface()); d != "" {
			t.Errorf("%s: encoding/json, %s: (-want +got)\n%s", name, b, d)
		}
		again, _ := json.Marshal(got)
		if !bytes.Equal(b, again) {
			t.Errorf("%s: re-encoding changed %s to %s", name, b, again)
		}
	}
	for i, v := range argValues {
		check(t, fmt.Sprintf("SearchItemsArgs#%d", i), v, func(b []byte) (any, error) {
			x, err := DecodeSearchItemsArgs(b)
			if err != nil {
				return nil, err
			}
			return *x, nil
		}, func() any { return new(SearchItemsArgs) })
	}
	for i, v := range []SearchItemsResult{{Count: 2, Items: []string{"a", "b"}}, {Items: []string{}}} {
		check(t, fmt.Sprintf("SearchItemsResult#%d", i), v, func(b []byte) (any, error) {
			x, err := DecodeSearchItemsResult(b)
			if err != nil {
				return nil, err
			}
			return *x, nil
		}, func() any { return new(SearchItemsResult) })
	}
	check(t, "GetTimeArgs", GetTimeArgs{}, func(b []byte) (any, error) {
		x, err := DecodeGetTimeArgs(b)
		if err != nil {
			return nil, err
		}
		return *x, nil
	}, func() any { return new(GetTimeArgs) })
}

// TestIntegerForms: JSON Schema integers include 7.0 and 7e1, which
// encoding/json refuses for an int64; the generated decoder accepts them.
func TestIntegerForms(t *testing.T) {
	for in, want := range map[string]int64{`7`: 7, `7.0`: 7, `7e1`: 70, `1.00e2`: 100} {
		x, err := DecodeSearchItemsArgs([]byte(`{"query":"q","limit":` + in + `}`))
		if err != nil || x.Limit == nil || *x.Limit != want {
			t.Errorf("limit %s: got %v, %v; want %d", in, x, err, want)
		}
	}
	for _, in := range []string{`7.5`, `"7"`, `1e400`, `9223372036854775808`} {
		if _, err := DecodeSearchItemsArgs([]byte(`{"query":"q","limit":` + in + `}`)); err == nil {
			t.Errorf("limit %s accepted", in)
		}
	}
}

type toolSchemas struct {
	input, output map[string]*jsonschema.Schema
}

// compiled compiles the schemas of ToolsJSON, the tools as served, with
// jsonschema/v5: the reference the generated validators must agree with.
func compiled(t testing.TB) toolSchemas {
	var list []struct {
		Name         string          `json:"name"`
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
	}
	if err := json.Unmarshal([]byte(ToolsJSON), &list); err != nil {
		t.Fatal(err)
	}
	s := toolSchemas{map[string]*jsonschema.Schema{}, map[string]*jsonschema.Schema{}}
	compile := func(name string, raw json.RawMessage) *jsonschema.Schema {
		c := jsonschema.NewCompiler()
		c.Draft = jsonschema.Draft2020
		// In 2020-12, the tools' dialect, "format" is an annotation, and the
		// generated code does not assert it; jsonschema/v5 asserts it on a
		// schema without "$schema", so the reference is told every format
		// holds.
		c.Formats = map[string]func(any) bool{}
		for f := range jsonschema.Formats {
			c.Formats[f] = func(any) bool { return true }
		}
		if err := c.AddResource(name, bytes.NewReader(raw)); err != nil {
			t.Fatal(err)
		}
		sch, err := c.Compile(name)
		if err != nil {
			t.Fatal(err)
		}
		return sch
	}
	for _, tl := range list {
		s.input[tl.Name] = compile(tl.Name+".in.json", tl.InputSchema)
		if tl.OutputSchema != nil {
			s.output[tl.Name] = compile(tl.Name+".out.json", tl.OutputSchema)
		}
	}
	return s
}

// replacements are what mutate puts in place of a value: every JSON kind,
// bounds and their neighbours, integers written as decimals, strings that
// do and do not match the patterns and enums.
var replacements = []string{
	`null`, `true`, `false`, `0`, `-1`, `1`, `1.5`, `1.0`, `7e1`, `100`, `101`, `0.5`, `3`,
	`""`, `"q"`, `"abc"`, `"ABC"`, `"asc"`, `"by-name"`, `"eq"`, `"ü"`, `"` + strings.Repeat("x", 65) + `"`,
	`0.25`, `0.75`, `6`, `-9`, `4`,
	`[]`, `["a"]`, `["a","a"]`, `["a","b","c","d"]`, `{"a":1,"b":2,"c":3}`, `{"k":1,"b":2,"c":3}`, `[1]`, `[{"x":1,"y":2}]`, `[{"x":1}]`, `{}`, `{"k":1}`, `{"field":"f"}`, `{"field":"f","other":1}`,
}

// mutate returns variants of v: each value replaced by each replacement,
// each object member deleted, and an unknown member added to each object.
func mutate(v any) []any {
	var out []any
	for _, r := range replacements {
		var w any
		d := json.NewDecoder(strings.NewReader(r))
		d.UseNumber()
		d.Decode(&w)
		out = append(out, w)
	}
	switch v := v.(type) {
	case map[string]any:
		for k, child := range v {
			del := clone(v)
			delete(del, k)
			out = append(out, del)
			for _, m := range mutate(child) {
				c := clone(v)
				c[k] = m
				out = append(out, c)
			}
		}
		add := clone(v)
		add["zzz"] = json.Number("1")
		out = append(out, add)
	case []any:
		for i, child := range v {
			for _, m := range mutate(child) {
				c := append([]any(nil), v...)
				c[i] = m
				out = append(out, c)
			}
		}
	}
	return out
}

func clone(m map[string]any) map[string]any {
	c := make(map[string]any, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

func parse(t testing.TB, s string) any {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestDifferential checks the generated validators against jsonschema/v5
// over valid instances and every mutation of them: both accept or both
// reject.
func TestDifferential(t *testing.T) {
	s := compiled(t)
	decoders := map[string]func([]byte) error{
		"search_items.in":  func(b []byte) error { _, err := DecodeSearchItemsArgs(b); return err },
		"search_items.out": func(b []byte) error { _, err := DecodeSearchItemsResult(b); return err },
		"get_time.in":      func(b []byte) error { _, err := DecodeGetTimeArgs(b); return err },
	}
	schemas := map[string]*jsonschema.Schema{
		"search_items.in": s.input["search_items"], "search_items.out": s.output["search_items"], "get_time.in": s.input["get_time"],
	}
	seeds := map[string][]string{
		"search_items.in":  {mustJSON(full), `{"query":"x"}`, mustJSON(argValues[2])},
		"search_items.out": {`{"count":1,"items":["a"]}`},
		"get_time.in":      {`{}`},
	}
	total, rejected := 0, 0
	for key, list := range seeds {
		for _, seed := range list {
			root := parse(t, seed)
			if err := schemas[key].Validate(root); err != nil {
				t.Fatalf("%s: seed %s is invalid: %v", key, seed, err)
			}
			for _, inst := range append([]any{root}, mutate(root)...) {
				b, _ := json.Marshal(inst)
				want := schemas[key].Validate(parse(t, string(b))) == nil
				err := decoders[key](b)
				total++
				if err != nil {
					rejected++
				}
				if got := err == nil; got != want {
					t.Errorf("%s: %s: generated validator says valid=%v (%v), jsonschema/v5 says %v", key, b, got, err, want)
				}
			}
		}
	}
	if rejected == 0 || rejected == total {
		t.Fatalf("%d of %d instances rejected: the mutations do not exercise both outcomes", rejected, total)
	}
	t.Logf("%d instances, %d rejected", total, rejected)
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// impl is a Tools whose behaviour the tests choose.
type impl struct {
	search func(ctx context.Context, a *SearchItemsArgs) (*SearchItemsResult, error)
}

func (i impl) SearchItems(ctx context.Context, a *SearchItemsArgs) (*SearchItemsResult, error) {
	if i.search != nil {
		return i.search(ctx, a)
	}
	return &SearchItemsResult{Count: 1, Items: []string{a.Query}}, nil
}

func (impl) GetTime(ctx context.Context, _ *GetTimeArgs) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{&mcp.TextContent{Text: "noon"}}}, nil
}

func call(t *testing.T, h *Handler, name, args string) (*mcp.CallToolResult, error) {
	t.Helper()
	p := &mcp.CallToolRequestParams{Name: name}
	if args != "" {
		if err := json.Unmarshal([]byte(args), &p.Arguments); err != nil {
			t.Fatal(err)
		}
	}
	return h.CallTool(context.Background(), p)
}

func text(t *testing.T, r *mcp.CallToolResult) string {
	t.Helper()
	if len(r.Content) != 1 {
		t.Fatalf("want one content block, got %d", len(r.Content))
	}
	tc, ok := r.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T", r.Content[0])
	}
	return tc.Text
}

// TestDispatch covers each way tools/call is answered in 2025-11-25.
func TestDispatch(t *testing.T) {
	h := NewHandler(impl{})

	res, err := call(t, h, "search_items", `{"query":"cats","limit":2}`)
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError != nil || string(res.StructuredContent["count"]) != "1" || string(res.StructuredContent["items"]) != `["cats"]` {
		t.Errorf("structured result: %+v", res)
	}
	if got := text(t, res); got != `{"count":1,"items":["cats"]}` {
		t.Errorf("text block %q, want the structured content's JSON", got)
	}

	// Input validation: a tool execution error naming the pointer
	// (server/tools.mdx of 2025-11-25).
	res, err = call(t, h, "search_items", `{"query":"cats","limit":0}`)
	if err != nil || res.IsError == nil || !*res.IsError {
		t.Fatalf("invalid arguments: %+v, %v; want an isError result", res, err)
	}
	if got := text(t, res); !strings.Contains(got, "/arguments/limit") || !strings.Contains(got, "at least 1") {
		t.Errorf("message %q does not name /arguments/limit and the bound", got)
	}
	res, err = call(t, h, "search_items", ``)
	if err != nil || res.IsError == nil || !strings.Contains(text(t, res), `missing required property "query"`) {
		t.Errorf("absent arguments: %+v, %v", res, err)
	}
	res, _ = call(t, h, "search_items", `{"query":"q","filter":{"field":"f","nope":1}}`)
	if got := text(t, res); !strings.Contains(got, "/arguments/filter/nope") {
		t.Errorf("additional property: %q", got)
	}

	// Unknown tool: protocol error -32602.
	_, err = call(t, h, "nope", `{}`)
	var re *jsonrpc2.Error
	if !errors.As(err, &re) || re.Code != jsonrpc2.CodeInvalidParams {
		t.Errorf("unknown tool: %v, want -32602", err)
	}

	// ExecutionError → isError; other errors pass through unchanged.
	h = NewHandler(impl{search: func(context.Context, *SearchItemsArgs) (*SearchItemsResult, error) {
		return nil, fmt.Errorf("wrapped: %w", Errorf("backend down"))
	}})
	res, err = call(t, h, "search_items", `{"query":"q"}`)
	if err != nil || res.IsError == nil || text(t, res) != "backend down" {
		t.Errorf("ExecutionError: %+v, %v", res, err)
	}
	plain := errors.New("disk on fire")
	h = NewHandler(impl{search: func(context.Context, *SearchItemsArgs) (*SearchItemsResult, error) { return nil, plain }})
	if _, err := call(t, h, "search_items", `{"query":"q"}`); err != plain {
		t.Errorf("plain error: got %v, want it unchanged", err)
	}

	// A result its own output schema rejects is never sent.
	h = NewHandler(impl{search: func(context.Context, *SearchItemsArgs) (*SearchItemsResult, error) {
		return &SearchItemsResult{Count: -1, Items: []string{}}, nil
	}})
	if _, err := call(t, h, "search_items", `{"query":"q"}`); err == nil || !strings.Contains(err.Error(), "/count") {
		t.Errorf("bad result: %v, want an error naming /count", err)
	}
	h = NewHandler(impl{search: func(context.Context, *SearchItemsArgs) (*SearchItemsResult, error) { return nil, nil }})
	if _, err := call(t, h, "search_items", `{"query":"q"}`); err == nil {
		t.Error("nil result accepted")
	}

	// A tool without an output schema returns its own result.
	res, err = call(t, NewHandler(impl{}), "get_time", `{}`)
	if err != nil || text(t, res) != "noon" {
		t.Errorf("get_time: %+v, %v", res, err)
	}
}

// TestListTools: tools/list carries every tool with its schemas exactly as
// written (equal as JSON to the tools file).
func TestListTools(t *testing.T) {
	res, err := NewHandler(impl{}).ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(res.Tools)
	var a, b any
	json.Unmarshal(got, &a)
	json.Unmarshal([]byte(ToolsJSON), &b)
	if d := cmp.Diff(b, a); d != "" {
		t.Errorf("tools/list differs from the tools file: (-file +served)\n%s", d)
	}
}

// TestWire serves the Handler on a runtime connection and calls it through
// the generated ServerCaller.
func TestWire(t *testing.T) {
	a, b := jsonrpc2.NewPipe()
	quiet := jsonrpc2.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	srv := jsonrpc2.NewConn(a, jsonrpc2.WithPolicy(mcp.Policy(jsonrpc2.SideServer)), quiet)
	mcp.RegisterServer(srv, NewHandler(impl{}))
	cli := jsonrpc2.NewConn(b, jsonrpc2.WithPolicy(mcp.Policy(jsonrpc2.SideClient)), quiet)
	srv.Start()
	cli.Start()
	defer func() {
		ctx := context.Background()
		cli.Close(ctx)
		srv.Close(ctx)
	}()
	caller := mcp.NewServerCaller(cli)
	res, err := caller.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "search_items", Arguments: map[string]json.RawMessage{"query": json.RawMessage(`"x"`)}})
	if err != nil || string(res.StructuredContent["items"]) != `["x"]` {
		t.Fatalf("call: %+v, %v", res, err)
	}
	res, err = caller.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "search_items", Arguments: map[string]json.RawMessage{"query": json.RawMessage(`""`)}})
	if err != nil || res.IsError == nil || !*res.IsError {
		t.Fatalf("invalid call: %+v, %v", res, err)
	}
	list, err := caller.ListTools(context.Background(), &mcp.PaginatedRequestParams{})
	if err != nil || len(list.Tools) != 2 || list.Tools[0].OutputSchema == nil {
		t.Fatalf("list: %+v, %v", list, err)
	}
}

// FuzzCallTool: whatever the name and arguments, the dispatcher does not
// panic and answers exactly one of a result or an error; an error is the
// unknown-tool -32602, a result to invalid arguments is an isError result.
func FuzzCallTool(f *testing.F) {
	f.Add("search_items", []byte(`{"query":"q","limit":5,"tags":["a"],"filter":{"field":"x","op":"eq","values":[1]}}`))
	f.Add("search_items", []byte(`{"query":1}`))
	f.Add("get_time", []byte(`{}`))
	f.Add("get_time", []byte(`{"a":1}`))
	f.Add("nope", []byte(`{}`))
	f.Add("search_items", []byte(`{"query":"q","limit":1e999999999}`))
	s := compiled(f)
	h := NewHandler(impl{})
	f.Fuzz(func(t *testing.T, name string, args []byte) {
		p := &mcp.CallToolRequestParams{Name: name}
		if json.Unmarshal(args, &p.Arguments) != nil {
			p.Arguments = nil
		}
		res, err := h.CallTool(context.Background(), p)
		if (res == nil) == (err == nil) {
			t.Fatalf("answered with result %v and error %v", res, err)
		}
		if err != nil {
			var re *jsonrpc2.Error
			if !errors.As(err, &re) || re.Code != jsonrpc2.CodeInvalidParams || s.input[name] != nil {
				t.Fatalf("error %v for tool %q", err, name)
			}
			return
		}
		// Agreement with jsonschema/v5 on what the arguments are (which
		// panics on numbers it cannot hold as a big.Rat, and accepts
		// integers the generated code cannot bind).
		obj, _ := json.Marshal(p.Arguments)
		if p.Arguments == nil {
			obj = []byte(`{}`)
		}
		if hugeNumber(obj) {
			return
		}
		var inst any
		d := json.NewDecoder(bytes.NewReader(obj))
		d.UseNumber()
		d.Decode(&inst)
		valid := s.input[name].Validate(inst) == nil
		if isErr := res.IsError != nil && *res.IsError; isErr == valid {
			t.Fatalf("%s %s: isError=%v but jsonschema/v5 says valid=%v", name, obj, isErr, valid)
		}
	})
}

// hugeNumber: the generated code rejects numbers beyond 64 bits or with
// huge exponents, which JSON Schema accepts (and jsonschema/v5 panics on).
func hugeNumber(b []byte) bool {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		n, ok := tok.(json.Number)
		if !ok {
			continue
		}
		s := strings.TrimLeft(strings.ToLower(n.String()), "-")
		mant, exp, hasExp := strings.Cut(s, "e")
		if hasExp {
			e, err := strconv.Atoi(strings.TrimPrefix(exp, "+"))
			if err != nil || e > 300 || e < -300 {
				return true
			}
		}
		if len(strings.ReplaceAll(mant, ".", "")) > 18 {
			return true
		}
	}
}

// TestSecondHandler: with a second --import, one Tools implementation is
// served for 2026-07-28 too, results carrying resultType, and a tool
// without an output schema has its result carried over to that revision's
// type.
func TestSecondHandler(t *testing.T) {
	h := NewHandler20260728(impl{})
	p := &mcp20260728.CallToolRequestParams{Name: ToolSearchItems, Arguments: map[string]json.RawMessage{"query": json.RawMessage(`"x"`)}}
	res, err := h.CallTool(context.Background(), p)
	if err != nil || res.ResultType != "complete" || !bytes.Contains(res.StructuredContent, []byte(`"items":["x"]`)) {
		t.Fatalf("search_items: %+v, %v", res, err)
	}
	p = &mcp20260728.CallToolRequestParams{Name: ToolGetTime, Arguments: map[string]json.RawMessage{}}
	res, err = h.CallTool(context.Background(), p)
	if err != nil || len(res.Content) != 1 {
		t.Fatalf("get_time: %+v, %v", res, err)
	}
	if tc, ok := res.Content[0].(*mcp20260728.TextContent); !ok || tc.Text != "noon" {
		t.Errorf("get_time content: %#v", res.Content[0])
	}
	p.Arguments["x"] = json.RawMessage(`1`)
	res, err = h.CallTool(context.Background(), p)
	if err != nil || res.IsError == nil || !*res.IsError {
		t.Errorf("invalid get_time: %+v, %v", res, err)
	}
	list, err := h.ListTools(context.Background(), nil)
	if err != nil || len(list.Tools) != 2 || list.ResultType != "complete" || list.CacheScope != "public" {
		t.Errorf("list: %+v, %v", list, err)
	}
}

// FuzzDecodeSearchItemsArgs: the generated decoder never panics, agrees
// with jsonschema/v5 on validity, and what it accepts re-encodes to bytes
// it decodes to the same value.
func FuzzDecodeSearchItemsArgs(f *testing.F) {
	f.Add([]byte(mustJSON(full)))
	f.Add([]byte(`{"query":"q","limit":7.0}`))
	f.Add([]byte(`{"query":"q","filter":{"field":"f","op":"ne"}}`))
	f.Add([]byte(`[]`))
	s := compiled(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		x, err := DecodeSearchItemsArgs(data)
		var inst any
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		if d.Decode(&inst) != nil || hugeNumber(data) {
			return // not one JSON value, or numbers the reference cannot hold
		}
		if _, err := d.Token(); err != io.EOF {
			return // data after the value: both reject it, the reference cannot say
		}
		if valid := s.input["search_items"].Validate(inst) == nil; valid != (err == nil) {
			t.Fatalf("%s: decoder error %v, jsonschema/v5 valid=%v", data, err, valid)
		}
		if err != nil {
			return
		}
		b, err := json.Marshal(x)
		if err != nil {
			t.Fatal(err)
		}
		y, err := DecodeSearchItemsArgs(b)
		if err != nil {
			t.Fatalf("re-encoded %s rejected: %v", b, err)
		}
		if d := cmp.Diff(x, y); d != "" {
			t.Fatalf("%s: (-first +second)\n%s", b, d)
		}
	})
}

var _ Tools = (*Caller)(nil) // a client's typed view is the same interface

// TestCaller: typed calls through the Handler and back, over the wire
// types: results come back equal, tool errors as *ExecutionError, argument
// errors the server reports as *ExecutionError naming the pointer.
func TestCaller(t *testing.T) {
	c := NewCaller(NewHandler(impl{}))
	got, err := c.SearchItems(context.Background(), &full)
	if err != nil || got.Count != 1 || len(got.Items) != 1 || got.Items[0] != "q" {
		t.Fatalf("SearchItems: %+v, %v", got, err)
	}
	_, err = c.SearchItems(context.Background(), &SearchItemsArgs{Query: ""})
	var ee *ExecutionError
	if !errors.As(err, &ee) || !strings.Contains(ee.Message, "/arguments/query") {
		t.Errorf("invalid arguments: %v, want an *ExecutionError naming /arguments/query", err)
	}
	c = NewCaller(NewHandler(impl{search: func(context.Context, *SearchItemsArgs) (*SearchItemsResult, error) {
		return nil, Errorf("no index")
	}}))
	if _, err := c.SearchItems(context.Background(), &SearchItemsArgs{Query: "q"}); !errors.As(err, &ee) || ee.Message != "no index" {
		t.Errorf("tool error: %v", err)
	}
	// A server whose structured content breaks the output schema is caught
	// by the client too.
	bad := callerFunc(func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{}, StructuredContent: map[string]json.RawMessage{"count": json.RawMessage(`"x"`), "items": json.RawMessage(`[]`)}}, nil
	})
	if _, err := NewCaller(bad).SearchItems(context.Background(), &SearchItemsArgs{Query: "q"}); err == nil || !strings.Contains(err.Error(), "/count") {
		t.Errorf("bad structured content: %v", err)
	}
	res, err := NewCaller(NewHandler(impl{})).GetTime(context.Background(), &GetTimeArgs{})
	if err != nil || text(t, res) != "noon" {
		t.Errorf("GetTime: %+v, %v", res, err)
	}
}

type callerFunc func(context.Context, *mcp.CallToolRequestParams) (*mcp.CallToolResult, error)

func (f callerFunc) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	return f(ctx, p)
}

// TestAllViolations: an object reports every violation among its members at
// once, so the model can fix them in one retry.
func TestAllViolations(t *testing.T) {
	res, err := call(t, NewHandler(impl{}), "search_items", `{"limit":0,"tags":[],"zzz":1,"filter":{"nope":1}}`)
	if err != nil || res.IsError == nil {
		t.Fatalf("%+v, %v", res, err)
	}
	got := text(t, res)
	for _, want := range []string{
		`/arguments: missing required property "query"`,
		`/arguments/zzz: property "zzz" is not allowed`,
		`/arguments/filter: missing required property "field"`,
		`/arguments/filter/nope: property "nope" is not allowed`,
		`/arguments/limit: must be at least 1, got 0`,
		`/arguments/tags: must have at least 1 items, got 0`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("message lacks %q:\n%s", want, got)
		}
	}
	_, err = DecodeSearchItemsArgs([]byte(`{"limit":0}`))
	var ves ValidationErrors
	var ve *ValidationError
	if !errors.As(err, &ves) || len(ves) != 2 || !errors.As(err, &ve) || ve.Pointer != "" {
		t.Errorf("DecodeSearchItemsArgs: %v (%#v)", err, err)
	}
}
