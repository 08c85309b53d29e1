package generator

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/schema"
)

func init() { register("cancel.go", emitCancel) }

// emitCancel writes cancel.go: DecodeCancelledNotification and
// DecodeCancelledNotificationParams, each backed by a validator generated
// from the model's Type tree of the definition (so it accepts exactly what
// the revision's schema accepts), plus the scanner they share.
func emitCancel(g *gen, f *jen.File) (bool, error) {
	def := g.defs["CancelledNotification"]
	if def == nil {
		return false, nil
	}
	if err := g.checkNames("cancel.go", "ValidationError", "DecodeCancelledNotification", "DecodeCancelledNotificationParams",
		"ValidateCancelledNotification", "ValidateCancelledNotificationParams"); err != nil {
		return false, err
	}
	params := findProperty(def.Type, "params")
	if params == nil {
		return false, fmt.Errorf("cancel.go: CancelledNotification has no params member")
	}
	paramsName := InlineName(TypeName(def.Name), "params")
	if params.Type.Kind == schema.KindRef {
		paramsName = TypeName(params.Type.Ref)
	}

	v := &validatorGen{g: g, byDef: map[string]string{}}
	rootFn, err := v.validator(def.Type, "sv"+TypeName(def.Name))
	if err != nil {
		return false, err
	}
	paramsFn, err := v.validator(params.Type, "sv"+paramsName)
	if err != nil {
		return false, err
	}

	b := &builderGen{g: g, done: map[string]bool{}}
	decoder := func(typeName, checkFn, what, pointer string, t *schema.Type) error {
		st := t
		if t.Kind == schema.KindRef {
			st = g.resolve(t)
		}
		buildFn, err := b.builder(typeName, st)
		if err != nil {
			return err
		}
		validate := "Validate" + typeName
		run := func(decode bool) []jen.Code {
			ret := func(e jen.Code) jen.Code {
				if decode {
					return jen.Return(jen.Nil(), e)
				}
				return jen.Return(e)
			}
			body := []jen.Code{
				jen.Id("s").Op(":=").Id("svState").Values(jen.Dict{jen.Id("base"): jen.Id("data")}),
				jen.Id("i").Op(":=").Id("svSkipSpace").Call(jen.Id("data"), jen.Lit(0)),
				jen.If(jen.Id("i").Op(">=").Len(jen.Id("data"))).Block(ret(jen.Id("svInvalidJSON").Call(jen.Id("data")))),
			}
			if checkFn != "" {
				body = append(body, jen.List(jen.Id("end"), jen.Id("e")).Op(":=").Id("s").Dot(checkFn).Call(jen.Id("i")))
			} else {
				body = append(body, jen.Id("end").Op(",").Id("e").Op(":=").List(jen.Id("s").Dot("skip").Call(jen.Id("i")), jen.Parens(jen.Op("*").Id("ValidationError")).Parens(jen.Nil())))
			}
			body = append(body,
				jen.If(jen.Id("end").Op("<").Lit(0).Op("||").Id("svSkipSpace").Call(jen.Id("data"), jen.Id("end")).Op("!=").Len(jen.Id("data"))).Block(ret(jen.Id("svInvalidJSON").Call(jen.Id("data")))),
				jen.If(jen.Id("e").Op("!=").Nil()).Block(ret(jen.Id("e"))),
			)
			if !decode {
				return append(body, jen.Return(jen.Nil()))
			}
			return append(body,
				jen.Id("out").Op(":=").New(jen.Id(typeName)),
				jen.If(jen.Err().Op(":=").Id("s").Dot(buildFn).Call(jen.Id("svTrim").Call(jen.Id("data")), jen.Id("out")), jen.Err().Op("!=").Nil()).Block(
					jen.Return(jen.Nil(), jen.Op("&").Id("ValidationError").Values(jen.Dict{jen.Id("Message"): jen.Lit("valid, but cannot be decoded: ").Op("+").Err().Dot("Error").Call()})),
				),
				jen.Return(jen.Id("out"), jen.Nil()),
			)
		}
		f.Commentf("Decode%s decodes %s, accepting exactly", typeName, what)
		f.Commentf("what the schema of revision %s accepts for %s", g.m.Revision, typeName)
		f.Commentf("(%s). It validates first, with a scanner generated from the", pointer)
		f.Comment("schema, and reports the first violation as a *ValidationError naming its")
		f.Comment("JSON pointer; only valid input is decoded. Integers written as 1e2 or 7.0")
		f.Comment("(integers to JSON Schema) are decoded as 100 and 7.")
		f.Func().Id("Decode"+typeName).Params(jen.Id("data").Index().Byte()).Params(jen.Op("*").Id(typeName), jen.Error()).Block(
			jen.List(jen.Id("out"), jen.Id("e")).Op(":=").Id("decode"+typeName).Call(jen.Id("data")),
			jen.If(jen.Id("e").Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Id("e"))),
			jen.Return(jen.Id("out"), jen.Nil()),
		)
		f.Func().Id("decode"+typeName).Params(jen.Id("data").Index().Byte()).Params(jen.Op("*").Id(typeName), jen.Op("*").Id("ValidationError")).Block(run(true)...)
		f.Commentf("%s reports whether data is %s that", validate, what)
		f.Commentf("the schema of revision %s accepts for %s: nil, or a", g.m.Revision, typeName)
		f.Comment("*ValidationError naming the JSON pointer of the first violation. Syntax")
		f.Comment("follows encoding/json, as jsonschema/v5's input does: duplicate members are")
		f.Comment("allowed and the last one counts.")
		f.Func().Id(validate).Params(jen.Id("data").Index().Byte()).Error().Block(
			jen.If(jen.Id("e").Op(":=").Id("validate"+typeName).Call(jen.Id("data")), jen.Id("e").Op("!=").Nil()).Block(jen.Return(jen.Id("e"))),
			jen.Return(jen.Nil()),
		)
		f.Func().Id("validate" + typeName).Params(jen.Id("data").Index().Byte()).Op("*").Id("ValidationError").Block(run(false)...)
		return nil
	}
	if err := decoder(TypeName(def.Name), rootFn, "a complete notifications/cancelled message", def.Pointer, def.Type); err != nil {
		return false, err
	}
	if err := decoder(paramsName, paramsFn, "the params of a notifications/cancelled message", params.Type.Pointer, params.Type); err != nil {
		return false, err
	}
	for _, fn := range b.funcs {
		f.Add(fn)
	}

	for _, fn := range v.funcs {
		f.Add(fn)
	}
	f.Comment("The runtime's id parsers, which the scanner below uses for RequestId members.")
	f.Var().Defs(
		jen.Id("svParseID").Op("=").Qual(RuntimePath, "ParseRequestID"),
		jen.Id("svIntegerID").Op("=").Qual(RuntimePath, "IntegerID"),
	)
	f.Add(jen.Id(strings.TrimSpace(cancelSupport)))
	return true, nil
}

// validatorGen turns schema Type trees into validator methods
// func (s *svState) name(i int) (end int, e *ValidationError): each consumes
// the JSON value starting at s.base[i], checking its syntax as it goes, and
// returns where it ends (-1 when the input is not valid JSON) and the first
// schema violation in it. A violation does not stop the scan, so one pass
// settles both the syntax and, for duplicated members, which occurrence
// counts (the last, as in encoding/json).
type validatorGen struct {
	g     *gen
	byDef map[string]string // definition name → its validator, "" when it accepts anything
	funcs []jen.Code
	names map[string]bool
}

// validator returns the name of the method that validates t, emitting it
// (and those it calls) on first use; "" means t accepts every value.
func (v *validatorGen) validator(t *schema.Type, name string) (string, error) {
	if t.Kind == schema.KindRef {
		if fn, ok := v.byDef[t.Ref]; ok {
			return fn, nil
		}
		d := v.g.defs[t.Ref]
		if d == nil {
			return "", fmt.Errorf("cancel.go: %s refers to unknown definition %s", t.Pointer, t.Ref)
		}
		fnName := "sv" + TypeName(d.Name)
		v.byDef[t.Ref] = fnName // set first: recursive schemas call themselves
		fn, err := v.validator(d.Type, fnName)
		if err != nil {
			return "", err
		}
		v.byDef[t.Ref] = fn
		if fn != "" && t.Nullable && !d.Type.Nullable {
			return v.nullableWrapper(fn, name)
		}
		return fn, nil
	}
	if t.Kind == schema.KindAny {
		return "", nil
	}
	if v.names == nil {
		v.names = map[string]bool{}
	}
	for v.names[name] {
		name += "_"
	}
	v.names[name] = true
	body, err := v.body(t, name)
	if err != nil {
		return "", err
	}
	var stmts []jen.Code
	if t.Nullable {
		stmts = append(stmts, jen.If(jen.Id("s").Dot("base").Index(jen.Id("i")).Op("==").Add(chr('n'))).Block(
			jen.Return(jen.Id("s").Dot("skip").Call(jen.Id("i")), jen.Nil())))
	}
	stmts = append(stmts, body...)
	v.funcs = append(v.funcs,
		jen.Commentf("%s validates the value at i against %s.", name, t.Pointer).Line().
			Func().Params(jen.Id("s").Op("*").Id("svState")).Id(name).Params(jen.Id("i").Int()).Params(jen.Int(), jen.Op("*").Id("ValidationError")).Block(stmts...))
	return name, nil
}

func (v *validatorGen) nullableWrapper(fn, name string) (string, error) {
	for v.names[name] {
		name += "_"
	}
	v.names[name] = true
	v.funcs = append(v.funcs,
		jen.Commentf("%s accepts null or what %s accepts.", name, fn).Line().
			Func().Params(jen.Id("s").Op("*").Id("svState")).Id(name).Params(jen.Id("i").Int()).Params(jen.Int(), jen.Op("*").Id("ValidationError")).Block(
			jen.If(jen.Id("s").Dot("base").Index(jen.Id("i")).Op("==").Add(chr('n'))).Block(jen.Return(jen.Id("s").Dot("skip").Call(jen.Id("i")), jen.Nil())),
			jen.Return(jen.Id("s").Dot(fn).Call(jen.Id("i"))),
		))
	return name, nil
}

// chr is a byte literal as Go source: chr('{') renders as '{'.
func chr(c byte) jen.Code { return jen.Id(fmt.Sprintf("%q", rune(c))) }

// fail returns the end and a violation.
func fail(end jen.Code, msg string) jen.Code {
	return jen.Return(end, jen.Op("&").Id("ValidationError").Values(jen.Dict{jen.Id("Message"): jen.Lit(msg)}))
}

// kindPredicate returns a Go condition on the scanned value v that is true
// when v is of the plain kind of t, and the kind's name for messages.
func kindPredicate(t *schema.Type) (jen.Code, string, bool) {
	v := jen.Id("v")
	first := func() *jen.Statement { return jen.Id("v").Index(jen.Lit(0)) }
	var cond *jen.Statement
	var what string
	switch t.Kind {
	case schema.KindString:
		if t.Const != nil || len(t.Enum) > 0 || t.Format != "" {
			return nil, "", false
		}
		cond, what = first().Op("==").Add(chr('"')), "a string"
	case schema.KindInteger:
		if t.Const != nil || t.Minimum != nil || t.Maximum != nil {
			return nil, "", false
		}
		cond, what = jen.Id("s").Dot("integer").Call(v), "an integer"
	case schema.KindNumber:
		if t.Const != nil || t.Minimum != nil || t.Maximum != nil {
			return nil, "", false
		}
		cond, what = jen.Id("svIsNumber").Call(v), "a number"
	case schema.KindBoolean:
		cond, what = first().Op("==").Add(chr('t')).Op("||").Add(first()).Op("==").Add(chr('f')), "a boolean"
	case schema.KindObject:
		if len(t.Properties) > 0 || (t.Additional != nil && t.Additional.Kind != schema.KindAny) {
			return nil, "", false
		}
		cond, what = first().Op("==").Add(chr('{')), "an object"
	case schema.KindArray:
		if t.Items != nil && t.Items.Kind != schema.KindAny || t.MaxItems != nil {
			return nil, "", false
		}
		cond, what = first().Op("==").Add(chr('[')), "an array"
	default:
		return nil, "", false
	}
	if t.Nullable {
		cond = jen.Parens(cond).Op("||").Add(first()).Op("==").Add(chr('n'))
		what += " or null"
	}
	return cond, what, true
}

// scanned are the statements every scalar check starts with: scan the value,
// stop on invalid JSON, and name the value v.
func scanned() []jen.Code {
	return []jen.Code{
		jen.Id("end").Op(":=").Id("s").Dot("skip").Call(jen.Id("i")),
		jen.If(jen.Id("end").Op("<").Lit(0)).Block(jen.Return(jen.Lit(-1), jen.Nil())),
		jen.Id("v").Op(":=").Id("s").Dot("base").Index(jen.Id("i").Op(":").Id("end")),
	}
}

// body returns the statements of the validator of t (t is not a ref).
func (v *validatorGen) body(t *schema.Type, name string) ([]jen.Code, error) {
	unsupported := func(what string) ([]jen.Code, error) {
		return nil, fmt.Errorf("cancel.go: %s: the validator emitter does not support %s", t.Pointer, what)
	}
	end := jen.Id("end")
	switch t.Kind {
	case schema.KindString:
		if t.Format != "" {
			return unsupported("format " + t.Format)
		}
		out := append(scanned(), jen.If(jen.Id("v").Index(jen.Lit(0)).Op("!=").Add(chr('"'))).Block(fail(end, "must be a string")))
		if c, ok := t.Const.(string); ok {
			out = append(out, jen.If(jen.Op("!").Id("svStringIs").Call(jen.Id("v"), jen.Lit(c))).Block(fail(end, fmt.Sprintf("must be %q", c))))
		} else if t.Const != nil {
			return unsupported("a non-string const on a string")
		}
		if len(t.Enum) > 0 {
			var lits []jen.Code
			var quoted []string
			for _, e := range t.Enum {
				lits = append(lits, jen.Lit(e))
				quoted = append(quoted, fmt.Sprintf("%q", e))
			}
			out = append(out, jen.Switch(jen.Id("svStringValue").Call(jen.Id("v"))).Block(
				jen.Case(lits...),
				jen.Default().Block(fail(end, "must be one of "+strings.Join(quoted, ", "))),
			))
		}
		return append(out, jen.Return(end, jen.Nil())), nil
	case schema.KindInteger, schema.KindNumber, schema.KindBoolean:
		cond, what, ok := kindPredicate(&schema.Type{Kind: t.Kind})
		if !ok || t.Const != nil || t.Minimum != nil || t.Maximum != nil {
			return unsupported("const or bounds on a " + string(t.Kind))
		}
		return append(scanned(),
			jen.If(jen.Op("!").Parens(cond)).Block(fail(end, "must be "+what)),
			jen.Return(end, jen.Nil())), nil
	case schema.KindArray:
		return v.arrayBody(t, name)
	case schema.KindUnion:
		return v.unionBody(t, name)
	case schema.KindObject:
		return v.objectBody(t, name)
	}
	return unsupported("kind " + string(t.Kind))
}

// wrongKind is the start of a container validator: a value of another kind
// is scanned and reported.
func wrongKind(open byte, msg string) jen.Code {
	return jen.If(jen.Id("s").Dot("base").Index(jen.Id("i")).Op("!=").Add(chr(open))).Block(
		jen.Return(jen.Id("s").Dot("skip").Call(jen.Id("i")), jen.Op("&").Id("ValidationError").Values(jen.Dict{jen.Id("Message"): jen.Lit(msg)})),
	)
}

func (v *validatorGen) arrayBody(t *schema.Type, name string) ([]jen.Code, error) {
	out := []jen.Code{wrongKind('[', "must be an array")}
	var itemFn string
	if t.Items != nil {
		fn, err := v.validator(t.Items, name+"Item")
		if err != nil {
			return nil, err
		}
		itemFn = fn
	}
	var loop []jen.Code
	if itemFn != "" {
		loop = append(loop,
			jen.Var().Id("e").Op("*").Id("ValidationError"),
			jen.List(jen.Id("a").Dot("end"), jen.Id("e")).Op("=").Id("s").Dot(itemFn).Call(jen.Id("a").Dot("value")),
			jen.If(jen.Id("e").Op("!=").Nil().Op("&&").Id("first").Op("==").Nil()).Block(
				jen.Id("first").Op("=").Id("e").Dot("in").Call(jen.Qual("strconv", "Itoa").Call(jen.Id("n"))),
			),
		)
	} else {
		loop = append(loop, jen.Id("a").Dot("end").Op("=").Id("s").Dot("skip").Call(jen.Id("a").Dot("value")))
	}
	loop = append(loop, jen.Id("n").Op("++"))
	out = append(out,
		jen.Var().Id("first").Op("*").Id("ValidationError"),
		jen.Id("n").Op(":=").Lit(0),
		jen.Id("a").Op(":=").Id("s").Dot("items").Call(jen.Id("i")),
		jen.For(jen.Id("a").Dot("next").Call()).Block(loop...),
		jen.If(jen.Id("a").Dot("bad")).Block(jen.Return(jen.Lit(-1), jen.Nil())),
	)
	if t.MaxItems != nil {
		out = append(out, jen.If(jen.Id("n").Op(">").Lit(*t.MaxItems).Op("&&").Id("first").Op("==").Nil()).Block(
			jen.Id("first").Op("=").Op("&").Id("ValidationError").Values(jen.Dict{jen.Id("Message"): jen.Lit(fmt.Sprintf("must have at most %d items", *t.MaxItems))}),
		))
	}
	return append(out, jen.Return(jen.Id("a").Dot("i"), jen.Id("first"))), nil
}

// unionBody accepts a value that one of the branches accepts (anyOf).
func (v *validatorGen) unionBody(t *schema.Type, name string) ([]jen.Code, error) {
	if t.Union == nil || len(t.Union.Branches) == 0 {
		return nil, fmt.Errorf("cancel.go: %s: union without branches", t.Pointer)
	}
	// Plain kinds (RequestId is string | integer): one condition.
	var conds []jen.Code
	var whats []string
	for _, b := range t.Union.Branches {
		cond, what, ok := kindPredicate(b)
		if !ok {
			conds = nil
			break
		}
		conds = append(conds, jen.Parens(cond))
		whats = append(whats, what)
	}
	if conds != nil {
		var all *jen.Statement
		for i, c := range conds {
			if i == 0 {
				all = jen.Add(c)
			} else {
				all = all.Op("||").Add(c)
			}
		}
		return append(scanned(),
			jen.If(jen.Op("!").Parens(all)).Block(fail(jen.Id("end"), "must be "+joinOr(whats))),
			jen.Return(jen.Id("end"), jen.Nil())), nil
	}
	var out []jen.Code
	for i, b := range t.Union.Branches {
		fn, err := v.validator(b, fmt.Sprintf("%sBranch%d", name, i))
		if err != nil {
			return nil, err
		}
		if fn == "" {
			return []jen.Code{jen.Return(jen.Id("s").Dot("skip").Call(jen.Id("i")), jen.Nil())}, nil
		}
		out = append(out,
			jen.If(jen.List(jen.Id("end"), jen.Id("e")).Op(":=").Id("s").Dot(fn).Call(jen.Id("i")), jen.Id("end").Op("<").Lit(0).Op("||").Id("e").Op("==").Nil()).Block(
				jen.Return(jen.Id("end"), jen.Nil()),
			))
	}
	out = append(out, jen.Return(jen.Id("s").Dot("skip").Call(jen.Id("i")),
		jen.Op("&").Id("ValidationError").Values(jen.Dict{jen.Id("Message"): jen.Lit("matches none of the alternatives of " + t.Pointer)})))
	return out, nil
}

func joinOr(whats []string) string {
	switch len(whats) {
	case 1:
		return whats[0]
	case 2:
		return whats[0] + " or " + whats[1]
	}
	return strings.Join(whats[:len(whats)-1], ", ") + " or " + whats[len(whats)-1]
}

// objectBody checks an object's members as they come (keeping, per declared
// member, the verdict of its last occurrence, as encoding/json keeps the
// last value), then its required members, then reports the first violation
// in declaration order.
func (v *validatorGen) objectBody(t *schema.Type, name string) ([]jen.Code, error) {
	out := []jen.Code{wrongKind('{', "must be an object")}
	if t.Additional != nil && t.Additional.Kind != schema.KindAny {
		return nil, fmt.Errorf("cancel.go: %s: the validator emitter does not support typed additionalProperties", t.Pointer)
	}
	if len(t.Properties) == 0 {
		return append(out, jen.Return(jen.Id("s").Dot("skip").Call(jen.Id("i")), jen.Nil())), nil
	}
	has := make([]string, len(t.Properties))
	errs := make([]string, len(t.Properties))
	var decl []jen.Code
	var cases []jen.Code
	for i, p := range t.Properties {
		base := FieldName(p.Name)
		for j := 0; j < i; j++ {
			if has[j] == "h"+base {
				base += fmt.Sprint(i)
			}
		}
		has[i], errs[i] = "h"+base, "e"+base
		fn, err := v.validator(p.Type, name+FieldName(p.Name))
		if err != nil {
			return nil, err
		}
		var set []jen.Code
		if p.Required {
			set = append(set, jen.Id(has[i]).Op("=").True())
			decl = append(decl, jen.Var().Id(has[i]).Bool())
		}
		if fn == "" {
			set = append(set, jen.Id("m").Dot("end").Op("=").Id("s").Dot("skip").Call(jen.Id("m").Dot("value")))
		} else {
			decl = append(decl, jen.Var().Id(errs[i]).Op("*").Id("ValidationError"))
			set = append(set, jen.List(jen.Id("m").Dot("end"), jen.Id(errs[i])).Op("=").Id("s").Dot(fn).Call(jen.Id("m").Dot("value")))
			errs[i] = errs[i] + "!"
		}
		cases = append(cases, jen.Case(jen.Lit(p.Name)).Block(set...))
	}
	cases = append(cases, jen.Default().Block(jen.Id("m").Dot("end").Op("=").Id("s").Dot("skip").Call(jen.Id("m").Dot("value"))))
	out = append(out, decl...)
	out = append(out,
		jen.Id("m").Op(":=").Id("s").Dot("members").Call(jen.Id("i")),
		jen.For(jen.Id("m").Dot("next").Call()).Block(jen.Switch(jen.String().Parens(jen.Id("m").Dot("key"))).Block(cases...)),
		jen.If(jen.Id("m").Dot("bad")).Block(jen.Return(jen.Lit(-1), jen.Nil())),
	)
	for i, p := range t.Properties {
		if p.Required {
			out = append(out, jen.If(jen.Op("!").Id(has[i])).Block(fail(jen.Id("m").Dot("i"), fmt.Sprintf("missing required member %q", p.Name))))
		}
	}
	for i, p := range t.Properties {
		if !strings.HasSuffix(errs[i], "!") {
			continue
		}
		e := strings.TrimSuffix(errs[i], "!")
		out = append(out, jen.If(jen.Id(e).Op("!=").Nil()).Block(
			jen.Return(jen.Id("m").Dot("i"), jen.Id(e).Dot("in").Call(jen.Lit(pointerSegment(p.Name)))),
		))
	}
	return append(out, jen.Return(jen.Id("m").Dot("i"), jen.Nil())), nil
}

// pointerSegment escapes a member name for a JSON pointer (RFC 6901).
func pointerSegment(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func findProperty(t *schema.Type, name string) *schema.Property {
	for _, p := range t.Properties {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// builderGen writes functions that fill the typed value of a validated
// object directly from the scan, instead of going through the types'
// UnmarshalJSON (a map of raw members and encoding/json per member, an order
// of magnitude slower). It follows types.go's layout: a field FieldName(member)
// per declared member, a pointer when optional for structs, scalars and ids,
// no field for required constants, HasX for optional ones, and Extra for the
// undeclared members (nil when there are none). Members of any other kind are
// decoded with encoding/json into the field, exactly as UnmarshalJSON does.
type builderGen struct {
	g     *gen
	funcs []jen.Code
	done  map[string]bool
}

// structName returns the Go struct type of an object node and whether the
// builder knows it: a reference to a definition that is an object with
// properties, or the inline params object named by the caller.
func (b *builderGen) structName(t *schema.Type, inlineName string) (string, *schema.Type, bool) {
	if t.Kind == schema.KindRef {
		d := b.g.defs[t.Ref]
		for i := 0; d != nil && d.Type.Kind == schema.KindRef && i < 16; i++ {
			d = b.g.defs[d.Type.Ref]
		}
		if d == nil || d.Type.Kind != schema.KindObject || len(d.Type.Properties) == 0 || idDefs[d.Name] {
			return "", nil, false
		}
		return TypeName(t.Ref), d.Type, true
	}
	if inlineName != "" && t.Kind == schema.KindObject && len(t.Properties) > 0 {
		return inlineName, t, true
	}
	return "", nil, false
}

// idDefs are the definitions types.go makes aliases of runtime.RequestID.
var idDefs = map[string]bool{"RequestId": true, "ProgressToken": true}

// builder emits (once) and names the function that fills *goType from the
// object t.
func (b *builderGen) builder(goType string, t *schema.Type) (string, error) {
	fn := "build" + goType
	if b.done[fn] {
		return fn, nil
	}
	b.done[fn] = true
	if t.Additional != nil && t.Additional.Kind != schema.KindAny {
		return "", fmt.Errorf("cancel.go: %s: typed additionalProperties", t.Pointer)
	}
	vars := make([]string, len(t.Properties))
	var cases []jen.Code
	var decl []jen.Code
	for i, p := range t.Properties {
		vars[i] = "m" + FieldName(p.Name)
		for j := 0; j < i; j++ {
			if vars[j] == vars[i] {
				vars[i] += fmt.Sprint(i)
			}
		}
		if p.Type.Const != nil && p.Required {
			// A required constant: checked by the validator, not stored.
			cases = append(cases, jen.Case(jen.Lit(p.Name)).Block())
			continue
		}
		decl = append(decl, jen.Id(vars[i]))
		cases = append(cases, jen.Case(jen.Lit(p.Name)).Block(jen.Id(vars[i]).Op("=").Id("o").Dot("value")))
	}
	cases = append(cases, jen.Default().Block(
		jen.If(jen.Id("extra").Op("==").Nil()).Block(jen.Id("extra").Op("=").Map(jen.String()).Qual("encoding/json", "RawMessage").Values()),
		jen.Id("extra").Index(jen.String().Parens(jen.Id("o").Dot("key"))).Op("=").Append(jen.Qual("encoding/json", "RawMessage").Parens(jen.Nil()), jen.Id("o").Dot("value").Op("...")),
	))
	body := []jen.Code{
		jen.Var().Id("extra").Map(jen.String()).Qual("encoding/json", "RawMessage"),
	}
	if len(decl) > 0 {
		body = append(body, jen.Var().List(decl...).Index().Byte())
	}
	body = append(body,
		jen.For(jen.Id("o").Op(":=").Parens(jen.Id("svObject").Values(jen.Dict{jen.Id("data"): jen.Id("v")})), jen.Id("o").Dot("next").Call(), jen.Empty()).Block(
			jen.Switch(jen.String().Parens(jen.Id("o").Dot("key"))).Block(cases...),
		),
	)
	for i, p := range t.Properties {
		field := jen.Id("out").Dot(FieldName(p.Name))
		v := jen.Id(vars[i])
		pt := p.Type
		var set []jen.Code
		switch {
		case pt.Const != nil:
			if p.Required {
				continue
			}
			set = []jen.Code{jen.Id("out").Dot("Has" + FieldName(p.Name)).Op("=").True()}
		case pt.Kind == schema.KindRef && idDefs[pt.Ref]:
			set = []jen.Code{
				jen.List(jen.Id("id"), jen.Err()).Op(":=").Id("s").Dot("requestID").Call(v),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
			}
			if p.Required {
				set = append(set, field.Clone().Op("=").Id("id"))
			} else {
				set = append(set, field.Clone().Op("=").Op("&").Id("id"))
			}
		case pt.Kind == schema.KindString && len(pt.Enum) == 0 && !pt.Nullable:
			set = []jen.Code{jen.Id("x").Op(":=").Id("svStringValue").Call(v)}
			if p.Required {
				set = append(set, field.Clone().Op("=").Id("x"))
			} else {
				set = append(set, field.Clone().Op("=").Op("&").Id("x"))
			}
		case pt.Kind == schema.KindObject && len(pt.Properties) == 0 && (pt.Additional == nil || pt.Additional.Kind == schema.KindAny) && !pt.Nullable:
			// A map of raw members (an open object such as _meta).
			set = []jen.Code{
				jen.Id("x").Op(":=").Map(jen.String()).Qual("encoding/json", "RawMessage").Values(),
				jen.For(jen.Id("o").Op(":=").Parens(jen.Id("svObject").Values(jen.Dict{jen.Id("data"): v.Clone()})), jen.Id("o").Dot("next").Call(), jen.Empty()).Block(
					jen.Id("x").Index(jen.String().Parens(jen.Id("o").Dot("key"))).Op("=").Append(jen.Qual("encoding/json", "RawMessage").Parens(jen.Nil()), jen.Id("s").Dot("span").Call(jen.Id("o").Dot("value")).Op("...")),
				),
				field.Clone().Op("=").Id("x"),
			}
		default:
			inline := InlineName(goType, p.Name)
			if _, taken := b.g.defs[inline]; taken {
				inline = "" // types.go adds a suffix: leave it to encoding/json
			}
			if name, st, ok := b.structName(pt, inline); ok && !pt.Nullable {
				fn, err := b.builder(name, st)
				if err != nil {
					return "", err
				}
				if p.Required {
					set = []jen.Code{jen.If(jen.Err().Op(":=").Id("s").Dot(fn).Call(v, jen.Op("&").Add(field.Clone())), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err()))}
				} else {
					set = []jen.Code{
						jen.Id("x").Op(":=").New(jen.Id(name)),
						jen.If(jen.Err().Op(":=").Id("s").Dot(fn).Call(v, jen.Id("x")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
						field.Clone().Op("=").Id("x"),
					}
				}
				break
			}
			set = []jen.Code{
				jen.If(jen.Err().Op(":=").Qual("encoding/json", "Unmarshal").Call(jen.Id("s").Dot("span").Call(v), jen.Op("&").Add(field.Clone())), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
			}
		}
		body = append(body, jen.If(v.Clone().Op("!=").Nil()).Block(set...))
	}
	body = append(body, jen.Id("out").Dot("Extra").Op("=").Id("extra"), jen.Return(jen.Nil()))
	b.funcs = append(b.funcs,
		jen.Commentf("%s fills out from the validated object v (%s).", fn, t.Pointer).Line().
			Func().Params(jen.Id("s").Op("*").Id("svState")).Id(fn).Params(jen.Id("v").Index().Byte(), jen.Id("out").Op("*").Id(goType)).Error().Block(body...))
	return fn, nil
}
