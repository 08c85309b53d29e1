package generator

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/schema"
)

// variant is one branch of a union as a Go type.
type variant struct {
	goName string
	ptr    bool   // the value is *goName
	kind   string // JSON kind: object, array, string, number, boolean
	obj    *schema.Type
}

func (v variant) typeString() string {
	if v.ptr {
		return "*" + v.goName
	}
	return v.goName
}

var kindWords = map[schema.Kind]string{
	schema.KindObject: "Object", schema.KindArray: "Array", schema.KindString: "String",
	schema.KindInteger: "Integer", schema.KindNumber: "Number", schema.KindBoolean: "Boolean",
}

func jsonKindOf(k schema.Kind) string {
	switch k {
	case schema.KindInteger, schema.KindNumber:
		return "number"
	}
	return string(k)
}

var kindBytes = map[string]byte{"object": '{', "array": '[', "string": '"', "number": '0', "boolean": 'b'}

// variants plans the Go type of every branch of u. Branches that are
// references use the definition's type; the others are declared as
// <Union><Kind> (with a position number when two branches share a kind).
func (t *tgen) variants(name string, u *schema.Union) ([]variant, error) {
	count := map[schema.Kind]int{}
	for _, b := range u.Branches {
		if b.Kind != schema.KindRef {
			count[b.Kind]++
		}
	}
	seen := map[schema.Kind]int{}
	out := make([]variant, len(u.Branches))
	for i, b := range u.Branches {
		if b.Kind == schema.KindRef {
			d, err := t.def(b)
			if err != nil {
				return nil, err
			}
			if idDefinitions[d.Name] || rawDefinitions[d.Name] != "" {
				return nil, fmt.Errorf("%s: unsupported: union branch %s is not a type of this package", b.Pointer, d.Name)
			}
			tg, err := t.target(d)
			if err != nil {
				return nil, err
			}
			ty := tg.Type
			switch ty.Kind {
			case schema.KindUnion:
				return nil, fmt.Errorf("%s: unsupported: union branch %s is itself a union", b.Pointer, d.Name)
			case schema.KindAny:
				return nil, fmt.Errorf("%s: unsupported: union branch %s admits any value", b.Pointer, d.Name)
			}
			out[i] = variant{goName: TypeName(tg.Name), kind: jsonKindOf(ty.Kind)}
			if ty.Kind == schema.KindObject {
				out[i].obj = ty
				out[i].ptr = len(ty.Properties) > 0
			}
			continue
		}
		word, ok := kindWords[b.Kind]
		if !ok {
			return nil, fmt.Errorf("%s: unsupported union branch kind %q", b.Pointer, b.Kind)
		}
		vn := name + word
		if count[b.Kind] > 1 {
			seen[b.Kind]++
			vn += fmt.Sprint(seen[b.Kind])
			if v := discriminatorValue(u, i); v != "" {
				// Inline object branches told apart by a constant are named
				// after it (GetTaskResultWorking, GetTaskResultFailed), not
				// by position.
				vn = name + FieldName(strings.ReplaceAll(v, "/", "_"))
			}
		}
		if err := t.claim(vn, b.Pointer); err != nil {
			return nil, err
		}
		out[i] = variant{goName: vn, kind: jsonKindOf(b.Kind)}
		if b.Kind == schema.KindObject {
			out[i].obj = b
			out[i].ptr = len(b.Properties) > 0
		}
	}
	return out, nil
}

// discriminatorValue is the one value of u's discriminator that branch i
// takes, or "" when u is not decided by a discriminator or the branch
// takes several values or none.
func discriminatorValue(u *schema.Union, i int) string {
	if u.Strategy != schema.StrategyDiscriminator || i >= len(u.Values) || len(u.Values[i]) != 1 || u.DefaultBranch == i {
		return ""
	}
	return u.Values[i][0]
}

// retVariant decodes data as v and returns it as the union.
func (t *tgen) retVariant(union string, v variant) []jen.Code {
	fn := "decodeValue"
	if v.ptr {
		fn = "decodePointer"
	}
	return []jen.Code{jen.Return(t.use(fn).Types(jen.Id(union), jen.Id(v.goName)).Call(jen.Id("data")))}
}

func decodeErr(name string, member string, err jen.Code) *jen.Statement {
	items := []jen.Code{jen.Id("Type").Op(":").Lit(name)}
	if member != "" {
		items = append(items, jen.Id("Member").Op(":").Lit(member))
	}
	items = append(items, jen.Id("Err").Op(":").Add(err))
	return jen.Op("&").Id("DecodeError").Values(items...)
}

func (t *tgen) emitUnion(name string, u *schema.Union, doc []string) error {
	if u.Strategy == schema.StrategyByMethod {
		return t.emitByMethod(name, u, doc)
	}
	vs, err := t.variants(name, u)
	if err != nil {
		return err
	}
	catchAll := u.DefaultBranch >= 0 && u.DefaultBranch < len(u.Values) && len(u.Values[u.DefaultBranch]) == 0
	discriminated := u.Discriminator != "" && (u.Strategy == schema.StrategyDiscriminator || u.Strategy == schema.StrategyJSONKind)
	unknown := ""
	if discriminated && !catchAll {
		unknown = "Unknown" + name
		if err := t.claim(unknown, u.Pointer); err != nil {
			return err
		}
	}
	if err := t.claim("Decode"+name, u.Pointer); err != nil {
		return err
	}
	marker := "is" + name

	// The interface.
	var impl []string
	for _, v := range vs {
		impl = append(impl, v.typeString())
	}
	if unknown != "" {
		impl = append(impl, "*"+unknown+fmt.Sprintf(" (a %q this package does not know, kept raw)", u.Discriminator))
	}
	doc = append(doc, "//", fmt.Sprintf("%s is a union: its values are %s.", name, strings.Join(impl, ", ")),
		fmt.Sprintf("[Decode%s] tells them apart %s.", name, strategyProse(u)))
	var methods []jen.Code
	if acc := t.sharedAccessor(u, vs); acc != "" {
		methods = append(methods,
			jen.Comment(fmt.Sprintf("%s returns the %q member that tells the branches apart.", acc, u.Discriminator)),
			jen.Id(acc).Params().String())
	}
	methods = append(methods, jen.Id(marker).Params())
	t.f.Add(comment(doc)).Type().Id(name).Interface(methods...)

	// Variant types declared for non-reference branches.
	for i, b := range u.Branches {
		if b.Kind == schema.KindRef {
			continue
		}
		vd := t.link.docFor(b.Description, fmt.Sprintf("%s is the %s branch of [%s].", vs[i].goName, kindWords[b.Kind], name))
		if err := t.emitNamed(vs[i].goName, b, vd); err != nil {
			return err
		}
		if b.Kind == schema.KindNumber && slices.Contains(u.Kinds, "integer") {
			t.emitNumberBranchCodec(vs[i].goName, name)
		}
	}
	// Markers.
	for _, v := range vs {
		key := v.goName + "." + marker
		if t.markers[key] {
			continue
		}
		t.markers[key] = true
		recv := jen.Id(v.goName)
		if v.ptr {
			recv = jen.Op("*").Id(v.goName)
		}
		t.f.Func().Params(recv).Id(marker).Params().Block()
	}
	if unknown != "" {
		t.f.Comment(fmt.Sprintf("%s is a [%s] whose %q member has a value this package does not", unknown, name, u.Discriminator))
		t.f.Comment("know (a newer revision's, or a peer's extension). Raw is the value exactly as")
		t.f.Comment("received, and it is written back unchanged.")
		t.f.Type().Id(unknown).Struct(
			jen.Comment("Raw is the whole value as received."),
			jen.Id("Raw").Add(rawMessage()),
		)
		t.f.Func().Params(jen.Op("*").Id(unknown)).Id(marker).Params().Block()
		t.f.Comment("MarshalJSON returns Raw unchanged.")
		t.f.Func().Params(jen.Id("x").Id(unknown)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
			jen.If(jen.Id("x").Dot("Raw").Op("==").Nil()).Block(
				jen.Return(jen.Nil(), jen.Qual(errorsPkg, "New").Call(jen.Lit(t.opts.Package+": "+unknown+" has no Raw value"))),
			),
			jen.Return(jen.Id("x").Dot("Raw"), jen.Nil()),
		)
		t.f.Comment(fmt.Sprintf("%s returns the %q member of Raw, or \"\" when it is not a string.", FieldName(u.Discriminator), u.Discriminator))
		t.f.Func().Params(jen.Id("x").Id(unknown)).Id(FieldName(u.Discriminator)).Params().String().Block(
			jen.Var().Id("m").Struct(jen.Id("V").String().Tag(map[string]string{"json": u.Discriminator})),
			jen.Id("_").Op("=").Qual(jsonPkg, "Unmarshal").Call(jen.Id("x").Dot("Raw"), jen.Op("&").Id("m")),
			jen.Return(jen.Id("m").Dot("V")),
		)
	}

	var body []jen.Code
	switch u.Strategy {
	case schema.StrategyDiscriminator:
		body = append(body, t.discriminate(name, u, vs, unknown, catchAll)...)
	case schema.StrategyRequiredKey:
		body = append(body, t.objectPrelude(name)...)
		var keys []string
		for i, vals := range u.Values {
			if i == u.DefaultBranch || len(vals) == 0 {
				continue
			}
			keys = append(keys, fmt.Sprintf("%q", vals[0]))
			body = append(body, jen.If(jen.List(jen.Id("_"), jen.Id("ok")).Op(":=").Id("m").Index(jen.Lit(vals[0])), jen.Id("ok")).Block(t.retVariant(name, vs[i])...))
		}
		if u.DefaultBranch >= 0 {
			body = append(body, t.retVariant(name, vs[u.DefaultBranch])...)
		} else {
			body = append(body, jen.Return(jen.Nil(), decodeErr(name, "", jen.Qual(errorsPkg, "New").Call(jen.Lit("none of the members "+strings.Join(keys, ", ")+" is present")))))
		}
	case schema.StrategyStructural:
		var idx []int
		for _, i := range u.Order {
			if vs[i].obj == nil {
				return fmt.Errorf("%s: unsupported: structural union branch %d is not an object", u.Pointer, i)
			}
			idx = append(idx, i)
		}
		body = append(body, t.structural(name, vs, idx)...)
	case schema.StrategyJSONKind:
		var cases []jen.Code
		var objects []int
		var kinds []string
		integer := slices.Index(u.Kinds, "integer")
		for i, k := range u.Kinds {
			switch k {
			case "object":
				objects = append(objects, i)
				continue
			case "integer":
				// Decided together with its "number" sibling below.
				continue
			}
			kinds = append(kinds, kindArticle(k))
			ret := t.retVariant(name, vs[i])
			if k == "number" && integer >= 0 {
				// The literal decides: 95 is the integer branch, 95.5
				// (and 95.0, 1e3, integers beyond int64) the number one.
				ret = append([]jen.Code{jen.If(gi("IsInt64Literal").Call(jen.Id("data"))).Block(t.retVariant(name, vs[integer])...)}, ret...)
			}
			cases = append(cases, jen.Case(charLit(kindBytes[k])).Block(ret...))
		}
		if len(objects) > 0 {
			kinds = append(kinds, "an object")
			var ob []jen.Code
			switch {
			case len(objects) == 1:
				ob = t.retVariant(name, vs[objects[0]])
			case u.Discriminator != "":
				ob = t.discriminate(name, u, vs, unknown, catchAll)
			default:
				order := u.Order
				if len(order) == 0 {
					order = objects
				}
				ob = t.structural(name, vs, order)
			}
			cases = append(cases, jen.Case(charLit('{')).Block(ob...))
		}
		body = append(body, jen.Switch(gi("Kind").Call(jen.Id("data"))).Block(cases...),
			jen.Return(jen.Nil(), decodeErr(name, "", kindErr("want "+strings.Join(kinds, ", ")+"; got %s"))))
	case schema.StrategyEnvelope:
		b, err := t.envelope(name, u, vs)
		if err != nil {
			return err
		}
		body = b
	default:
		return fmt.Errorf("%s: unsupported union strategy %q", u.Pointer, u.Strategy)
	}
	t.f.Comment(fmt.Sprintf("Decode%s decodes one %s %s.", name, name, strategyProse(u)))
	t.f.Func().Id("Decode"+name).Params(jen.Id("data").Index().Byte()).Params(jen.Id(name), jen.Error()).Block(body...)
	return nil
}

// emitNumberBranchCodec gives the number branch of a union that also has
// an integer branch an encoding that never reads as an integer literal
// (95 is written 95.0), so what it writes decodes back to the number
// branch: Decode<union> sends integer literals to the integer branch.
func (t *tgen) emitNumberBranchCodec(goName, union string) {
	t.f.Comment("MarshalJSON writes the number; an integral one with \".0\" (95.0), so that")
	t.f.Comment(fmt.Sprintf("[Decode%s] reads it back as this branch, not the integer one.", union))
	t.f.Func().Params(jen.Id("x").Id(goName)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Return(jen.Id("x").Dot("AppendJSON").Call(jen.Nil())),
	)
	t.f.Comment("AppendJSON appends what MarshalJSON returns to buf; NaN and infinities are an error.")
	t.f.Func().Params(jen.Id("x").Id(goName)).Id("AppendJSON").Params(jen.Id("buf").Index().Byte()).Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Return(gi("AppendNumber").Call(jen.Id("buf"), jen.Float64().Call(jen.Id("x")))),
	)
}

func kindArticle(k string) string {
	switch k {
	case "array", "object":
		return "an " + k
	}
	return "a " + k
}

func strategyProse(u *schema.Union) string {
	switch u.Strategy {
	case schema.StrategyDiscriminator:
		s := fmt.Sprintf("by the value of its %q member", u.Discriminator)
		if u.DefaultBranch >= 0 {
			s += " (see the schema note: " + u.Note + ")"
		}
		return s
	case schema.StrategyRequiredKey:
		return "by which of its branches' required members is present"
	case schema.StrategyJSONKind:
		s := "by its JSON kind"
		if slices.Contains(u.Kinds, "integer") {
			s += " (a number by its literal: an integer literal that fits an int64 is the integer branch, any other number the number branch)"
		}
		if u.Discriminator != "" {
			s += fmt.Sprintf(", objects by their %q member", u.Discriminator)
		}
		return s
	case schema.StrategyStructural:
		return "structurally: the branch whose required, constant and enum members the value meets, with the fewest undeclared members, wins"
	case schema.StrategyEnvelope:
		return "by which of method, id, result and error it has"
	}
	return string(u.Strategy)
}

// objectPrelude decodes data into m, the object's members.
func (t *tgen) objectPrelude(name string) []jen.Code {
	return []jen.Code{
		jen.List(jen.Id("m"), jen.Err()).Op(":=").Add(gi("DecodeObject")).Call(jen.Id("data")),
		errIf(jen.Nil(), decodeErr(name, "", jen.Err())),
	}
}

// discriminate switches on the discriminator member of m.
func (t *tgen) discriminate(name string, u *schema.Union, vs []variant, unknown string, catchAll bool) []jen.Code {
	disc := u.Discriminator
	var absent []jen.Code
	if u.DefaultBranch >= 0 {
		absent = t.retVariant(name, vs[u.DefaultBranch])
	} else {
		absent = []jen.Code{jen.Return(jen.Nil(), decodeErr(name, disc, gi("ErrMissing")))}
	}
	var cases []jen.Code
	for i, vals := range u.Values {
		if len(vals) == 0 {
			continue
		}
		var lits []jen.Code
		for _, v := range vals {
			lits = append(lits, jen.Lit(v))
		}
		cases = append(cases, jen.Case(lits...).Block(t.retVariant(name, vs[i])...))
	}
	// The discriminator is peeked at in one scan of the object, without
	// a map; the branch then decodes the object itself.
	out := []jen.Code{
		jen.List(jen.Id("tag"), jen.Id("present"), jen.Id("isString"), jen.Err()).Op(":=").Add(gi("Discriminator")).Call(jen.Id("data"), jen.Lit(disc)),
		errIf(jen.Nil(), decodeErr(name, "", jen.Err())),
		jen.If(jen.Op("!").Id("present")).Block(absent...),
		jen.If(jen.Id("isString")).Block(jen.Switch(jen.String().Parens(jen.Id("tag"))).Block(cases...)),
	}
	if catchAll {
		return append(out, t.retVariant(name, vs[u.DefaultBranch])...)
	}
	return append(out, jen.Return(jen.Op("&").Id(unknown).Values(jen.Dict{jen.Id("Raw"): t.use("cloneRaw").Call(jen.Id("data"))}), jen.Nil()))
}

// structural picks the best-matching shape among the branches idx.
func (t *tgen) structural(name string, vs []variant, idx []int) []jen.Code {
	var shapes []jen.Code
	var cases []jen.Code
	for k, i := range idx {
		shapes = append(shapes, t.shapeLit(vs[i].obj, 2))
		cases = append(cases, jen.Case(jen.Lit(k)).Block(t.retVariant(name, vs[i])...))
	}
	sv := "shapes" + name
	t.f.Comment(fmt.Sprintf("%s are the shapes of %s's branches, in the order they are tried.", sv, name))
	t.f.Var().Id(sv).Op("=").Index().Op("*").Add(gi("Shape")).Values(shapes...)
	return []jen.Code{
		jen.Switch(t.use("bestShape").Call(jen.Id("data"), jen.Id(sv))).Block(cases...),
		jen.Return(jen.Nil(), decodeErr(name, "", jen.Qual(errorsPkg, "New").Call(jen.Lit("the value matches none of the branches")))),
	}
}

func (t *tgen) shapeLit(o *schema.Type, depth int) *jen.Statement {
	var required, declared []jen.Code
	consts := jen.Dict{}
	enums := jen.Dict{}
	nested := jen.Dict{}
	for _, p := range o.Properties {
		declared = append(declared, jen.Lit(p.Name))
		pt := t.resolve(p.Type)
		if p.Required {
			required = append(required, jen.Lit(p.Name))
		}
		switch c := pt.Const.(type) {
		case string:
			consts[jen.Lit(p.Name)] = jen.Lit(fmt.Sprintf("%q", c))
		case int64:
			consts[jen.Lit(p.Name)] = jen.Lit(fmt.Sprint(c))
		default:
			if len(pt.Enum) > 0 {
				var vals []jen.Code
				for _, e := range pt.Enum {
					vals = append(vals, jen.Lit(e))
				}
				enums[jen.Lit(p.Name)] = jen.Index().String().Values(vals...)
			}
		}
		if p.Required && depth > 0 && pt.Kind == schema.KindObject && len(pt.Properties) > 0 {
			nested[jen.Lit(p.Name)] = t.shapeLit(pt, depth-1)
		}
	}
	d := jen.Dict{}
	if len(required) > 0 {
		d[jen.Id("Required")] = jen.Index().String().Values(required...)
	}
	if len(consts) > 0 {
		d[jen.Id("Consts")] = jen.Map(jen.String()).String().Values(consts)
	}
	if len(enums) > 0 {
		d[jen.Id("Enums")] = jen.Map(jen.String()).Index().String().Values(enums)
	}
	if len(nested) > 0 {
		d[jen.Id("Nested")] = jen.Map(jen.String()).Op("*").Add(gi("Shape")).Values(nested)
	}
	d[jen.Id("Declared")] = jen.Index().String().Values(declared...)
	return jen.Op("&").Add(gi("Shape")).Values(d)
}

// envelope decodes a JSON-RPC message by which members it has.
func (t *tgen) envelope(name string, u *schema.Union, vs []variant) ([]jen.Code, error) {
	role := map[string]int{}
	var arrays []int
	for i, v := range vs {
		if v.kind == "array" {
			arrays = append(arrays, i)
			continue
		}
		if v.obj == nil {
			return nil, fmt.Errorf("%s: unsupported: envelope branch %d is neither an object nor an array", u.Pointer, i)
		}
		has := map[string]bool{}
		req := map[string]bool{}
		for _, p := range v.obj.Properties {
			has[p.Name] = true
			req[p.Name] = p.Required
		}
		r := ""
		switch {
		case req["method"] && has["id"]:
			r = "request"
		case req["method"]:
			r = "notification"
		case req["result"]:
			r = "result"
		case req["error"]:
			r = "error"
		default:
			return nil, fmt.Errorf("%s: unsupported: envelope branch %d has no method, result or error", u.Pointer, i)
		}
		if _, dup := role[r]; dup {
			return nil, fmt.Errorf("%s: unsupported: two envelope branches are a %s", u.Pointer, r)
		}
		role[r] = i
	}
	var obj []jen.Code
	obj = append(obj, t.objectPrelude(name)...)
	need := func(k string) {
		obj = append(obj, jen.List(jen.Id("_"), jen.Id("has"+FieldName(k))).Op(":=").Id("m").Index(jen.Lit(k)))
	}
	_, rq := role["request"]
	_, nt := role["notification"]
	if rq || nt {
		need("method")
	}
	if rq {
		need("id")
	}
	_, rs := role["result"]
	_, er := role["error"]
	if rs {
		need("result")
	}
	if er {
		need("error")
	}
	var cases []jen.Code
	if rq {
		cases = append(cases, jen.Case(jen.Id("hasMethod").Op("&&").Id("hasID")).Block(t.retVariant(name, vs[role["request"]])...))
	}
	if nt {
		cases = append(cases, jen.Case(jen.Id("hasMethod")).Block(t.retVariant(name, vs[role["notification"]])...))
	}
	if rs {
		cases = append(cases, jen.Case(jen.Id("hasResult")).Block(t.retVariant(name, vs[role["result"]])...))
	}
	if er {
		cases = append(cases, jen.Case(jen.Id("hasError")).Block(t.retVariant(name, vs[role["error"]])...))
	}
	obj = append(obj, jen.Switch().Block(cases...),
		jen.Return(jen.Nil(), decodeErr(name, "", jen.Qual(errorsPkg, "New").Call(jen.Lit("a JSON-RPC message needs a method, a result or an error member")))))
	top := []jen.Code{jen.Case(charLit('{')).Block(obj...)}
	if len(arrays) > 0 {
		var arr []jen.Code
		for k, i := range arrays {
			vn := fmt.Sprintf("v%d", k)
			en := fmt.Sprintf("err%d", k)
			arr = append(arr,
				jen.Var().Id(vn).Id(vs[i].goName),
				jen.Id(en).Op(":=").Qual(jsonPkg, "Unmarshal").Call(jen.Id("data"), jen.Op("&").Id(vn)),
				jen.If(jen.Id(en).Op("==").Nil()).Block(jen.Return(jen.Id(vn), jen.Nil())),
			)
		}
		arr = append(arr, jen.Return(jen.Nil(), decodeErr(name, "", jen.Id("err0"))))
		top = append(top, jen.Case(charLit('[')).Block(arr...))
	}
	return []jen.Code{
		jen.Switch(gi("Kind").Call(jen.Id("data"))).Block(top...),
		jen.Return(jen.Nil(), decodeErr(name, "", kindErr("want a JSON object; got %s"))),
	}, nil
}

// emitByMethod declares a result union whose members overlap: it keeps the
// raw JSON, and typed accessors decode it once the caller knows the method.
func (t *tgen) emitByMethod(name string, u *schema.Union, doc []string) error {
	ctor := "New" + name
	if err := t.claim(ctor, u.Pointer); err != nil {
		return err
	}
	doc = append(doc, "//",
		fmt.Sprintf("%s is not decoded on its own: its members overlap (%s), so only the", name, u.Note),
		"method of the request it answers says which it is. It keeps the result as raw JSON;",
		"the accessor named after the expected result type decodes it.")
	t.f.Add(comment(doc)).Type().Id(name).Struct(
		jen.Comment("Raw is the result exactly as received."),
		jen.Id("Raw").Add(rawMessage()),
	)
	t.f.Comment(fmt.Sprintf("%s encodes v, one of the results %s stands for.", ctor, name))
	t.f.Func().Id(ctor).Params(jen.Id("v").Any()).Params(jen.Id(name), jen.Error()).Block(
		jen.List(jen.Id("b"), jen.Err()).Op(":=").Qual(jsonPkg, "Marshal").Call(jen.Id("v")),
		errIf(jen.Id(name).Values(), jen.Err()),
		jen.Return(jen.Id(name).Values(jen.Dict{jen.Id("Raw"): jen.Id("b")}), jen.Nil()),
	)
	t.f.Comment("MarshalJSON returns Raw unchanged.")
	t.f.Func().Params(jen.Id("x").Id(name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		jen.If(jen.Id("x").Dot("Raw").Op("==").Nil()).Block(
			jen.Return(jen.Nil(), jen.Qual(errorsPkg, "New").Call(jen.Lit(t.opts.Package+": "+name+" has no Raw value"))),
		),
		jen.Return(jen.Id("x").Dot("Raw"), jen.Nil()),
	)
	t.f.Comment("UnmarshalJSON keeps a copy of the object as Raw.")
	t.f.Func().Params(jen.Id("x").Op("*").Id(name)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(
		jen.If(jen.Id("k").Op(":=").Add(gi("Kind")).Call(jen.Id("data")), jen.Id("k").Op("!=").Add(charLit('{'))).Block(
			jen.Return(decodeErr(name, "", jen.Qual(fmtPkg, "Errorf").Call(jen.Lit("want a JSON object, got %s"), gi("KindName").Call(jen.Id("k"))))),
		),
		jen.Id("x").Dot("Raw").Op("=").Add(t.use("cloneRaw")).Call(jen.Id("data")),
		jen.Return(jen.Nil()),
	)
	done := map[string]bool{}
	for _, b := range u.Branches {
		if b.Kind != schema.KindRef {
			return fmt.Errorf("%s: unsupported: by-method union branch is not a reference", b.Pointer)
		}
		acc := TypeName(b.Ref)
		if done[acc] {
			continue
		}
		done[acc] = true
		d, err := t.def(b)
		if err != nil {
			return err
		}
		tg, err := t.target(d)
		if err != nil {
			return err
		}
		if tg.Type.Kind != schema.KindObject || len(tg.Type.Properties) == 0 {
			return fmt.Errorf("%s: unsupported: by-method union branch %s is not a struct", b.Pointer, d.Name)
		}
		tn := TypeName(tg.Name)
		t.f.Comment(fmt.Sprintf("%s decodes the result as a [%s].", acc, tn))
		t.f.Func().Params(jen.Id("x").Id(name)).Id(acc).Params().Params(jen.Op("*").Id(tn), jen.Error()).Block(
			jen.Id("v").Op(":=").New(jen.Id(tn)),
			jen.If(jen.Err().Op(":=").Id("v").Dot("UnmarshalJSON").Call(jen.Id("x").Dot("Raw")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Return(jen.Id("v"), jen.Nil()),
		)
	}
	return nil
}

// kindErr is fmt.Errorf(format, kindName(jsonKind(data))).
func kindErr(format string) *jen.Statement {
	return jen.Qual(fmtPkg, "Errorf").Call(jen.Lit(format), gi("KindName").Call(gi("Kind").Call(jen.Id("data"))))
}

// sharedAccessor is the name of the const accessor every branch of a
// discriminated union has (TextContent.Type, CallToolRequest.Method), so
// the interface can offer it; "" when some branch lacks it.
func (t *tgen) sharedAccessor(u *schema.Union, vs []variant) string {
	if u.Strategy != schema.StrategyDiscriminator || u.Discriminator == "" {
		return ""
	}
	for _, v := range vs {
		if v.obj == nil || !v.ptr {
			return ""
		}
		found := false
		for _, p := range v.obj.Properties {
			if _, ok := p.Type.Const.(string); ok && p.Name == u.Discriminator {
				found = true
			}
		}
		if !found {
			return ""
		}
	}
	return FieldName(u.Discriminator)
}
