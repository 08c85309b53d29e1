package generator

import (
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/schema"
)

// genimplPkg is the runtime package made for generated code: the codec
// support every generated package calls instead of carrying a copy.
const genimplPkg = "github.com/mcpgen/mcpgen/runtime/genimpl"

// gi names an identifier of genimpl.
func gi(name string) *jen.Statement { return jen.Qual(genimplPkg, name) }

// exported is the genimpl name of a codec helper the emitters know by its
// historical lower-case name (sliceOf → SliceOf).
func exported(name string) string { return strings.ToUpper(name[:1]) + name[1:] }

// keyLit is the precomputed key literal of member name: quoted, with the
// colon, so the encoder writes it with one copy.
func keyLit(name string) *jen.Statement {
	return jen.Lit(string(appendJSONString(nil, name)) + ":")
}

// appendJSONString quotes s as encoding/json would (HTML-safe), for the
// key literals; schema member names are plain ASCII in practice.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b = append(b, '\\', byte(r))
		case r < 0x20 || r == '<' || r == '>' || r == '&':
			b = append(b, '\\', 'u', '0', '0', hex[r>>4], hex[r&0xF])
		case r == '\u2028' || r == '\u2029':
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			b = append(b, string(r)...)
		}
	}
	return append(b, '"')
}

// emitObjectCodec declares MarshalJSON, AppendJSON and UnmarshalJSON of the
// struct name. The encoder writes each member from its key literal, nested
// structs append into the same buffer; the decoder scans the object once
// and decodes each declared member from its span.
func (t *tgen) emitObjectCodec(name string, ty *schema.Type, members []*member) {
	var enc []jen.Code
	enc = append(enc, jen.Var().Id("e").Add(gi("Encoder")), jen.Id("e").Dot("Init").Call(jen.Lit(name), jen.Id("buf")))
	for i, m := range members {
		f := jen.Id("x").Dot(m.goName)
		key := keyLit(m.json)
		lit := func() *jen.Statement { return jen.Lit(m.constant) }
		value := func(v jen.Code) *jen.Statement { return t.encodeMember(ty.Properties[i], m, key.Clone(), v) }
		switch {
		case m.constant != "" && m.required:
			enc = append(enc, jen.Id("e").Dot("Raw").Call(key, lit()))
		case m.constant != "":
			enc = append(enc, jen.If(f.Clone()).Block(jen.Id("e").Dot("Raw").Call(key, lit())))
		case !m.required:
			enc = append(enc, jen.If(f.Clone().Op("!=").Nil()).Block(value(f.Clone())))
		case m.info.cat == catSlice:
			enc = append(enc, value(t.use("nonNilSlice").Call(f.Clone())))
		case m.info.cat == catMap:
			enc = append(enc, value(t.use("nonNilMap").Call(f.Clone())))
		case m.info.cat == catIface:
			enc = append(enc, jen.If(f.Clone().Op("==").Nil()).Block(jen.Id("e").Dot("Missing").Call(key)).Else().Block(value(f.Clone())))
		default:
			enc = append(enc, value(f.Clone()))
		}
	}
	enc = append(enc, jen.Id("e").Dot("Extra").Call(jen.Id("x").Dot("Extra")), jen.Return(jen.Id("e").Dot("Bytes").Call()))
	t.f.Comment("MarshalJSON writes the declared members (constants included), then Extra.")
	t.f.Func().Params(jen.Id("x").Id(name)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Return(gi("Marshal").Call(jen.Id("x"))),
	)
	t.f.Comment("AppendJSON appends what MarshalJSON returns to buf.")
	t.f.Func().Params(jen.Id("x").Id(name)).Id("AppendJSON").Params(jen.Id("buf").Index().Byte()).Params(jen.Index().Byte(), jen.Error()).Block(enc...)

	decode := func(rawArguments bool) []jen.Code {
		dec := []jen.Code{
			jen.Var().Id("d").Add(gi("Decoder")),
			jen.If(jen.Err().Op(":=").Id("d").Dot("Init").Call(jen.Lit(name), jen.Id("data")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
			// Straight into *x: a local copy would escape (its fields are
			// handed to the decoders) and cost an allocation per value. Like
			// encoding/json, a value that fails to decode is left partly set.
			jen.Id("v").Op(":=").Id("x"),
			jen.Op("*").Id("v").Op("=").Id(name).Values(),
		}
		for i, m := range members {
			switch {
			case rawArguments && m.json == "arguments":
				// Where the map would have been decoded from: the bytes.
				dec = append(dec, jen.If(jen.List(jen.Id("a"), jen.Id("ok")).Op(":=").Id("d").Dot("Take").Call(jen.Lit(m.json), jen.Lit(m.required), jen.Lit(m.nullable)), jen.Id("ok")).Block(
					jen.Op("*").Id("arguments").Op("=").Id("a")))
			case m.info.cat == catScalar && m.constant == "" && t.resolve(ty.Properties[i].Type).Kind == schema.KindString && m.pointer:
				dec = append(dec, gi("FieldStringPtr").Call(jen.Op("&").Id("d"), jen.Lit(m.json), jen.Lit(m.required), jen.Lit(m.nullable), jen.Op("&").Id("v").Dot(m.goName)))
			case m.info.cat == catScalar && m.constant == "" && t.resolve(ty.Properties[i].Type).Kind == schema.KindString:
				dec = append(dec, gi("FieldString").Call(jen.Op("&").Id("d"), jen.Lit(m.json), jen.Lit(m.required), jen.Op("&").Id("v").Dot(m.goName)))
			case m.info.cat == catSlice && t.structItems(ty.Properties[i]):
				dec = append(dec, gi("FieldStructs").Call(jen.Op("&").Id("d"), jen.Lit(m.json), jen.Lit(m.required), jen.Op("&").Id("v").Dot(m.goName)))
			case m.info.cat == catSlice && t.stringItems(ty.Properties[i]):
				dec = append(dec, gi("FieldStrings").Call(jen.Op("&").Id("d"), jen.Lit(m.json), jen.Lit(m.required), jen.Op("&").Id("v").Dot(m.goName)))
			case m.constant != "" && m.required:
				dec = append(dec, jen.Id("d").Dot("Constant").Call(jen.Lit(m.json), jen.Lit(m.constant), jen.True()))
			case m.constant != "":
				dec = append(dec, jen.Id("v").Dot(m.goName).Op("=").Id("d").Dot("Constant").Call(jen.Lit(m.json), jen.Lit(m.constant), jen.False()))
			case m.info.elemDec != nil:
				dec = append(dec, gi("FieldSlice").Call(jen.Op("&").Id("d"), jen.Lit(m.json), jen.Lit(m.required), jen.Op("&").Id("v").Dot(m.goName), m.info.elemDec()))
			case m.info.dec != nil:
				dec = append(dec, t.use("fieldFunc").Call(jen.Op("&").Id("d"), jen.Lit(m.json), jen.Lit(m.required), jen.False(), jen.Op("&").Id("v").Dot(m.goName), m.info.dec()))
			case m.integer:
				// JSON Schema's integer admits 1.0; encoding/json's int64 does not.
				d := t.use("parseInteger")
				if m.pointer {
					d = t.use("pointerTo").Call(d)
				}
				dec = append(dec, t.use("fieldFunc").Call(jen.Op("&").Id("d"), jen.Lit(m.json), jen.Lit(m.required), jen.Lit(m.nullable), jen.Op("&").Id("v").Dot(m.goName), d))
			case m.info.cat == catStruct && m.pointer && !m.nullable:
				// Straight into a new value, without encoding/json's reflection.
				dec = append(dec, gi("FieldNew").Call(jen.Op("&").Id("d"), jen.Lit(m.json), jen.Lit(m.required), jen.Op("&").Id("v").Dot(m.goName)))
			default:
				// A raw member (any JSON value, or JSONValue) keeps null as
				// the bytes "null".
				nullable := m.nullable || m.info.cat == catRaw
				dec = append(dec, jen.Id("d").Dot("Field").Call(jen.Lit(m.json), jen.Lit(m.required), jen.Lit(nullable), jen.Op("&").Id("v").Dot(m.goName)))
			}
		}
		dec = append(dec, jen.Id("v").Dot("Extra").Op("=").Id("d").Dot("Rest").Call())
		if !rawArguments {
			return append(dec, jen.Return(jen.Id("d").Dot("Err").Call()))
		}
		return append(dec,
			jen.Comment("Arguments that are not an object: the map decoder's error, whatever"),
			jen.Comment("else fails too."),
			jen.If(jen.Len(jen.Op("*").Id("arguments")).Op(">").Lit(0).Op("&&").Parens(jen.Op("*").Id("arguments")).Index(jen.Lit(0)).Op("!=").LitRune('{')).Block(
				jen.Op("*").Id("arguments").Op("=").Nil(),
				jen.Return(jen.Id("x").Dot("UnmarshalJSON").Call(jen.Id("data")))),
			jen.Return(jen.Id("d").Dot("Err").Call()),
		)
	}
	t.f.Comment("UnmarshalJSON decodes the declared members, checks the constants and the")
	t.f.Comment("required members, refuses null where the schema does not allow it, and keeps")
	t.f.Comment("every other member in Extra.")
	t.f.Func().Params(jen.Id("x").Op("*").Id(name)).Id("UnmarshalJSON").Params(jen.Id("data").Index().Byte()).Error().Block(decode(false)...)
	if me := t.method("tools/call"); me != nil && argumentsAsJSON(t.gen, me) && paramsTypeName(me) == name {
		t.f.Comment("unmarshalJSONArguments is UnmarshalJSON leaving the arguments object as")
		t.f.Comment("JSON in *arguments (a slice of data; nil when absent) instead of decoding it")
		t.f.Comment("into Arguments: for a CallToolHandler that binds them from the bytes.")
		t.f.Func().Params(jen.Id("x").Op("*").Id(name)).Id("unmarshalJSONArguments").Params(jen.Id("data").Index().Byte(), jen.Id("arguments").Op("*").Qual("encoding/json", "RawMessage")).Error().Block(decode(true)...)
	}
}

// encodeMember writes member m (property p) with the value v through the
// Encoder method for its Go type, so that no scalar or slice is boxed into
// an interface; a type it does not know goes through Encoder.Value.
func (t *tgen) encodeMember(p *schema.Property, m *member, key *jen.Statement, v jen.Code) *jen.Statement {
	e := jen.Id("e")
	switch m.info.cat {
	case catStruct:
		if m.pointer && m.required {
			// A nullable required member: nil is written as null, as
			// encoding/json would (a method value of nil would panic).
			return jen.If(jen.Add(v).Op("==").Nil()).Block(e.Clone().Dot("Raw").Call(key.Clone(), jen.Lit("null"))).Else().Block(
				e.Clone().Dot("Append").Call(key, jen.Add(v).Dot("AppendJSON")))
		}
		return e.Dot("Append").Call(key, jen.Add(v).Dot("AppendJSON"))
	case catSlice:
		if t.stringItems(p) {
			return gi("AppendStrings").Call(jen.Op("&").Id("e"), key, v)
		}
		return gi("AppendSlice").Call(jen.Op("&").Id("e"), key, v)
	case catMap:
		if m.info.spell == "map[string]json.RawMessage" {
			return e.Dot("RawMap").Call(key, v)
		}
	case catRaw:
		if m.info.spell == "json.RawMessage" {
			return e.Dot("RawValue").Call(key, v)
		}
	case catScalar:
		goTyp, method := "", ""
		switch t.resolve(p.Type).Kind {
		case schema.KindString:
			goTyp, method = "string", "String"
		case schema.KindBoolean:
			goTyp, method = "bool", "Bool"
		case schema.KindInteger:
			goTyp, method = "int64", "Int"
		case schema.KindNumber:
			goTyp, method = "float64", "Float"
		}
		if method == "" {
			break
		}
		// A conversion, so that named scalar types (enums) take the same
		// path as their underlying type.
		named := m.info.spell != goTyp
		switch {
		case m.pointer && named:
			return e.Dot(method+"Ptr").Call(key, jen.Parens(jen.Op("*").Id(goTyp)).Parens(v))
		case m.pointer:
			return e.Dot(method+"Ptr").Call(key, v)
		case named:
			return e.Dot(method).Call(key, jen.Id(goTyp).Parens(v))
		}
		return e.Dot(method).Call(key, v)
	}
	return e.Dot("Value").Call(key, v)
}

// stringItems reports whether property p is an array of plain strings (or
// of a named string type, an enum), which genimpl reads and writes without
// reflection.
func (t *tgen) stringItems(p *schema.Property) bool {
	a := t.resolve(p.Type)
	if a == nil || a.Kind != schema.KindArray || a.Items == nil {
		return false
	}
	it := t.resolve(a.Items)
	return it != nil && it.Kind == schema.KindString && !it.Nullable && it.Const == nil
}

// structItems reports whether property p is an array of a generated struct
// type (an object with properties), which has its own UnmarshalJSON.
func (t *tgen) structItems(p *schema.Property) bool {
	a := t.resolve(p.Type)
	if a == nil || a.Kind != schema.KindArray || a.Items == nil {
		return false
	}
	it := t.resolve(a.Items)
	return it != nil && it.Kind == schema.KindObject && len(it.Properties) > 0 && !it.Nullable
}
