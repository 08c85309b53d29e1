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
				jen.If(jen.Op("!").Id("svValid").Call(jen.Id("data"))).Block(ret(jen.Id("svInvalidJSON").Call(jen.Id("data")))),
				jen.Id("s").Op(":=").Id("svState").Values(jen.Dict{jen.Id("base"): jen.Id("data")}),
			}
			if checkFn != "" {
				body = append(body,
					jen.If(jen.Id("e").Op(":=").Id("s").Dot(checkFn).Call(jen.Id("svTrim").Call(jen.Id("data"))), jen.Id("e").Op("!=").Nil()).Block(ret(jen.Id("e"))),
				)
			}
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

// validatorGen turns schema Type trees into Go functions
// func(v []byte) *ValidationError that check one valid JSON value (without
// surrounding whitespace) against the schema node.
type validatorGen struct {
	g     *gen
	byDef map[string]string // definition name → its validator, "" when it accepts anything
	funcs []jen.Code
	names map[string]bool
}

// validator returns the name of the function that validates t, emitting it
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
		stmts = append(stmts, jen.If(jen.Id("v").Index(jen.Lit(0)).Op("==").Add(chr('n'))).Block(jen.Return(jen.Nil())))
	}
	stmts = append(stmts, body...)
	stmts = append(stmts, jen.Return(jen.Nil()))
	v.funcs = append(v.funcs,
		jen.Commentf("%s validates a value against %s.", name, t.Pointer).Line().
			Func().Params(jen.Id("s").Op("*").Id("svState")).Id(name).Params(jen.Id("v").Index().Byte()).Op("*").Id("ValidationError").Block(stmts...))
	return name, nil
}

func (v *validatorGen) nullableWrapper(fn, name string) (string, error) {
	for v.names[name] {
		name += "_"
	}
	v.names[name] = true
	v.funcs = append(v.funcs,
		jen.Commentf("%s accepts null or what %s accepts.", name, fn).Line().
			Func().Params(jen.Id("s").Op("*").Id("svState")).Id(name).Params(jen.Id("v").Index().Byte()).Op("*").Id("ValidationError").Block(
			jen.If(jen.Id("v").Index(jen.Lit(0)).Op("==").Add(chr('n'))).Block(jen.Return(jen.Nil())),
			jen.Return(jen.Id("s").Dot(fn).Call(jen.Id("v"))),
		))
	return name, nil
}

// chr is a byte literal as Go source: chr('{') renders as '{'.
func chr(c byte) jen.Code { return jen.Id(fmt.Sprintf("%q", rune(c))) }

func fail(msg string) jen.Code {
	return jen.Return(jen.Op("&").Id("ValidationError").Values(jen.Dict{jen.Id("Message"): jen.Lit(msg)}))
}

// kindPredicate returns a Go condition that is true when v is of the plain
// kind k, and the kind's name for messages.
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

// body returns the statements that check v against t (t is not a ref).
func (v *validatorGen) body(t *schema.Type, name string) ([]jen.Code, error) {
	unsupported := func(what string) ([]jen.Code, error) {
		return nil, fmt.Errorf("cancel.go: %s: the validator emitter does not support %s", t.Pointer, what)
	}
	first := func() *jen.Statement { return jen.Id("v").Index(jen.Lit(0)) }
	switch t.Kind {
	case schema.KindString:
		if t.Format != "" {
			return unsupported("format " + t.Format)
		}
		out := []jen.Code{jen.If(first().Op("!=").Add(chr('"'))).Block(fail("must be a string"))}
		if c, ok := t.Const.(string); ok {
			out = append(out, jen.If(jen.Op("!").Id("svStringIs").Call(jen.Id("v"), jen.Lit(c))).Block(fail(fmt.Sprintf("must be %q", c))))
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
				jen.Default().Block(fail("must be one of "+strings.Join(quoted, ", "))),
			))
		}
		return out, nil
	case schema.KindInteger, schema.KindNumber, schema.KindBoolean:
		cond, what, ok := kindPredicate(&schema.Type{Kind: t.Kind})
		if !ok || t.Const != nil || t.Minimum != nil || t.Maximum != nil {
			return unsupported("const or bounds on a " + string(t.Kind))
		}
		return []jen.Code{jen.If(jen.Op("!").Parens(cond)).Block(fail("must be " + what))}, nil
	case schema.KindArray:
		out := []jen.Code{jen.If(first().Op("!=").Add(chr('['))).Block(fail("must be an array"))}
		var itemFn string
		if t.Items != nil {
			fn, err := v.validator(t.Items, name+"Item")
			if err != nil {
				return nil, err
			}
			itemFn = fn
		}
		if itemFn == "" && t.MaxItems == nil {
			return out, nil
		}
		loop := []jen.Code{}
		if itemFn != "" {
			loop = append(loop, jen.If(jen.Id("e").Op(":=").Id("s").Dot(itemFn).Call(jen.Id("a").Dot("value")), jen.Id("e").Op("!=").Nil()).Block(
				jen.Return(jen.Id("e").Dot("in").Call(jen.Qual("strconv", "Itoa").Call(jen.Id("n")))),
			))
		}
		loop = append(loop, jen.Id("n").Op("++"))
		out = append(out,
			jen.Id("n").Op(":=").Lit(0),
			jen.For(jen.Id("a").Op(":=").Parens(jen.Id("svArray").Values(jen.Dict{jen.Id("data"): jen.Id("v")})), jen.Id("a").Dot("next").Call(), jen.Empty()).Block(loop...),
		)
		if t.MaxItems != nil {
			out = append(out, jen.If(jen.Id("n").Op(">").Lit(*t.MaxItems)).Block(fail(fmt.Sprintf("must have at most %d items", *t.MaxItems))))
		}
		return out, nil
	case schema.KindUnion:
		return v.unionBody(t, name)
	case schema.KindObject:
		return v.objectBody(t, name)
	}
	return unsupported("kind " + string(t.Kind))
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
		return []jen.Code{jen.If(jen.Op("!").Parens(all)).Block(fail("must be " + joinOr(whats)))}, nil
	}
	var out []jen.Code
	for i, b := range t.Union.Branches {
		fn, err := v.validator(b, fmt.Sprintf("%sBranch%d", name, i))
		if err != nil {
			return nil, err
		}
		if fn == "" {
			return nil, nil // a branch that accepts anything
		}
		out = append(out, jen.If(jen.Id("s").Dot(fn).Call(jen.Id("v")).Op("==").Nil()).Block(jen.Return(jen.Nil())))
	}
	out = append(out, fail("matches none of the alternatives of "+t.Pointer))
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

// objectBody checks an object's declared members (the last occurrence of a
// duplicated member counts, as in encoding/json), required members and
// undeclared members.
func (v *validatorGen) objectBody(t *schema.Type, name string) ([]jen.Code, error) {
	out := []jen.Code{jen.If(jen.Id("v").Index(jen.Lit(0)).Op("!=").Add(chr('{'))).Block(fail("must be an object"))}
	if t.Additional != nil && t.Additional.Kind != schema.KindAny {
		return nil, fmt.Errorf("cancel.go: %s: the validator emitter does not support typed additionalProperties", t.Pointer)
	}
	if len(t.Properties) == 0 {
		return out, nil
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
		decl = append(decl, jen.Id(vars[i]))
		cases = append(cases, jen.Case(jen.Lit(p.Name)).Block(jen.Id(vars[i]).Op("=").Id("o").Dot("value")))
	}
	out = append(out,
		jen.Var().List(decl...).Index().Byte(),
		jen.For(jen.Id("o").Op(":=").Parens(jen.Id("svObject").Values(jen.Dict{jen.Id("data"): jen.Id("v")})), jen.Id("o").Dot("next").Call(), jen.Empty()).Block(
			jen.Switch(jen.String().Parens(jen.Id("o").Dot("key"))).Block(cases...),
		),
	)
	for i, p := range t.Properties {
		if p.Required {
			out = append(out, jen.If(jen.Id(vars[i]).Op("==").Nil()).Block(fail(fmt.Sprintf("missing required member %q", p.Name))))
		}
	}
	for i, p := range t.Properties {
		fn, err := v.validator(p.Type, name+FieldName(p.Name))
		if err != nil {
			return nil, err
		}
		if fn == "" {
			continue
		}
		check := jen.If(jen.Id("e").Op(":=").Id("s").Dot(fn).Call(jen.Id(vars[i])), jen.Id("e").Op("!=").Nil()).Block(
			jen.Return(jen.Id("e").Dot("in").Call(jen.Lit(pointerSegment(p.Name)))),
		)
		if p.Required {
			out = append(out, check)
		} else {
			out = append(out, jen.If(jen.Id(vars[i]).Op("!=").Nil()).Block(check))
		}
	}
	return out, nil
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
