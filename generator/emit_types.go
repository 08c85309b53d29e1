package generator

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/schema"
)

func init() { register("types.go", emitTypes) }

// idDefinitions are the definitions that become aliases of the runtime's
// exact id type (both are ["string","integer"] in every revision).
var idDefinitions = map[string]bool{"RequestId": true, "ProgressToken": true}

// rawDefinitions are the definitions kept as raw JSON, with why.
var rawDefinitions = map[string]string{
	"JSONValue": "the TypeScript JSONValue also admits null and fractional numbers, which the JSON schema drops (schema-notes §0), and it is recursive through JSONObject",
}

// category is how a Go type behaves as a struct member.
type category int

const (
	catStruct   category = iota // struct: pointer when optional
	catIface                    // sealed union interface: nil when absent
	catSlice                    // slice: nil when absent, [] kept
	catMap                      // map: nil when absent, {} kept
	catScalar                   // string, int64, float64, bool (or a named one): pointer when optional
	catRaw                      // json.RawMessage: nil when absent
	catID                       // jsonrpc2.RequestID: pointer when optional
	catByMethod                 // by-method result union struct: pointer when optional
)

// tinfo is what a member of some schema type needs: its Go type, its
// category and, when encoding/json cannot decode it on its own (it holds a
// union interface), the expression of a decoder func([]byte) (T, error).
type tinfo struct {
	cat category
	typ func() *jen.Statement
	// spell is typ's Go spelling when it is built from predeclared types
	// and json.RawMessage ("string", "map[string]json.RawMessage"), "" for
	// a named type: the codec emitter compares it without rendering typ
	// (jennifer formats every rendering: a tenth of a large schema's
	// generation time went there).
	spell string
	dec   func() *jen.Statement
	// elemDec is a slice's element decoder when dec is SliceOf(elemDec),
	// so that a member can be decoded without building the closure.
	elemDec func() *jen.Statement
}

// pending is a named declaration still to be emitted.
type pending struct {
	name string
	t    *schema.Type
	doc  []string
}

// tgen emits types.go.
type tgen struct {
	*gen
	f    *jen.File
	link *docLinker
	// used maps every claimed Go identifier to what claimed it.
	used map[string]string
	// named maps inline schema nodes to the Go name given to them.
	named map[*schema.Type]string
	queue []pending
	// markers records emitted marker methods: "Type.isUnion".
	markers map[string]bool
	// decodable lists, in order, the definitions DecodeDefinition knows.
	decodable []decodable
	// uses records the codec helpers the emitted code calls, so
	// types_json.go declares only those.
	uses map[string]bool
}

// use returns the identifier of codec helper name and records its use.
func (t *tgen) use(name string) *jen.Statement {
	t.uses[name] = true
	return gi(exported(name))
}

// codecUsage hands the helpers types.go uses to the types_json.go emitter,
// which runs next (emitters run in file name order).
var codecUsage sync.Map // *gen → map[string]bool

type decodable struct {
	def   string
	goTyp string
	union bool
}

func emitTypes(g *gen, f *jen.File) (bool, error) {
	names := make([]string, 0, len(g.m.Definitions))
	for _, d := range g.m.Definitions {
		// Doc links name this package's types only: an extension's core
		// definitions are another package's.
		if !g.core(d.Name) {
			names = append(names, d.Name)
		}
	}
	t := &tgen{gen: g, f: f, link: newDocLinker(names), used: map[string]string{},
		named: map[*schema.Type]string{}, markers: map[string]bool{}, uses: map[string]bool{}}
	for _, n := range []string{"DecodeError", "DecodeDefinition"} {
		t.used[n] = "package helper"
	}
	for _, d := range g.m.Definitions {
		if g.core(d.Name) {
			continue
		}
		if err := t.claim(TypeName(d.Name), d.Pointer); err != nil {
			return false, err
		}
	}
	for _, d := range g.m.Definitions {
		if g.core(d.Name) {
			// An extension's copy of a core definition: the core
			// package's type, never a second declaration of it.
			continue
		}
		if err := t.emitDefinition(d); err != nil {
			return false, err
		}
		// Inline types follow the definition that holds them.
		for len(t.queue) > 0 {
			p := t.queue[0]
			t.queue = t.queue[1:]
			if err := t.emitNamed(p.name, p.t, p.doc); err != nil {
				return false, err
			}
		}
	}
	t.emitDecodeDefinition()
	codecUsage.Store(g, t.uses)
	return true, nil
}

func (t *tgen) claim(name, by string) error {
	if prev, ok := t.used[name]; ok {
		return fmt.Errorf("%s: Go name %s is already taken by %s", by, name, prev)
	}
	t.used[name] = by
	return nil
}

// inline names an anonymous object or union and queues its declaration.
// A name already taken (by a definition or another inline type) gets the
// suffix "Inline"; a second collision is an error.
func (t *tgen) inline(ty *schema.Type, name string, doc []string) (string, error) {
	if n, ok := t.named[ty]; ok {
		return n, nil
	}
	if _, taken := t.used[name]; taken {
		name += "Inline"
	}
	if err := t.claim(name, ty.Pointer); err != nil {
		return "", err
	}
	t.named[ty] = name
	t.queue = append(t.queue, pending{name: name, t: ty, doc: doc})
	return name, nil
}

// def returns the definition a reference names.
func (t *tgen) def(ty *schema.Type) (*schema.Definition, error) {
	d := t.m.Definition(ty.Ref)
	if d == nil {
		return nil, fmt.Errorf("%s: reference to unknown definition %q", ty.Pointer, ty.Ref)
	}
	return d, nil
}

// target follows alias definitions to the definition that has a shape.
func (t *tgen) target(d *schema.Definition) (*schema.Definition, error) {
	for i := 0; d.Type.Kind == schema.KindRef && !idDefinitions[d.Name] && rawDefinitions[d.Name] == ""; i++ {
		if i > 16 {
			return nil, fmt.Errorf("%s: alias chain too long", d.Pointer)
		}
		n, err := t.def(d.Type)
		if err != nil {
			return nil, err
		}
		d = n
	}
	return d, nil
}

func id(name string) func() *jen.Statement { return func() *jen.Statement { return jen.Id(name) } }

// info maps a schema node to the Go type of a member holding it. hint is
// the name an anonymous object or union gets; parentDoc describes it.
func (t *tgen) info(ty *schema.Type, hint string, parentDoc string) (tinfo, error) {
	switch ty.Kind {
	case schema.KindRef:
		d, err := t.def(ty)
		if err != nil {
			return tinfo{}, err
		}
		return t.defInfo(d)
	case schema.KindAny:
		return tinfo{cat: catRaw, typ: rawMessage, spell: "json.RawMessage"}, nil
	case schema.KindString:
		if len(ty.Enum) > 0 && !ty.Nullable {
			// An inline enum gets a named string type with typed constants,
			// like an enum definition, so the values are discoverable and
			// a typo in a comparison does not compile.
			name, err := t.inline(ty, hint, t.link.docFor(ty.Description, parentDoc))
			if err != nil {
				return tinfo{}, err
			}
			return tinfo{cat: catScalar, typ: id(name)}, nil
		}
		return tinfo{cat: catScalar, typ: func() *jen.Statement { return jen.String() }, spell: "string"}, nil
	case schema.KindInteger:
		return tinfo{cat: catScalar, typ: func() *jen.Statement { return jen.Int64() }, spell: "int64"}, nil
	case schema.KindNumber:
		return tinfo{cat: catScalar, typ: func() *jen.Statement { return jen.Float64() }, spell: "float64"}, nil
	case schema.KindBoolean:
		return tinfo{cat: catScalar, typ: func() *jen.Statement { return jen.Bool() }, spell: "bool"}, nil
	case schema.KindObject:
		if len(ty.Properties) > 0 {
			name, err := t.inline(ty, hint, t.link.docFor(ty.Description, parentDoc))
			if err != nil {
				return tinfo{}, err
			}
			return tinfo{cat: catStruct, typ: id(name)}, nil
		}
		vi, err := t.mapValue(ty, hint, parentDoc)
		if err != nil {
			return tinfo{}, err
		}
		out := tinfo{cat: catMap, typ: func() *jen.Statement { return jen.Map(jen.String()).Add(vi.typ()) }}
		if vi.spell != "" {
			out.spell = "map[string]" + vi.spell
		}
		if vi.dec != nil {
			out.dec = func() *jen.Statement { return t.use("mapOf").Call(vi.dec()) }
		}
		return out, nil
	case schema.KindArray:
		ii, err := t.items(ty, hint, parentDoc)
		if err != nil {
			return tinfo{}, err
		}
		out := tinfo{cat: catSlice, typ: func() *jen.Statement { return jen.Index().Add(ii.typ()) }}
		if ii.spell != "" {
			out.spell = "[]" + ii.spell
		}
		if ii.dec != nil {
			out.dec = func() *jen.Statement { return t.use("sliceOf").Call(ii.dec()) }
			out.elemDec = ii.dec
		}
		return out, nil
	case schema.KindUnion:
		name, err := t.inline(ty, hint, t.link.docFor(ty.Description, parentDoc))
		if err != nil {
			return tinfo{}, err
		}
		if ty.Union.Strategy == schema.StrategyByMethod {
			return tinfo{cat: catByMethod, typ: id(name)}, nil
		}
		return tinfo{cat: catIface, typ: id(name), dec: id("Decode" + name)}, nil
	}
	return tinfo{}, fmt.Errorf("%s: unsupported schema kind %q", ty.Pointer, ty.Kind)
}

func (t *tgen) mapValue(ty *schema.Type, hint, parentDoc string) (tinfo, error) {
	if ty.Additional == nil || ty.Additional.Kind == schema.KindAny {
		return tinfo{cat: catRaw, typ: rawMessage, spell: "json.RawMessage"}, nil
	}
	return t.info(ty.Additional, hint+"Value", "A value of "+parentDoc)
}

func (t *tgen) items(ty *schema.Type, hint, parentDoc string) (tinfo, error) {
	if ty.Items == nil || ty.Items.Kind == schema.KindAny {
		return tinfo{cat: catRaw, typ: rawMessage, spell: "json.RawMessage"}, nil
	}
	return t.info(ty.Items, hint+"Item", "An item of "+parentDoc)
}

// defInfo is the member info of a reference to definition d. In an
// extension's package a core definition is the core package's type, and a
// core union is decoded by the core package's decoder.
func (t *tgen) defInfo(d *schema.Definition) (tinfo, error) {
	in, err := t.localDefInfo(d)
	if err != nil || !t.core(d.Name) {
		return in, err
	}
	pkg, name := t.opts.CorePackage, TypeName(d.Name)
	in.typ = func() *jen.Statement { return jen.Qual(pkg, name) }
	if in.dec != nil {
		in.dec = func() *jen.Statement { return jen.Qual(pkg, "Decode"+name) }
	}
	return in, nil
}

// localDefInfo is defInfo with every type named in this package.
func (t *tgen) localDefInfo(d *schema.Definition) (tinfo, error) {
	name := TypeName(d.Name)
	if idDefinitions[d.Name] {
		return tinfo{cat: catID, typ: id(name)}, nil
	}
	if rawDefinitions[d.Name] != "" {
		return tinfo{cat: catRaw, typ: id(name)}, nil
	}
	tg, err := t.target(d)
	if err != nil {
		return tinfo{}, err
	}
	if tg != d {
		in, err := t.defInfo(tg)
		if err != nil {
			return tinfo{}, err
		}
		in.typ = id(name)
		return in, nil
	}
	ty := d.Type
	switch ty.Kind {
	case schema.KindObject:
		if len(ty.Properties) > 0 {
			return tinfo{cat: catStruct, typ: id(name)}, nil
		}
		return tinfo{cat: catMap, typ: id(name)}, nil
	case schema.KindArray:
		return tinfo{cat: catSlice, typ: id(name)}, nil
	case schema.KindUnion:
		if ty.Union.Strategy == schema.StrategyByMethod {
			return tinfo{cat: catByMethod, typ: id(name)}, nil
		}
		return tinfo{cat: catIface, typ: id(name), dec: id("Decode" + name)}, nil
	case schema.KindAny:
		return tinfo{cat: catRaw, typ: id(name)}, nil
	case schema.KindString, schema.KindInteger, schema.KindNumber, schema.KindBoolean:
		return tinfo{cat: catScalar, typ: id(name)}, nil
	}
	return tinfo{}, fmt.Errorf("%s: unsupported schema kind %q", ty.Pointer, ty.Kind)
}

func scalarType(k schema.Kind) *jen.Statement {
	switch k {
	case schema.KindString:
		return jen.String()
	case schema.KindInteger:
		return jen.Int64()
	case schema.KindNumber:
		return jen.Float64()
	case schema.KindBoolean:
		return jen.Bool()
	}
	return nil
}

// emitDefinition declares the Go type of one definition.
func (t *tgen) emitDefinition(d *schema.Definition) error {
	name := TypeName(d.Name)
	doc := t.link.docFor(d.Description, fmt.Sprintf("%s is the schema definition %q.", name, d.Name))
	switch {
	case idDefinitions[d.Name]:
		doc = append(doc, "//", fmt.Sprintf("%s is the runtime's [jsonrpc2.RequestID]: it keeps a string id and an integer id", name),
			"apart exactly (\"1\" is not 1), keeps integers beyond 2^53 intact and refuses",
			"fractions, booleans, null and objects.")
		t.f.Add(comment(doc)).Type().Id(name).Op("=").Qual(RuntimePath, "RequestID")
		t.decodable = append(t.decodable, decodable{def: d.Name, goTyp: name})
		return nil
	case rawDefinitions[d.Name] != "":
		doc = append(doc, "//", fmt.Sprintf("%s is kept as raw JSON (exact bytes): %s.", name, rawDefinitions[d.Name]))
		t.f.Add(comment(doc)).Type().Id(name).Op("=").Qual(jsonPkg, "RawMessage")
		t.decodable = append(t.decodable, decodable{def: d.Name, goTyp: name})
		return nil
	case d.Type.Kind == schema.KindRef:
		target, err := t.def(d.Type)
		if err != nil {
			return err
		}
		doc = append(doc, "//", fmt.Sprintf("It is an alias: the schema defines %s as a reference to [%s].", d.Name, TypeName(target.Name)))
		t.f.Add(comment(doc)).Type().Id(name).Op("=").Id(TypeName(target.Name))
		tg, err := t.target(d)
		if err != nil {
			return err
		}
		t.decodable = append(t.decodable, decodable{def: d.Name, goTyp: name, union: tg.Type.Kind == schema.KindUnion && tg.Type.Union.Strategy != schema.StrategyByMethod})
		return nil
	}
	t.decodable = append(t.decodable, decodable{def: d.Name, goTyp: name,
		union: d.Type.Kind == schema.KindUnion && d.Type.Union.Strategy != schema.StrategyByMethod})
	return t.emitNamed(name, d.Type, doc)
}

// emitNamed declares the named Go type name for the schema node ty.
func (t *tgen) emitNamed(name string, ty *schema.Type, doc []string) error {
	switch ty.Kind {
	case schema.KindObject:
		if len(ty.Properties) > 0 {
			return t.emitStruct(name, ty, doc)
		}
		vi, err := t.mapValue(ty, name, "["+name+"]")
		if err != nil {
			return err
		}
		t.f.Add(comment(doc)).Type().Id(name).Map(jen.String()).Add(vi.typ())
		if ty.Closed {
			t.emitClosedUnmarshal(name)
			return nil
		}
		if vi.dec != nil {
			t.emitContainerUnmarshal(name, t.use("mapOf").Call(vi.dec()))
		}
		return nil
	case schema.KindArray:
		ii, err := t.items(ty, name, "["+name+"]")
		if err != nil {
			return err
		}
		t.f.Add(comment(doc)).Type().Id(name).Index().Add(ii.typ())
		if ii.dec != nil {
			t.emitContainerUnmarshal(name, t.use("sliceOf").Call(ii.dec()))
		}
		return nil
	case schema.KindUnion:
		return t.emitUnion(name, ty.Union, doc)
	case schema.KindAny:
		t.f.Add(comment(doc)).Type().Id(name).Op("=").Qual(jsonPkg, "RawMessage")
		return nil
	case schema.KindString, schema.KindInteger, schema.KindNumber, schema.KindBoolean:
		if ty.Nullable {
			return fmt.Errorf("%s: unsupported: a nullable named scalar", ty.Pointer)
		}
		t.f.Add(comment(doc)).Type().Id(name).Add(scalarType(ty.Kind))
		if ty.Kind == schema.KindInteger {
			t.f.Comment("UnmarshalJSON accepts an integer, also written with a zero fraction (1.0).")
			t.f.Func().Params(jen.Id("x").Op("*").Id(name)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(
				jen.List(jen.Id("n"), jen.Err()).Op(":=").Add(t.use("parseInteger")).Call(jen.Id("data")),
				jen.If(jen.Err().Op("!=").Nil()).Block(
					jen.Return(jen.Op("&").Id("DecodeError").Values(jen.Id("Type").Op(":").Lit(name), jen.Id("Err").Op(":").Err())),
				),
				jen.Op("*").Id("x").Op("=").Id(name).Parens(jen.Id("n")),
				jen.Return(jen.Nil()),
			)
		}
		if len(ty.Enum) > 0 {
			var defs []jen.Code
			for _, v := range ty.Enum {
				cn := name + FieldName(strings.ReplaceAll(v, "/", "_"))
				if err := t.claim(cn, ty.Pointer); err != nil {
					return err
				}
				defs = append(defs, jen.Comment(fmt.Sprintf("%s is %q.", cn, v)), jen.Id(cn).Id(name).Op("=").Lit(v))
			}
			t.f.Comment(fmt.Sprintf("The values of %s the schema lists.", name))
			t.f.Const().Defs(defs...)
		}
		return nil
	}
	return fmt.Errorf("%s: unsupported schema kind %q", ty.Pointer, ty.Kind)
}

// emitContainerUnmarshal gives a named slice or map of unions an
// UnmarshalJSON, so it decodes wherever encoding/json meets it.
func (t *tgen) emitContainerUnmarshal(name string, dec *jen.Statement) {
	t.f.Comment("UnmarshalJSON decodes each element by its union's strategy.")
	t.f.Func().Params(jen.Id("x").Op("*").Id(name)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(
		jen.List(jen.Id("v"), jen.Err()).Op(":=").Add(dec).Call(jen.Id("data")),
		jen.If(jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Op("&").Id("DecodeError").Values(jen.Id("Type").Op(":").Lit(name), jen.Id("Err").Op(":").Err())),
		),
		jen.Op("*").Id("x").Op("=").Id("v"),
		jen.Return(jen.Nil()),
	)
}

// emitClosedUnmarshal gives a map type whose schema admits only {} an
// UnmarshalJSON that refuses any member, as the schema does.
func (t *tgen) emitClosedUnmarshal(name string) {
	t.f.Comment("UnmarshalJSON accepts only an object without members: the schema admits no")
	t.f.Comment("member (additionalProperties {\"not\":{}}).")
	t.f.Func().Params(jen.Id("x").Op("*").Id(name)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(
		jen.Var().Id("m").Map(jen.String()).Qual(jsonPkg, "RawMessage"),
		jen.If(jen.Err().Op(":=").Qual(jsonPkg, "Unmarshal").Call(jen.Id("data"), jen.Op("&").Id("m")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Op("&").Id("DecodeError").Values(jen.Id("Type").Op(":").Lit(name), jen.Id("Err").Op(":").Err())),
		),
		jen.If(jen.Id("m").Op("==").Nil()).Block(
			jen.Return(jen.Op("&").Id("DecodeError").Values(jen.Id("Type").Op(":").Lit(name), jen.Id("Err").Op(":").Qual(errorsPkg, "New").Call(jen.Lit("null is not an object")))),
		),
		jen.For(jen.Id("k").Op(":=").Range().Id("m")).Block(
			jen.Return(jen.Op("&").Id("DecodeError").Values(jen.Id("Type").Op(":").Lit(name), jen.Id("Err").Op(":").Qual(fmtPkg, "Errorf").Call(jen.Lit("member %q: the schema admits no member"), jen.Id("k")))),
		),
		jen.Op("*").Id("x").Op("=").Id(name).Values(),
		jen.Return(jen.Nil()),
	)
}

// member is one property of a struct, planned.
type member struct {
	json     string
	goName   string
	required bool
	nullable bool
	constant string // JSON text of a const member, "" otherwise
	constGo  *jen.Statement
	info     tinfo
	pointer  bool
	integer  bool // a plain JSON Schema integer (int64)
}

// emitStruct declares a struct with its MarshalJSON, UnmarshalJSON and
// const accessors.
func (t *tgen) emitStruct(name string, ty *schema.Type, doc []string) error {
	if ty.Additional != nil && ty.Additional.Kind != schema.KindAny {
		return fmt.Errorf("%s/additionalProperties: unsupported: declared properties together with typed additional properties", ty.Pointer)
	}
	if ty.Nullable {
		return fmt.Errorf("%s: unsupported: a nullable object", ty.Pointer)
	}
	goNames := map[string]string{"Extra": "(undeclared members)"}
	var members []*member
	for _, p := range ty.Properties {
		m := &member{json: p.Name, goName: memberName(p.Name), required: p.Required, nullable: p.Type.Nullable}
		pt := p.Type
		if pt.Const != nil {
			switch c := pt.Const.(type) {
			case string:
				m.constant = fmt.Sprintf("%q", c)
				m.constGo = jen.Lit(c)
			case int64:
				m.constant = fmt.Sprint(c)
				m.constGo = jen.Lit(int(c))
			default:
				return fmt.Errorf("%s: unsupported const %v", pt.Pointer, pt.Const)
			}
			if !p.Required {
				m.goName = "Has" + m.goName
			}
		} else {
			in, err := t.info(pt, InlineName(name, p.Name), fmt.Sprintf("The %q member of [%s].", p.Name, name))
			if err != nil {
				return err
			}
			m.info = in
			m.integer = pt.Kind == schema.KindInteger
			switch in.cat {
			case catStruct, catScalar, catID, catByMethod:
				m.pointer = !p.Required || pt.Nullable
			default:
				if pt.Nullable {
					return fmt.Errorf("%s: unsupported: nullable %s", pt.Pointer, pt.Kind)
				}
			}
			if pt.Nullable && !p.Required {
				return fmt.Errorf("%s: unsupported: an optional nullable member (absent and null would be one value)", pt.Pointer)
			}
		}
		if prev, ok := goNames[m.goName]; ok {
			return fmt.Errorf("%s/properties/%s: Go name %s collides with %s", ty.Pointer, p.Name, m.goName, prev)
		}
		goNames[m.goName] = p.Name
		members = append(members, m)
	}

	// The struct.
	var fields []jen.Code
	for i, m := range members {
		p := ty.Properties[i]
		if m.constant != "" {
			if m.required {
				continue
			}
			fields = append(fields, commentItems([]string{fmt.Sprintf("%s writes the optional constant member %q: %s when set; decoding sets it", m.goName, m.json, m.constant),
				"when the member is present."})...)
			fields = append(fields, jen.Id(m.goName).Bool().Tag(map[string]string{"json": "-"}))
			continue
		}
		// Without a description, say the one thing the Go type may not show:
		// whether the schema requires the member (a sentence restating its
		// name would say nothing).
		presence := "optional"
		if m.required {
			presence = "required"
		}
		fd := t.link.docFor(p.Type.Description, fmt.Sprintf("%s is %s in the schema.", m.goName, presence))
		typ := m.info.typ()
		if m.pointer {
			typ = jen.Op("*").Add(typ)
		}
		tag := m.json
		if !m.required {
			switch m.info.cat {
			case catSlice, catMap, catRaw:
				tag += ",omitzero"
			default:
				tag += ",omitempty"
			}
		}
		fields = append(fields, commentItems(fd)...)
		fields = append(fields, jen.Id(m.goName).Add(typ).Tag(map[string]string{"json": tag}))
	}
	fields = append(fields, commentItems([]string{"Extra holds the members the schema does not declare, exactly as received;",
		"they are written back after the declared ones."})...)
	fields = append(fields, jen.Id("Extra").Add(rawMap()).Tag(map[string]string{"json": "-"}))
	t.f.Add(comment(doc)).Type().Id(name).Struct(fields...)

	// Const accessors.
	for _, m := range members {
		if m.constant == "" {
			continue
		}
		acc := memberName(m.json)
		if m.required {
			if prev, ok := goNames[acc]; ok && prev != m.json {
				return fmt.Errorf("%s/properties/%s: accessor %s collides with %s", ty.Pointer, m.json, acc, prev)
			}
		} else if _, ok := goNames[acc]; ok {
			return fmt.Errorf("%s/properties/%s: accessor %s collides with a field", ty.Pointer, m.json, acc)
		}
		rt := jen.String()
		if !strings.HasPrefix(m.constant, "\"") {
			rt = jen.Int64()
		}
		t.f.Comment(fmt.Sprintf("%s returns %s, the constant %q member: always written on encode, checked on decode.", acc, m.constant, m.json))
		t.f.Func().Params(jen.Id(name)).Id(acc).Params().Add(rt).Block(jen.Return(m.constGo.Clone()))
	}

	t.emitObjectCodec(name, ty, members)
	return nil
}

// emitDecodeDefinition declares DecodeDefinition, which reaches every
// definition by its schema name.
func (t *tgen) emitDecodeDefinition() {
	sort.Slice(t.decodable, func(i, j int) bool { return t.decodable[i].def < t.decodable[j].def })
	var cases []jen.Code
	for _, d := range t.decodable {
		if d.union {
			cases = append(cases, jen.Case(jen.Lit(d.def)).Block(jen.Return(jen.Id("Decode"+d.goTyp).Call(jen.Id("data")))))
			continue
		}
		cases = append(cases, jen.Case(jen.Lit(d.def)).Block(jen.Return(jen.Id("decodeNew").Types(jen.Id(d.goTyp)).Call(jen.Id("data")))))
	}
	t.f.Comment("DecodeDefinition decodes data as the schema definition called name and")
	t.f.Comment("returns a pointer to the new value, or the value itself for a union. It lets")
	t.f.Comment("tools reach any definition by its schema name.")
	t.f.Func().Id("DecodeDefinition").Params(jen.Id("name").String(), jen.Id("data").Index().Byte()).Params(jen.Any(), jen.Error()).Block(
		jen.Switch(jen.Id("name")).Block(cases...),
		jen.Return(jen.Nil(), jen.Qual(fmtPkg, "Errorf").Call(jen.Lit(t.opts.Package+": no schema definition %q"), jen.Id("name"))),
	)
	// No definition of any revision is nullable at its root, and
	// encoding/json takes null as "leave the zero value" (a string enum
	// would decode null as ""): refused here, as the codec refuses it.
	t.f.Comment("decodeNew decodes data into a new T; null is not a value of any definition.")
	t.f.Func().Id("decodeNew").Types(jen.Id("T").Any()).Params(jen.Id("data").Index().Byte()).Params(jen.Any(), jen.Error()).Block(
		jen.Id("v").Op(":=").New(jen.Id("T")),
		jen.If(jen.String().Call(jen.Qual("bytes", "TrimSpace").Call(jen.Id("data"))).Op("==").Lit("null")).Block(
			jen.Return(jen.Nil(), jen.Qual(fmtPkg, "Errorf").Call(jen.Lit(t.opts.Package+": null is not a %T"), jen.Op("*").Id("v"))),
		),
		jen.If(jen.Err().Op(":=").Qual(jsonPkg, "Unmarshal").Call(jen.Id("data"), jen.Id("v")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("v"), jen.Nil()),
	)
}

// memberName is FieldName plus the initialisms naming.go does not know yet:
// jsonrpc → JSONRPC (FieldName gives Jsonrpc, as jsonrpc is one word).
func memberName(json string) string {
	if strings.EqualFold(json, "jsonrpc") {
		return "JSONRPC"
	}
	return FieldName(json)
}
