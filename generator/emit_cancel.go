package generator

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/schema"
)

func init() { register("cancel.go", emitCancel) }

// emitCancel writes cancel.go: DecodeCancelledNotification and
// DecodeCancelledNotificationParams (and their Validate twins), backed by
// validators generated from the model's Type tree of the definitions, so
// they accept exactly what the revision's schema accepts, plus the scanner
// they share, and the jsonrpc2.CancelledDecoder the generated Policy hands
// to the runtime: the wire path decodes notifications/cancelled with it.
func emitCancel(g *gen, f *jen.File) (bool, error) {
	def := g.m.Definition("CancelledNotification")
	if def == nil {
		return false, nil
	}
	if err := g.checkNames("cancel.go", "ValidationError", "DecodeCancelledNotification", "DecodeCancelledNotificationParams",
		"ValidateCancelledNotification", "ValidateCancelledNotificationParams", cancelledDecoderType); err != nil {
		return false, err
	}
	params := findProperty(def.Type, "params")
	if params == nil {
		return false, fmt.Errorf("cancel.go: CancelledNotification has no params member")
	}
	rootName := TypeName(def.Name)
	paramsName := InlineName(rootName, "params")
	if params.Type.Kind == schema.KindRef {
		paramsName = TypeName(params.Type.Ref)
	}

	v := &validatorGen{g: g, byDef: map[string]*vfn{}, names: map[string]bool{}}
	rootFn, err := v.validator(def.Type, "sv"+rootName, rootName)
	if err != nil {
		return false, err
	}
	var paramsFn *vfn
	if params.Type.Kind == schema.KindRef {
		paramsFn, err = v.validator(params.Type, "sv"+paramsName, "")
	} else {
		paramsFn = v.inline[params.Type]
	}
	if err != nil {
		return false, err
	}
	if rootFn == nil || rootFn.out != rootName || paramsFn == nil || paramsFn.out != paramsName {
		return false, fmt.Errorf("cancel.go: CancelledNotification or its params is not an object with properties")
	}

	decoder := func(typeName string, fn *vfn, what, pointer string) {
		validate := "Validate" + typeName
		scan := "scan" + typeName
		f.Commentf("Decode%s decodes %s, accepting exactly", typeName, what)
		f.Commentf("what the schema of revision %s accepts for %s", g.m.Revision, typeName)
		f.Commentf("(%s). One scan generated from the schema checks the syntax", pointer)
		f.Comment("and the schema and fills the value; the first violation is reported as a")
		f.Comment("*ValidationError naming its JSON pointer. Integers written as 1e2 or 7.0")
		f.Comment("(integers to JSON Schema) are decoded as 100 and 7.")
		f.Func().Id("Decode"+typeName).Params(jen.Id("data").Index().Byte()).Params(jen.Op("*").Id(typeName), jen.Error()).Block(
			jen.Id("out").Op(":=").New(jen.Id(typeName)),
			jen.If(jen.Id("e").Op(":=").Id(scan).Call(jen.Id("data"), jen.Id("out")), jen.Id("e").Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Id("e"))),
			jen.Return(jen.Id("out"), jen.Nil()),
		)
		f.Commentf("%s reports whether data is %s that", validate, what)
		f.Commentf("the schema of revision %s accepts for %s: nil, or a", g.m.Revision, typeName)
		f.Comment("*ValidationError naming the JSON pointer of the first violation. Syntax")
		f.Comment("follows encoding/json, as jsonschema/v5's input does: duplicate members are")
		f.Comment("allowed and the last one counts.")
		f.Func().Id(validate).Params(jen.Id("data").Index().Byte()).Error().Block(
			jen.If(jen.Id("e").Op(":=").Id(scan).Call(jen.Id("data"), jen.Nil()), jen.Id("e").Op("!=").Nil()).Block(jen.Return(jen.Id("e"))),
			jen.Return(jen.Nil()),
		)
		f.Commentf("%s validates data and, when out is not nil, fills *out from the", scan)
		f.Comment("same scan.")
		f.Func().Id(scan).Params(jen.Id("data").Index().Byte(), jen.Id("out").Op("*").Id(typeName)).Op("*").Id("ValidationError").Block(
			jen.Id("s").Op(":=").Id("svState").Values(jen.Add(gi("Validator")).Values(jen.Dict{jen.Id("Base"): jen.Id("data")})),
			jen.Id("i").Op(":=").Add(gi("SkipSpace")).Call(jen.Id("data"), jen.Lit(0)),
			jen.If(jen.Id("i").Op(">=").Len(jen.Id("data"))).Block(jen.Return(gi("InvalidJSON").Call(jen.Id("data")))),
			jen.List(jen.Id("end"), jen.Id("e")).Op(":=").Id("s").Dot(fn.name).Call(jen.Id("i"), jen.Id("out")),
			jen.If(jen.Id("end").Op("<").Lit(0).Op("||").Add(gi("SkipSpace")).Call(jen.Id("data"), jen.Id("end")).Op("!=").Len(jen.Id("data"))).Block(jen.Return(gi("InvalidJSON").Call(jen.Id("data")))),
			jen.Return(jen.Id("e")),
		)
	}
	decoder(rootName, rootFn, "a complete notifications/cancelled message", def.Pointer)
	decoder(paramsName, paramsFn, "the params of a notifications/cancelled message", params.Type.Pointer)
	if err := emitCancelledDecoder(g, f, params, paramsName); err != nil {
		return false, err
	}

	for _, fn := range v.funcs {
		f.Add(fn)
	}
	emitValidationTypes(f)
	return true, nil
}

// cancelledDecoderType is the generated jsonrpc2.CancelledDecoder, set as
// Policy.Cancelled by methods.go.
const cancelledDecoderType = "cancelledDecoder"

// emitCancelledDecoder writes cancelledDecoder: the params decoder as the
// runtime calls it. It fills a CancelledNotificationParams on the stack and
// hands the runtime the request id and reason; the params member's own
// requiredness (from the schema) decides what a notification without params
// is.
func emitCancelledDecoder(g *gen, f *jen.File, params *schema.Property, paramsName string) error {
	t := params.Type
	if t.Kind == schema.KindRef {
		d := g.m.Definition(t.Ref)
		if d == nil {
			return fmt.Errorf("cancel.go: %s refers to unknown definition %s", t.Pointer, t.Ref)
		}
		t = d.Type
	}
	rid, reason := findProperty(t, "requestId"), findProperty(t, "reason")
	if rid == nil || rid.Type.Kind != schema.KindRef || !idDefs[rid.Type.Ref] || rid.Type.Nullable {
		return fmt.Errorf("cancel.go: %s: requestId is not a RequestId", t.Pointer)
	}
	rt := func(name string) *jen.Statement { return jen.Qual(RuntimePath, name) }
	zero := rt("CancelledParams").Values()
	var absent jen.Code
	if params.Required {
		absent = jen.Return(zero, jen.Op("&").Id("ValidationError").Values(jen.Dict{jen.Id("Message"): jen.Lit(`missing required member "params"`)}))
	} else {
		absent = jen.Id("params").Op("=").Index().Byte().Parens(jen.Lit("{}"))
	}
	body := []jen.Code{
		jen.If(jen.Id("params").Op("==").Nil()).Block(absent),
		jen.Var().Id("p").Id(paramsName),
		jen.If(jen.Id("e").Op(":=").Id("scan"+paramsName).Call(jen.Id("params"), jen.Op("&").Id("p")), jen.Id("e").Op("!=").Nil()).Block(
			jen.Comment("Pointers are into the notification, as ValidateCancelledNotification's."),
			jen.Return(zero, jen.Id("e").Dot("In").Call(jen.Lit("params")))),
		jen.Var().Id("out").Add(rt("CancelledParams")),
	}
	if rid.Required {
		body = append(body, jen.Id("out").Dot("RequestID").Op("=").Id("p").Dot(FieldName(rid.Name)))
	} else {
		body = append(body, jen.If(jen.Id("p").Dot(FieldName(rid.Name)).Op("!=").Nil()).Block(
			jen.Id("out").Dot("RequestID").Op("=").Op("*").Id("p").Dot(FieldName(rid.Name))))
	}
	if reason != nil {
		if reason.Type.Kind != schema.KindString || reason.Type.Nullable || len(reason.Type.Enum) > 0 {
			return fmt.Errorf("cancel.go: %s: reason is not a plain string", t.Pointer)
		}
		if reason.Required {
			body = append(body, jen.Id("out").Dot("Reason").Op("=").Id("p").Dot(FieldName(reason.Name)))
		} else {
			body = append(body, jen.If(jen.Id("p").Dot(FieldName(reason.Name)).Op("!=").Nil()).Block(
				jen.Id("out").Dot("Reason").Op("=").Op("*").Id("p").Dot(FieldName(reason.Name))))
		}
	}
	body = append(body, jen.Return(jen.Id("out"), jen.Nil()))
	f.Commentf("%s is Decode%s as the runtime calls it: Policy sets it as", cancelledDecoderType, paramsName)
	f.Comment("jsonrpc2.Policy.Cancelled, so the Conn applies exactly the cancellations this")
	f.Comment("revision's schema accepts and ignores the rest with the *ValidationError that")
	f.Comment("says why. An empty struct, so Policy values stay comparable.")
	f.Type().Id(cancelledDecoderType).Struct()
	f.Comment("Decode implements jsonrpc2.CancelledDecoder.")
	f.Func().Params(jen.Id(cancelledDecoderType)).Id("Decode").Params(jen.Id("params").Index().Byte()).Params(rt("CancelledParams"), jen.Error()).Block(body...)
	return nil
}

func findProperty(t *schema.Type, name string) *schema.Property {
	for _, p := range t.Properties {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// idDefs are the definitions types.go makes aliases of jsonrpc2.RequestID.
var idDefs = map[string]bool{"RequestId": true, "ProgressToken": true}

// vfn is a generated validator method.
type vfn struct {
	name string
	// out is the Go struct type the validator fills when given a non-nil
	// destination (objects with properties whose Go type is known), else "".
	out string
}

// validatorGen turns schema Type trees into validator methods of svState:
// name(i int[, out *T]) (end int, e *ValidationError). Each consumes the JSON
// value starting at s.base[i], checking its syntax as it goes, and returns
// where it ends (-1 when the input is not valid JSON) and the first schema
// violation in it. A violation does not stop the scan, so one pass settles
// both the syntax and, for duplicated members, which occurrence counts (the
// last, as in encoding/json). Validators of objects with a Go struct type
// also fill *out when it is not nil, following types.go's layout: a field
// FieldName(member) per declared member (a pointer when optional, for
// structs, scalars and ids), none for required constants, HasX for optional
// ones, and Extra for undeclared members (nil when there are none); members
// of other kinds are decoded with encoding/json, as UnmarshalJSON does.
type validatorGen struct {
	g      *gen
	byDef  map[string]*vfn
	inline map[*schema.Type]*vfn
	funcs  []jen.Code
	names  map[string]bool
}

// structType is the Go struct type of the object node t, or "": a reference
// to a definition that is an object with properties, or an inline object
// with properties named inline by its parent.
func (v *validatorGen) structType(t *schema.Type, inline string) string {
	isStruct := func(t *schema.Type) bool {
		return t.Kind == schema.KindObject && len(t.Properties) > 0 && !t.Nullable &&
			(t.Additional == nil || t.Additional.Kind == schema.KindAny)
	}
	if t.Kind == schema.KindRef {
		d := v.g.m.Definition(t.Ref)
		for i := 0; d != nil && d.Type.Kind == schema.KindRef && !idDefs[d.Name] && i < 16; i++ {
			d = v.g.m.Definition(d.Type.Ref)
		}
		if d == nil || idDefs[d.Name] || t.Nullable || !isStruct(d.Type) {
			return ""
		}
		return TypeName(t.Ref)
	}
	if inline != "" && isStruct(t) {
		return inline
	}
	return ""
}

// validator returns the validator of t, emitting it (and those it calls) on
// first use; nil means t accepts every value. goType is the Go struct type
// of an inline object node ("" when unknown).
func (v *validatorGen) validator(t *schema.Type, name, goType string) (*vfn, error) {
	if t.Kind == schema.KindRef {
		if fn, ok := v.byDef[t.Ref]; ok {
			return fn, nil
		}
		d := v.g.m.Definition(t.Ref)
		if d == nil {
			return nil, fmt.Errorf("cancel.go: %s refers to unknown definition %s", t.Pointer, t.Ref)
		}
		out := ""
		if st := v.structType(&schema.Type{Kind: schema.KindRef, Ref: t.Ref}, ""); st != "" {
			out = st
		}
		fn := &vfn{name: "sv" + TypeName(d.Name), out: out}
		v.byDef[t.Ref] = fn // set first: recursive schemas call themselves
		target := d.Type
		if target.Kind == schema.KindRef {
			inner, err := v.validator(target, fn.name, "")
			if err != nil {
				return nil, err
			}
			v.byDef[t.Ref] = inner
			fn = inner
		} else if target.Kind == schema.KindAny {
			v.byDef[t.Ref] = nil
			return nil, nil
		} else if err := v.emit(target, fn); err != nil {
			return nil, err
		}
		if fn != nil && t.Nullable && !d.Type.Nullable {
			return v.nullableWrapper(fn, name), nil
		}
		return fn, nil
	}
	if t.Kind == schema.KindAny {
		return nil, nil
	}
	fn := &vfn{name: v.unique(name)}
	if t.Kind == schema.KindObject && v.structType(t, goType) != "" {
		fn.out = goType
		if v.inline == nil {
			v.inline = map[*schema.Type]*vfn{}
		}
		v.inline[t] = fn
	}
	if err := v.emit(t, fn); err != nil {
		return nil, err
	}
	return fn, nil
}

func (v *validatorGen) unique(name string) string {
	for v.names[name] {
		name += "_"
	}
	v.names[name] = true
	return name
}

// signature is the parameter list of a validator.
func signature(fn *vfn) []jen.Code {
	ps := []jen.Code{jen.Id("i").Int()}
	if fn.out != "" {
		ps = append(ps, jen.Id("out").Op("*").Id(fn.out))
	}
	return ps
}

// call calls fn on the value at pos, filling dst when fn fills a struct
// (dst nil: validate only).
func call(fn *vfn, pos jen.Code, dst jen.Code) *jen.Statement {
	args := []jen.Code{pos}
	if fn.out != "" {
		if dst == nil {
			dst = jen.Nil()
		}
		args = append(args, dst)
	}
	return jen.Id("s").Dot(fn.name).Call(args...)
}

// emit writes the validator fn of t (not a reference).
func (v *validatorGen) emit(t *schema.Type, fn *vfn) error {
	body, err := v.body(t, fn)
	if err != nil {
		return err
	}
	var stmts []jen.Code
	if t.Nullable {
		stmts = append(stmts, jen.If(jen.Id("s").Dot("Base").Index(jen.Id("i")).Op("==").Add(chr('n'))).Block(
			jen.Return(jen.Id("s").Dot("Skip").Call(jen.Id("i")), jen.Nil())))
	}
	stmts = append(stmts, body...)
	v.funcs = append(v.funcs,
		jen.Commentf("%s validates the value at i against %s.", fn.name, t.Pointer).Line().
			Func().Params(jen.Id("s").Op("*").Id("svState")).Id(fn.name).Params(signature(fn)...).Params(jen.Int(), jen.Op("*").Id("ValidationError")).Block(stmts...))
	return nil
}

func (v *validatorGen) nullableWrapper(fn *vfn, name string) *vfn {
	w := &vfn{name: v.unique(name), out: fn.out}
	var dst jen.Code
	if fn.out != "" {
		dst = jen.Id("out")
	}
	v.funcs = append(v.funcs,
		jen.Commentf("%s accepts null or what %s accepts.", w.name, fn.name).Line().
			Func().Params(jen.Id("s").Op("*").Id("svState")).Id(w.name).Params(signature(w)...).Params(jen.Int(), jen.Op("*").Id("ValidationError")).Block(
			jen.If(jen.Id("s").Dot("Base").Index(jen.Id("i")).Op("==").Add(chr('n'))).Block(jen.Return(jen.Id("s").Dot("Skip").Call(jen.Id("i")), jen.Nil())),
			jen.Return(call(fn, jen.Id("i"), dst)),
		))
	return w
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
		cond, what = jen.Id("s").Dot("Integer").Call(v), "an integer"
	case schema.KindNumber:
		if t.Const != nil || t.Minimum != nil || t.Maximum != nil {
			return nil, "", false
		}
		cond, what = gi("IsNumber").Call(v), "a number"
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
		jen.Id("end").Op(":=").Id("s").Dot("Skip").Call(jen.Id("i")),
		jen.If(jen.Id("end").Op("<").Lit(0)).Block(jen.Return(jen.Lit(-1), jen.Nil())),
		jen.Id("v").Op(":=").Id("s").Dot("Base").Index(jen.Id("i").Op(":").Id("end")),
	}
}

// body returns the statements of the validator of t (t is not a ref).
func (v *validatorGen) body(t *schema.Type, fn *vfn) ([]jen.Code, error) {
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
			out = append(out, jen.If(jen.Op("!").Add(gi("StringIs")).Call(jen.Id("v"), jen.Lit(c))).Block(fail(end, fmt.Sprintf("must be %q", c))))
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
			out = append(out, jen.Switch(gi("StringValue").Call(jen.Id("v"))).Block(
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
		return v.arrayBody(t, fn)
	case schema.KindUnion:
		return v.unionBody(t, fn)
	case schema.KindObject:
		return v.objectBody(t, fn)
	}
	return unsupported("kind " + string(t.Kind))
}

// wrongKind is the start of a container validator: a value of another kind
// is scanned and reported.
func wrongKind(open byte, msg string) jen.Code {
	return jen.If(jen.Id("s").Dot("Base").Index(jen.Id("i")).Op("!=").Add(chr(open))).Block(
		jen.Return(jen.Id("s").Dot("Skip").Call(jen.Id("i")), jen.Op("&").Id("ValidationError").Values(jen.Dict{jen.Id("Message"): jen.Lit(msg)})),
	)
}

func (v *validatorGen) arrayBody(t *schema.Type, fn *vfn) ([]jen.Code, error) {
	out := []jen.Code{wrongKind('[', "must be an array")}
	var item *vfn
	if t.Items != nil {
		it, err := v.validator(t.Items, fn.name+"Item", "")
		if err != nil {
			return nil, err
		}
		item = it
	}
	var loop []jen.Code
	if item != nil {
		loop = append(loop,
			jen.Var().Id("e").Op("*").Id("ValidationError"),
			jen.List(jen.Id("a").Dot("End"), jen.Id("e")).Op("=").Add(call(item, jen.Id("a").Dot("Value"), nil)),
			jen.If(jen.Id("e").Op("!=").Nil().Op("&&").Id("first").Op("==").Nil()).Block(
				jen.Id("first").Op("=").Id("e").Dot("In").Call(jen.Qual("strconv", "Itoa").Call(jen.Id("n"))),
			),
		)
	} else {
		loop = append(loop, jen.Id("a").Dot("End").Op("=").Id("s").Dot("Skip").Call(jen.Id("a").Dot("Value")))
	}
	loop = append(loop, jen.Id("n").Op("++"))
	out = append(out,
		jen.Var().Id("first").Op("*").Id("ValidationError"),
		jen.Id("n").Op(":=").Lit(0),
		jen.Id("a").Op(":=").Id("s").Dot("Items").Call(jen.Id("i")),
		jen.For(jen.Id("a").Dot("Next").Call()).Block(loop...),
		jen.If(jen.Id("a").Dot("Bad")).Block(jen.Return(jen.Lit(-1), jen.Nil())),
	)
	if t.MaxItems != nil {
		out = append(out, jen.If(jen.Id("n").Op(">").Lit(*t.MaxItems).Op("&&").Id("first").Op("==").Nil()).Block(
			jen.Id("first").Op("=").Op("&").Id("ValidationError").Values(jen.Dict{jen.Id("Message"): jen.Lit(fmt.Sprintf("must have at most %d items", *t.MaxItems))}),
		))
	}
	return append(out, jen.Return(jen.Id("a").Dot("I"), jen.Id("first"))), nil
}

// unionBody accepts a value that one of the branches accepts (anyOf).
func (v *validatorGen) unionBody(t *schema.Type, fn *vfn) ([]jen.Code, error) {
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
		bf, err := v.validator(b, fmt.Sprintf("%sBranch%d", fn.name, i), "")
		if err != nil {
			return nil, err
		}
		if bf == nil {
			return []jen.Code{jen.Return(jen.Id("s").Dot("Skip").Call(jen.Id("i")), jen.Nil())}, nil
		}
		out = append(out,
			jen.If(jen.List(jen.Id("end"), jen.Id("e")).Op(":=").Add(call(bf, jen.Id("i"), nil)), jen.Id("end").Op("<").Lit(0).Op("||").Id("e").Op("==").Nil()).Block(
				jen.Return(jen.Id("end"), jen.Nil()),
			))
	}
	out = append(out, jen.Return(jen.Id("s").Dot("Skip").Call(jen.Id("i")),
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
// in declaration order; a validator with a struct type then fills *out.
func (v *validatorGen) objectBody(t *schema.Type, fn *vfn) ([]jen.Code, error) {
	out := []jen.Code{wrongKind('{', "must be an object")}
	if t.Additional != nil && t.Additional.Kind != schema.KindAny {
		return nil, fmt.Errorf("cancel.go: %s: the validator emitter does not support typed additionalProperties", t.Pointer)
	}
	if len(t.Properties) == 0 {
		return append(out, jen.Return(jen.Id("s").Dot("Skip").Call(jen.Id("i")), jen.Nil())), nil
	}
	build := fn.out != ""
	type member struct {
		p          *schema.Property
		base       string // suffix of the local names
		fn         *vfn
		structType string // Go struct type the member's validator fills
	}
	var ms []member
	used := map[string]bool{}
	for _, p := range t.Properties {
		base := FieldName(p.Name)
		for used[base] {
			base += "_"
		}
		used[base] = true
		inline := ""
		if build {
			inline = InlineName(fn.out, p.Name)
			if v.g.m.Definition(inline) != nil {
				inline = "" // types.go adds a suffix: leave the member to encoding/json
			}
		}
		mf, err := v.validator(p.Type, fn.name+FieldName(p.Name), inline)
		if err != nil {
			return nil, err
		}
		m := member{p: p, base: base, fn: mf}
		if build && mf != nil && mf.out != "" && p.Type.Const == nil {
			m.structType = mf.out
		}
		ms = append(ms, m)
	}

	var decl []jen.Code
	if build {
		decl = append(decl, jen.Var().Id("extra").Map(jen.String()).Qual("encoding/json", "RawMessage"))
	}
	var cases []jen.Code
	for _, m := range ms {
		var set []jen.Code
		if m.p.Required {
			decl = append(decl, jen.Var().Id("h"+m.base).Bool())
			set = append(set, jen.Id("h"+m.base).Op("=").True())
		}
		switch {
		case m.fn == nil:
			set = append(set, jen.Id("m").Dot("End").Op("=").Id("s").Dot("Skip").Call(jen.Id("m").Dot("Value")))
		case m.structType != "":
			// Filled in place: the field for a required member, a fresh
			// value for an optional one (the last occurrence wins).
			decl = append(decl, jen.Var().Id("e"+m.base).Op("*").Id("ValidationError"))
			field := jen.Id("out").Dot(FieldName(m.p.Name))
			if m.p.Required {
				set = append(set,
					jen.Var().Id("dst").Op("*").Id(m.structType),
					jen.If(jen.Id("out").Op("!=").Nil()).Block(
						jen.Id("dst").Op("=").Op("&").Add(field.Clone()),
						jen.Op("*").Id("dst").Op("=").Id(m.structType).Values(),
					),
				)
			} else {
				set = append(set,
					jen.Var().Id("dst").Op("*").Id(m.structType),
					jen.If(jen.Id("out").Op("!=").Nil()).Block(
						jen.Id("dst").Op("=").New(jen.Id(m.structType)),
						field.Clone().Op("=").Id("dst"),
					),
				)
			}
			set = append(set, jen.List(jen.Id("m").Dot("End"), jen.Id("e"+m.base)).Op("=").Add(call(m.fn, jen.Id("m").Dot("Value"), jen.Id("dst"))))
		default:
			decl = append(decl, jen.Var().Id("e"+m.base).Op("*").Id("ValidationError"))
			set = append(set, jen.List(jen.Id("m").Dot("End"), jen.Id("e"+m.base)).Op("=").Add(call(m.fn, jen.Id("m").Dot("Value"), nil)))
		}
		if build && m.structType == "" && !(m.p.Type.Const != nil && m.p.Required) {
			decl = append(decl, jen.Var().Id("v"+m.base).Index().Byte())
			set = append(set, jen.If(jen.Id("m").Dot("End").Op(">=").Lit(0)).Block(
				jen.Id("v"+m.base).Op("=").Id("s").Dot("Base").Index(jen.Id("m").Dot("Value").Op(":").Id("m").Dot("End")),
			))
		}
		cases = append(cases, jen.Case(jen.Lit(m.p.Name)).Block(set...))
	}
	def := []jen.Code{jen.Id("m").Dot("End").Op("=").Id("s").Dot("Skip").Call(jen.Id("m").Dot("Value"))}
	if build {
		def = append(def, jen.If(jen.Id("out").Op("!=").Nil().Op("&&").Id("m").Dot("End").Op(">=").Lit(0)).Block(
			jen.If(jen.Id("extra").Op("==").Nil()).Block(jen.Id("extra").Op("=").Map(jen.String()).Qual("encoding/json", "RawMessage").Values()),
			jen.Id("extra").Index(jen.String().Parens(jen.Id("m").Dot("Key"))).Op("=").Append(jen.Qual("encoding/json", "RawMessage").Parens(jen.Nil()), jen.Id("s").Dot("Base").Index(jen.Id("m").Dot("Value").Op(":").Id("m").Dot("End")).Op("...")),
		))
	}
	cases = append(cases, jen.Default().Block(def...))
	out = append(out, decl...)
	out = append(out,
		jen.Id("m").Op(":=").Id("s").Dot("Members").Call(jen.Id("i")),
		jen.For(jen.Id("m").Dot("Next").Call()).Block(jen.Switch(jen.String().Parens(jen.Id("m").Dot("Key"))).Block(cases...)),
		jen.If(jen.Id("m").Dot("Bad")).Block(jen.Return(jen.Lit(-1), jen.Nil())),
	)
	for _, m := range ms {
		if m.p.Required {
			out = append(out, jen.If(jen.Op("!").Id("h"+m.base)).Block(fail(jen.Id("m").Dot("I"), fmt.Sprintf("missing required member %q", m.p.Name))))
		}
	}
	for _, m := range ms {
		if m.fn == nil {
			continue
		}
		e := "e" + m.base
		out = append(out, jen.If(jen.Id(e).Op("!=").Nil()).Block(
			jen.Return(jen.Id("m").Dot("I"), jen.Id(e).Dot("In").Call(jen.Lit(pointerSegment(m.p.Name)))),
		))
	}
	if build {
		var fill []jen.Code
		for _, m := range ms {
			if m.structType != "" || (m.p.Type.Const != nil && m.p.Required) {
				continue
			}
			set, err := v.fill(m.p, jen.Id("v"+m.base))
			if err != nil {
				return nil, err
			}
			fill = append(fill, jen.If(jen.Id("v"+m.base).Op("!=").Nil()).Block(set...))
		}
		fill = append(fill, jen.Id("out").Dot("Extra").Op("=").Id("extra"))
		out = append(out, jen.If(jen.Id("out").Op("!=").Nil()).Block(fill...))
	}
	return append(out, jen.Return(jen.Id("m").Dot("I"), jen.Nil())), nil
}

// fill returns the statements that set the field of member p from its
// validated value v (in a func returning (int, *ValidationError)).
func (v *validatorGen) fill(p *schema.Property, val *jen.Statement) ([]jen.Code, error) {
	field := jen.Id("out").Dot(FieldName(p.Name))
	pt := p.Type
	fail := func() jen.Code {
		return jen.Return(jen.Id("m").Dot("I"), jen.Op("&").Id("ValidationError").Values(jen.Dict{jen.Id("Pointer"): jen.Lit("/" + pointerSegment(p.Name)), jen.Id("Message"): jen.Lit("valid, but cannot be decoded: ").Op("+").Err().Dot("Error").Call(), jen.Id("Err"): jen.Err()}))
	}
	switch {
	case pt.Const != nil:
		return []jen.Code{jen.Id("out").Dot("Has" + FieldName(p.Name)).Op("=").True()}, nil
	case pt.Kind == schema.KindRef && idDefs[pt.Ref] && !pt.Nullable:
		set := []jen.Code{
			jen.List(jen.Id("id"), jen.Err()).Op(":=").Id("s").Dot("RequestID").Call(val.Clone()),
			jen.If(jen.Err().Op("!=").Nil()).Block(fail()),
		}
		if p.Required {
			return append(set, field.Clone().Op("=").Id("id")), nil
		}
		return append(set, field.Clone().Op("=").Op("&").Id("id")), nil
	case pt.Kind == schema.KindString && len(pt.Enum) == 0 && !pt.Nullable:
		set := []jen.Code{jen.Id("x").Op(":=").Id("s").Dot("Text").Call(val.Clone())}
		if p.Required {
			return append(set, field.Clone().Op("=").Id("x")), nil
		}
		return append(set, field.Clone().Op("=").Op("&").Id("x")), nil
	case pt.Kind == schema.KindObject && len(pt.Properties) == 0 && (pt.Additional == nil || pt.Additional.Kind == schema.KindAny) && !pt.Nullable:
		// A map of raw members (an open object such as _meta).
		return []jen.Code{
			jen.Id("x").Op(":=").Map(jen.String()).Qual("encoding/json", "RawMessage").Values(),
			jen.For(jen.Id("o").Op(":=").Parens(gi("RawObject").Values(jen.Dict{jen.Id("Data"): val.Clone()})), jen.Id("o").Dot("Next").Call(), jen.Empty()).Block(
				jen.Id("x").Index(jen.String().Parens(jen.Id("o").Dot("Key"))).Op("=").Append(jen.Qual("encoding/json", "RawMessage").Parens(jen.Nil()), jen.Id("s").Dot("Span").Call(jen.Id("o").Dot("Value")).Op("...")),
			),
			field.Clone().Op("=").Id("x"),
		}, nil
	}
	return []jen.Code{
		jen.If(jen.Err().Op(":=").Qual("encoding/json", "Unmarshal").Call(jen.Id("s").Dot("Span").Call(val.Clone()), jen.Op("&").Add(field.Clone())), jen.Err().Op("!=").Nil()).Block(fail()),
	}, nil
}

// pointerSegment escapes a member name for a JSON pointer (RFC 6901).
func pointerSegment(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
