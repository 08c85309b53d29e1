package tools

import (
	"encoding/json"

	"github.com/dave/jennifer/jen"
)

// Fast binders. The bind functions check a value decoded into any
// (map[string]any, boxed strings, json.Number): general, but about four
// allocations per object on every call, on both sides. For a plain schema
// (a named object whose properties are strings, booleans, integers,
// numbers or plain named objects, without enum, const, numeric bounds or
// property counts) the generator also emits a fast binder that reads the
// JSON bytes straight into the struct with toolsupport's raw helpers. It
// answers only "accepted" or "not sure": on anything not plainly valid it
// returns false and the bind function decides, so results and errors are
// always the bind function's.

// plain reports whether n gets a fast binder.
func plain(n *node) bool {
	if n == nil || n.enum != nil || n.constant != nil || n.raw != nil {
		return false // raw: checked against the published schema, by the bind function
	}
	switch n.kind {
	case kindString:
		return n.goName == ""
	case kindBoolean:
		return true
	case kindInteger, kindNumber:
		return n.minimum == "" && n.maximum == "" && n.exclMin == "" && n.exclMax == "" && n.multipleOf == ""
	case kindObject:
		if n.goName == "" || n.minProps != nil || n.maxProps != nil {
			return false
		}
		for _, p := range n.props {
			if !plain(p.n) {
				return false
			}
		}
		return true
	}
	return false
}

// fastBind emits the fast binder of the object n (and of the objects
// among its properties), once, when n is plain: fastX(data []byte) (X,
// bool), and with args also fastArgsX(map[string]json.RawMessage) (X,
// bool) for the arguments of tools/call, which the bindings hand over
// split into members. It reports whether n has one.
func (e *emitter) fastBind(n *node, args bool) bool {
	if !plain(n) || n.kind != kindObject {
		return false
	}
	if n.fast == "" {
		for _, p := range n.props {
			if p.n.kind == kindObject {
				e.fastBind(p.n, false)
			}
		}
		n.fast = "fast" + n.goName
		e.fastBytes(n)
	}
	if args {
		e.fastArgs(n)
	}
	return true
}

// fail is the fast binders' "not sure".
var fail = jen.Return(jen.Id("x"), jen.False())

// fastMember is the statements binding the raw value v of property i of
// n into x, returning false on anything not plainly valid.
func (e *emitter) fastMember(n *node, i int) []jen.Code {
	pr := n.props[i]
	c := pr.n
	var out []jen.Code
	get := func(helper string) {
		out = append(out, jen.List(jen.Id("y"), jen.Id("ok")).Op(":=").Add(ts(helper)).Call(jen.Id("v")),
			jen.If(jen.Op("!").Id("ok")).Block(fail))
	}
	switch c.kind {
	case kindString:
		get("RawString")
		if c.minLength != nil || c.maxLength != nil {
			out = append(out, jen.If(ts("Length").Call(jen.Id("y"), limit(c.minLength), limit(c.maxLength), jen.Lit("")).Op("!=").Nil()).Block(fail))
		}
		if c.pattern != "" {
			out = append(out, jen.If(jen.Op("!").Id(c.re).Dot("MatchString").Call(jen.Id("y"))).Block(fail))
		}
	case kindBoolean:
		get("RawBool")
	case kindInteger:
		get("RawInteger")
	case kindNumber:
		get("RawNumber")
	case kindObject:
		out = append(out, jen.List(jen.Id("y"), jen.Id("ok")).Op(":=").Id(c.fast).Call(jen.Id("v")),
			jen.If(jen.Op("!").Id("ok")).Block(fail))
	}
	val := jen.Id("y")
	if !pr.required && pointerWhenOptional(c) {
		val = jen.Op("&").Id("y")
	}
	out = append(out, jen.Id("x").Dot(pr.field).Op("=").Add(val))
	return out
}

// required is the indexes of n's required properties.
func required(n *node) []int {
	var r []int
	for i, p := range n.props {
		if p.required {
			r = append(r, i)
		}
	}
	return r
}

// fastBytes emits fastX(data []byte) (X, bool).
func (e *emitter) fastBytes(n *node) {
	req := required(n)
	var body []jen.Code
	body = append(body, jen.Id("o").Op(":=").Add(ts("NewRawObject")).Call(jen.Id("data")))
	if len(req) > 0 {
		body = append(body, jen.Var().Id("seen").Index(jen.Lit(len(req))).Bool())
	}
	var cases []jen.Code
	for i, p := range n.props {
		stmts := e.fastMember(n, i)
		for j, r := range req {
			if r == i {
				stmts = append(stmts, jen.Id("seen").Index(jen.Lit(j)).Op("=").True())
			}
		}
		cases = append(cases, jen.Case(jen.Lit(p.name)).Block(stmts...))
	}
	if n.closed {
		cases = append(cases, jen.Default().Block(fail))
	}
	var loop []jen.Code
	if len(n.props) > 0 {
		loop = append(loop, jen.Id("v").Op(":=").Id("o").Dot("Value").Call())
	}
	if len(cases) > 0 {
		loop = append(loop, jen.Switch(jen.String().Call(jen.Id("o").Dot("Key").Call())).Block(cases...))
	}
	body = append(body, jen.For(jen.Id("o").Dot("Next").Call()).Block(loop...))
	ok := jen.Id("o").Dot("OK").Call()
	for j := range req {
		ok = ok.Op("&&").Id("seen").Index(jen.Lit(j))
	}
	body = append(body, jen.Return(jen.Id("x"), ok))
	e.f.Commentf("%s is %s for plain input: it binds the JSON object", n.fast, n.fn)
	e.f.Comment("data without decoding it into any first, and returns false for anything")
	e.f.Commentf("it does not plainly accept, which %s then judges.", n.fn)
	e.f.Func().Id(n.fast).Params(jen.Id("data").Index().Byte()).Params(jen.Id("x").Id(n.goName), jen.Id("ok").Bool()).Block(body...)
}

// fastArgs emits fastArgsX(args map[string]json.RawMessage) (X, bool): the
// same as fastX for the members of a tools/call's arguments.
func (e *emitter) fastArgs(n *node) {
	req := map[int]bool{}
	for _, i := range required(n) {
		req[i] = true
	}
	// The bind function parses every member, known or not: one that is not
	// a JSON value is its error to report.
	body := []jen.Code{jen.For(jen.List(jen.Id("_"), jen.Id("v")).Op(":=").Range().Id("args")).Block(
		jen.If(jen.Op("!").Add(ts("RawValid")).Call(jen.Id("v"))).Block(fail))}
	if n.closed {
		body = append(body, jen.Id("known").Op(":=").Lit(0))
	}
	for i, p := range n.props {
		stmts := e.fastMember(n, i)
		if n.closed {
			stmts = append([]jen.Code{jen.Id("known").Op("++")}, stmts...)
		}
		st := jen.If(jen.List(jen.Id("v"), jen.Id("ok")).Op(":=").Id("args").Index(jen.Lit(p.name)), jen.Id("ok")).Block(stmts...)
		if req[i] {
			st = st.Else().Block(fail)
		}
		body = append(body, st)
	}
	ok := jen.True()
	if n.closed {
		ok = jen.Id("known").Op("==").Len(jen.Id("args"))
	}
	body = append(body, jen.Return(jen.Id("x"), ok))
	name := "fastArgs" + n.goName
	e.f.Commentf("%s is %s for the arguments of tools/call.", name, n.fast)
	e.f.Func().Id(name).Params(jen.Id("args").Map(jen.String()).Qual(jsonPath, "RawMessage")).Params(jen.Id("x").Id(n.goName), jen.Id("ok").Bool()).Block(body...)
}

// encodable reports whether the arguments n get a generated encoder (the
// Caller's side of the fast path): a named object whose properties are all
// strings, booleans, integers or numbers.
func encodable(n *node) bool {
	if n == nil || n.kind != kindObject || n.goName == "" {
		return false
	}
	for _, p := range n.props {
		if p.n == nil {
			return false
		}
		switch p.n.kind {
		case kindString, kindBoolean, kindInteger, kindNumber:
		default:
			return false
		}
	}
	return true
}

// argsEncoder emits argumentsX(o *toolsupport.Object, args *X) error,
// writing encodable arguments as encoding/json writes the struct (nil as
// {}), and returns its name.
func (e *emitter) argsEncoder(n *node) string {
	name := "arguments" + n.goName
	var body []jen.Code
	if len(n.props) > 0 {
		body = append(body, jen.If(jen.Id("args").Op("==").Nil()).Block(jen.Return(jen.Nil())))
	}
	for _, p := range n.props {
		field := jen.Id("args").Dot(p.field)
		optional := !p.required && pointerWhenOptional(p.n)
		if optional {
			field = jen.Op("*").Id("args").Dot(p.field)
		}
		key := jen.Lit(quotedKey(p.name))
		var stmts []jen.Code
		switch p.n.kind {
		case kindString:
			if p.n.goName != "" {
				field = jen.String().Call(field)
			}
			stmts = append(stmts, jen.Id("o").Dot("String").Call(key, field))
		case kindBoolean:
			stmts = append(stmts, jen.Id("o").Dot("Bool").Call(key, field))
		case kindInteger:
			stmts = append(stmts, jen.Id("o").Dot("Int").Call(key, field))
		case kindNumber:
			stmts = append(stmts,
				jen.If(jen.Err().Op(":=").Id("o").Dot("Float").Call(key, field), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())))
		}
		if optional {
			body = append(body, jen.If(jen.Id("args").Dot(p.field).Op("!=").Nil()).Block(stmts...))
		} else {
			body = append(body, stmts...)
		}
	}
	body = append(body, jen.Return(jen.Nil()))
	e.f.Commentf("%s writes args into o as the arguments object of tools/call,", name)
	e.f.Commentf("member by member as encoding/json encodes %s (nil as {}), without", n.goName)
	e.f.Comment("reflection (so args need not escape to the heap).")
	e.f.Func().Id(name).Params(jen.Id("o").Op("*").Add(ts("Object")), jen.Id("args").Op("*").Id(n.goName)).Error().Block(body...)
	return name
}

// quotedKey is the member key literal toolsupport.Object takes: the key
// as encoding/json quotes it (HTML-safe), then the colon.
func quotedKey(name string) string {
	b, _ := json.Marshal(name) // a string always encodes
	return string(b) + ":"
}
