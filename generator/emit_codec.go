package generator

import (
	"strconv"

	"github.com/dave/jennifer/jen"
)

// types_json.go holds the small, revision-independent JSON helpers the
// generated MarshalJSON/UnmarshalJSON methods of types.go call. They are
// generated into every package (not put in the runtime) so that the
// encoding rules stay next to the types that use them, and only those
// types.go uses are declared (no unused code in the output). The file
// name sorts after types.go, so its emitter runs after the types emitter
// has recorded what it used.
func init() { register("types_json.go", emitCodec) }

const (
	jsonPkg    = "encoding/json"
	fmtPkg     = "fmt"
	errorsPkg  = "errors"
	sortPkg    = "sort"
	slicesPkg  = "slices"
	strconvPkg = "strconv"
)

func rawMessage() *jen.Statement { return jen.Qual(jsonPkg, "RawMessage") }

func rawMap() *jen.Statement { return jen.Map(jen.String()).Qual(jsonPkg, "RawMessage") }

// charLit renders a byte as a Go character literal ('{'), which jennifer's
// LitByte would render as byte(0x7b).
func charLit(c byte) *jen.Statement { return jen.Id(strconv.QuoteRune(rune(c))) }

// errIf is `if err != nil { return <ret...> }`.
func errIf(ret ...jen.Code) *jen.Statement {
	return jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(ret...))
}

func emitCodec(g *gen, f *jen.File) (bool, error) {
	pkg := g.opts.Package
	used := func(string) bool { return true }
	if u, ok := codecUsage.LoadAndDelete(g); ok {
		m := u.(map[string]bool)
		used = func(name string) bool { return m[name] }
	}

	// DecodeError.
	f.Comment("DecodeError reports a JSON document that does not decode into a type of this")
	f.Comment("package: a missing required member, a constant member with the wrong value,")
	f.Comment("null where the schema does not allow it, a value of the wrong JSON kind, or a")
	f.Comment("union value that no branch accepts. Nested errors wrap each other, so the")
	f.Comment("message reads as a path from the outermost type.")
	f.Type().Id("DecodeError").Struct(
		jen.Comment("Type is the Go type being decoded."),
		jen.Id("Type").String(),
		jen.Comment("Member is the JSON member at fault, or empty for the value itself."),
		jen.Id("Member").String(),
		jen.Comment("Err says what is wrong."),
		jen.Id("Err").Error(),
	)
	f.Comment("Error formats the type, the member and the cause.")
	f.Func().Params(jen.Id("e").Op("*").Id("DecodeError")).Id("Error").Params().String().Block(
		jen.Id("s").Op(":=").Lit(pkg+": decoding ").Op("+").Id("e").Dot("Type"),
		jen.If(jen.Id("e").Dot("Member").Op("!=").Lit("")).Block(
			jen.Id("s").Op("+=").Lit(": member ").Op("+").Qual(strconvPkg, "Quote").Call(jen.Id("e").Dot("Member")),
		),
		jen.Comment("A nested DecodeError continues the path without repeating the package."),
		jen.Return(jen.Id("s").Op("+").Lit(": ").Op("+").Qual("strings", "TrimPrefix").Call(jen.Id("e").Dot("Err").Dot("Error").Call(), jen.Lit(pkg+": "))),
	)
	f.Comment("Unwrap returns the cause.")
	f.Func().Params(jen.Id("e").Op("*").Id("DecodeError")).Id("Unwrap").Params().Error().Block(jen.Return(jen.Id("e").Dot("Err")))

	f.Var().Defs(
		jen.Id("errMissing").Op("=").Qual(errorsPkg, "New").Call(jen.Lit("required member is missing")),
		jen.Id("errNull").Op("=").Qual(errorsPkg, "New").Call(jen.Lit("null is not allowed here")),
	)

	// jsonKind / kindName.
	f.Comment("jsonKind classifies a JSON value by its first byte: '{', '[', '\"', 'b' for")
	f.Comment("booleans, '0' for numbers, 'n' for null, 0 for nothing.")
	f.Func().Id("jsonKind").Params(jen.Id("data").Index().Byte()).Byte().Block(
		jen.For(jen.List(jen.Id("_"), jen.Id("c")).Op(":=").Range().Id("data")).Block(
			jen.Switch(jen.Id("c")).Block(
				jen.Case(charLit(' '), charLit('\t'), charLit('\n'), charLit('\r')).Block(jen.Continue()),
				jen.Case(charLit('t'), charLit('f')).Block(jen.Return(charLit('b'))),
				jen.Case(charLit('-'), charLit('0'), charLit('1'), charLit('2'), charLit('3'), charLit('4'),
					charLit('5'), charLit('6'), charLit('7'), charLit('8'), charLit('9')).Block(jen.Return(charLit('0'))),
			),
			jen.Return(jen.Id("c")),
		),
		jen.Return(jen.Lit(0)),
	)
	f.Func().Id("kindName").Params(jen.Id("k").Byte()).String().Block(
		jen.Switch(jen.Id("k")).Block(
			jen.Case(charLit('{')).Block(jen.Return(jen.Lit("an object"))),
			jen.Case(charLit('[')).Block(jen.Return(jen.Lit("an array"))),
			jen.Case(charLit('"')).Block(jen.Return(jen.Lit("a string"))),
			jen.Case(charLit('b')).Block(jen.Return(jen.Lit("a boolean"))),
			jen.Case(charLit('0')).Block(jen.Return(jen.Lit("a number"))),
			jen.Case(charLit('n')).Block(jen.Return(jen.Lit("null"))),
		),
		jen.Return(jen.Lit("not JSON")),
	)

	// decodeObject.
	f.Comment("decodeObject splits a JSON object into its members.")
	f.Func().Id("decodeObject").Params(jen.Id("data").Index().Byte()).Params(rawMap(), jen.Error()).Block(
		jen.If(jen.Id("k").Op(":=").Id("jsonKind").Call(jen.Id("data")), jen.Id("k").Op("!=").LitByte('{')).Block(
			jen.Return(jen.Nil(), jen.Qual(fmtPkg, "Errorf").Call(jen.Lit("want a JSON object, got %s"), jen.Id("kindName").Call(jen.Id("k")))),
		),
		jen.Var().Id("m").Add(rawMap()),
		jen.If(jen.Err().Op(":=").Qual(jsonPkg, "Unmarshal").Call(jen.Id("data"), jen.Op("&").Id("m")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), jen.Err()),
		),
		jen.Return(jen.Id("m"), jen.Nil()),
	)

	// sameJSON.
	if used("constant") || used("bestShape") {
		f.Comment("sameJSON reports whether the JSON value got equals the constant want")
		f.Comment("(a string or number literal).")
		f.Func().Id("sameJSON").Params(jen.Id("got").Index().Byte(), jen.Id("want").String()).Bool().Block(
			jen.Var().List(jen.Id("a"), jen.Id("b")).Any(),
			jen.If(jen.Qual(jsonPkg, "Unmarshal").Call(jen.Id("got"), jen.Op("&").Id("a")).Op("!=").Nil().Op("||").
				Qual(jsonPkg, "Unmarshal").Call(jen.Index().Byte().Parens(jen.Id("want")), jen.Op("&").Id("b")).Op("!=").Nil()).Block(
				jen.Return(jen.False()),
			),
			jen.Return(jen.Id("a").Op("==").Id("b")),
		)

	}
	// objDecoder.
	f.Comment("objDecoder decodes the members of one JSON object into a struct, member by")
	f.Comment("member, keeping the first error; what is left afterwards are the undeclared")
	f.Comment("members.")
	f.Type().Id("objDecoder").Struct(
		jen.Id("typ").String(),
		jen.Id("m").Add(rawMap()),
		jen.Id("err").Error(),
	)
	f.Func().Id("newObjDecoder").Params(jen.Id("typ").String(), jen.Id("data").Index().Byte()).Params(jen.Op("*").Id("objDecoder"), jen.Error()).Block(
		jen.List(jen.Id("m"), jen.Err()).Op(":=").Id("decodeObject").Call(jen.Id("data")),
		errIf(jen.Nil(), jen.Op("&").Id("DecodeError").Values(jen.Id("Type").Op(":").Id("typ"), jen.Id("Err").Op(":").Err())),
		jen.Return(jen.Op("&").Id("objDecoder").Values(jen.Dict{jen.Id("typ"): jen.Id("typ"), jen.Id("m"): jen.Id("m")}), jen.Nil()),
	)
	dRecv := func() *jen.Statement { return jen.Params(jen.Id("d").Op("*").Id("objDecoder")) }
	f.Func().Add(dRecv()).Id("fail").Params(jen.Id("name").String(), jen.Err().Error()).Block(
		jen.If(jen.Id("d").Dot("err").Op("==").Nil()).Block(
			jen.Id("d").Dot("err").Op("=").Op("&").Id("DecodeError").Values(jen.Dict{
				jen.Id("Type"): jen.Id("d").Dot("typ"), jen.Id("Member"): jen.Id("name"), jen.Id("Err"): jen.Err(),
			}),
		),
	)
	f.Comment("take removes member name and returns its value; ok is false when it is")
	f.Comment("absent (an error when required) or a null that is not allowed.")
	f.Func().Add(dRecv()).Id("take").Params(jen.Id("name").String(), jen.List(jen.Id("required"), jen.Id("nullable")).Bool()).Params(rawMessage(), jen.Bool()).Block(
		jen.List(jen.Id("v"), jen.Id("ok")).Op(":=").Id("d").Dot("m").Index(jen.Id("name")),
		jen.If(jen.Op("!").Id("ok")).Block(
			jen.If(jen.Id("required")).Block(jen.Id("d").Dot("fail").Call(jen.Id("name"), jen.Id("errMissing"))),
			jen.Return(jen.Nil(), jen.False()),
		),
		jen.Delete(jen.Id("d").Dot("m"), jen.Id("name")),
		jen.If(jen.Op("!").Id("nullable").Op("&&").Id("jsonKind").Call(jen.Id("v")).Op("==").LitByte('n')).Block(
			jen.Id("d").Dot("fail").Call(jen.Id("name"), jen.Id("errNull")),
			jen.Return(jen.Nil(), jen.False()),
		),
		jen.Return(jen.Id("v"), jen.True()),
	)
	if used("field") {
		f.Comment("field decodes member name into dst with encoding/json.")
		f.Func().Add(dRecv()).Id("field").Params(jen.Id("name").String(), jen.List(jen.Id("required"), jen.Id("nullable")).Bool(), jen.Id("dst").Any()).Block(
			jen.If(jen.List(jen.Id("v"), jen.Id("ok")).Op(":=").Id("d").Dot("take").Call(jen.Id("name"), jen.Id("required"), jen.Id("nullable")), jen.Id("ok")).Block(
				jen.If(jen.Err().Op(":=").Qual(jsonPkg, "Unmarshal").Call(jen.Id("v"), jen.Id("dst")), jen.Err().Op("!=").Nil()).Block(
					jen.Id("d").Dot("fail").Call(jen.Id("name"), jen.Err()),
				),
			),
		)
	}
	if used("constant") {
		f.Comment("constant checks that member name, when present, has the value want (its")
		f.Comment("JSON text), and reports whether it was present.")
		f.Func().Add(dRecv()).Id("constant").Params(jen.Id("name").String(), jen.Id("want").String(), jen.Id("required").Bool()).Bool().Block(
			jen.List(jen.Id("v"), jen.Id("ok")).Op(":=").Id("d").Dot("take").Call(jen.Id("name"), jen.Id("required"), jen.False()),
			jen.If(jen.Op("!").Id("ok")).Block(jen.Return(jen.False())),
			jen.If(jen.Op("!").Id("sameJSON").Call(jen.Id("v"), jen.Id("want"))).Block(
				jen.Id("d").Dot("fail").Call(jen.Id("name"), jen.Qual(fmtPkg, "Errorf").Call(jen.Lit("want %s, got %s"), jen.Id("want"), jen.Id("clip").Call(jen.Id("v")))),
			),
			jen.Return(jen.True()),
		)
	}
	f.Comment("rest returns the members no field took, or nil.")
	f.Func().Add(dRecv()).Id("rest").Params().Add(rawMap()).Block(
		jen.If(jen.Len(jen.Id("d").Dot("m")).Op("==").Lit(0)).Block(jen.Return(jen.Nil())),
		jen.Return(jen.Id("d").Dot("m")),
	)
	if used("fieldFunc") {
		f.Comment("fieldFunc decodes member name into dst with dec (for members whose type")
		f.Comment("contains a union, which encoding/json cannot decode on its own, and for")
		f.Comment("integers, which JSON Schema lets be written 1.0). An allowed null leaves dst")
		f.Comment("zero.")
		f.Func().Id("fieldFunc").Types(jen.Id("T").Any()).Params(
			jen.Id("d").Op("*").Id("objDecoder"), jen.Id("name").String(), jen.List(jen.Id("required"), jen.Id("nullable")).Bool(), jen.Id("dst").Op("*").Id("T"),
			jen.Id("dec").Func().Params(jen.Index().Byte()).Params(jen.Id("T"), jen.Error()),
		).Block(
			jen.If(jen.List(jen.Id("v"), jen.Id("ok")).Op(":=").Id("d").Dot("take").Call(jen.Id("name"), jen.Id("required"), jen.Id("nullable")), jen.Id("ok")).Block(
				jen.If(jen.Id("jsonKind").Call(jen.Id("v")).Op("==").LitByte('n')).Block(jen.Return()),
				jen.List(jen.Id("x"), jen.Err()).Op(":=").Id("dec").Call(jen.Id("v")),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Id("d").Dot("fail").Call(jen.Id("name"), jen.Err()), jen.Return()),
				jen.Op("*").Id("dst").Op("=").Id("x"),
			),
		)
	}
	if used("parseInteger") {
		f.Comment("parseInteger decodes a JSON integer. As in JSON Schema, a number with a")
		f.Comment("zero fractional part (1.0, 1e3) is an integer too; 1.5 is not.")
		f.Func().Id("parseInteger").Params(jen.Id("data").Index().Byte()).Params(jen.Int64(), jen.Error()).Block(
			jen.Var().Id("n").Qual(jsonPkg, "Number"),
			jen.If(jen.Err().Op(":=").Qual(jsonPkg, "Unmarshal").Call(jen.Id("data"), jen.Op("&").Id("n")), jen.Err().Op("!=").Nil().Op("||").Id("jsonKind").Call(jen.Id("data")).Op("!=").LitByte('0')).Block(
				jen.Return(jen.Lit(0), jen.Qual(fmtPkg, "Errorf").Call(jen.Lit("want an integer, got %s"), jen.Id("kindName").Call(jen.Id("jsonKind").Call(jen.Id("data"))))),
			),
			jen.If(jen.List(jen.Id("i"), jen.Err()).Op(":=").Qual(strconvPkg, "ParseInt").Call(jen.String().Parens(jen.Id("n")), jen.Lit(10), jen.Lit(64)), jen.Err().Op("==").Nil()).Block(
				jen.Return(jen.Id("i"), jen.Nil()),
			),
			jen.List(jen.Id("f"), jen.Err()).Op(":=").Qual(strconvPkg, "ParseFloat").Call(jen.String().Parens(jen.Id("n")), jen.Lit(64)),
			jen.If(jen.Err().Op("!=").Nil().Op("||").Id("f").Op("!=").Qual("math", "Trunc").Call(jen.Id("f")).Op("||").Qual("math", "Abs").Call(jen.Id("f")).Op(">=").Lit(float64(1<<63))).Block(
				jen.Return(jen.Lit(0), jen.Qual(fmtPkg, "Errorf").Call(jen.Lit("%s is not an int64 integer"), jen.Id("n"))),
			),
			jen.Return(jen.Int64().Parens(jen.Id("f")), jen.Nil()),
		)
	}
	if used("pointerTo") {
		f.Comment("pointerTo lifts a decoder to one that returns a pointer.")
		f.Func().Id("pointerTo").Types(jen.Id("T").Any()).Params(
			jen.Id("dec").Func().Params(jen.Index().Byte()).Params(jen.Id("T"), jen.Error()),
		).Func().Params(jen.Index().Byte()).Params(jen.Op("*").Id("T"), jen.Error()).Block(
			jen.Return(jen.Func().Params(jen.Id("data").Index().Byte()).Params(jen.Op("*").Id("T"), jen.Error()).Block(
				jen.List(jen.Id("v"), jen.Err()).Op(":=").Id("dec").Call(jen.Id("data")),
				errIf(jen.Nil(), jen.Err()),
				jen.Return(jen.Op("&").Id("v"), jen.Nil()),
			)),
		)
	}
	if used("sliceOf") {
		f.Comment("sliceOf lifts an element decoder to a JSON array decoder.")
		f.Func().Id("sliceOf").Types(jen.Id("T").Any()).Params(
			jen.Id("dec").Func().Params(jen.Index().Byte()).Params(jen.Id("T"), jen.Error()),
		).Func().Params(jen.Index().Byte()).Params(jen.Index().Id("T"), jen.Error()).Block(
			jen.Return(jen.Func().Params(jen.Id("data").Index().Byte()).Params(jen.Index().Id("T"), jen.Error()).Block(
				jen.If(jen.Id("k").Op(":=").Id("jsonKind").Call(jen.Id("data")), jen.Id("k").Op("!=").LitByte('[')).Block(
					jen.Return(jen.Nil(), jen.Qual(fmtPkg, "Errorf").Call(jen.Lit("want a JSON array, got %s"), jen.Id("kindName").Call(jen.Id("k")))),
				),
				jen.Var().Id("raw").Index().Add(rawMessage()),
				jen.If(jen.Err().Op(":=").Qual(jsonPkg, "Unmarshal").Call(jen.Id("data"), jen.Op("&").Id("raw")), jen.Err().Op("!=").Nil()).Block(
					jen.Return(jen.Nil(), jen.Err()),
				),
				jen.Id("out").Op(":=").Make(jen.Index().Id("T"), jen.Len(jen.Id("raw"))),
				jen.For(jen.List(jen.Id("i"), jen.Id("r")).Op(":=").Range().Id("raw")).Block(
					jen.List(jen.Id("v"), jen.Err()).Op(":=").Id("dec").Call(jen.Id("r")),
					errIf(jen.Nil(), jen.Qual(fmtPkg, "Errorf").Call(jen.Lit("item %d: %w"), jen.Id("i"), jen.Err())),
					jen.Id("out").Index(jen.Id("i")).Op("=").Id("v"),
				),
				jen.Return(jen.Id("out"), jen.Nil()),
			)),
		)
	}
	if used("mapOf") {
		f.Comment("mapOf lifts a value decoder to a JSON object (map) decoder.")
		f.Func().Id("mapOf").Types(jen.Id("T").Any()).Params(
			jen.Id("dec").Func().Params(jen.Index().Byte()).Params(jen.Id("T"), jen.Error()),
		).Func().Params(jen.Index().Byte()).Params(jen.Map(jen.String()).Id("T"), jen.Error()).Block(
			jen.Return(jen.Func().Params(jen.Id("data").Index().Byte()).Params(jen.Map(jen.String()).Id("T"), jen.Error()).Block(
				jen.List(jen.Id("raw"), jen.Err()).Op(":=").Id("decodeObject").Call(jen.Id("data")),
				errIf(jen.Nil(), jen.Err()),
				jen.Id("out").Op(":=").Make(jen.Map(jen.String()).Id("T"), jen.Len(jen.Id("raw"))),
				jen.For(jen.List(jen.Id("k"), jen.Id("r")).Op(":=").Range().Id("raw")).Block(
					jen.List(jen.Id("v"), jen.Err()).Op(":=").Id("dec").Call(jen.Id("r")),
					errIf(jen.Nil(), jen.Qual(fmtPkg, "Errorf").Call(jen.Lit("member %q: %w"), jen.Id("k"), jen.Err())),
					jen.Id("out").Index(jen.Id("k")).Op("=").Id("v"),
				),
				jen.Return(jen.Id("out"), jen.Nil()),
			)),
		)
	}
	if used("nonNilSlice") {
		f.Comment("nonNilSlice makes a required array encode as [] rather than null.")
		f.Func().Id("nonNilSlice").Types(jen.Id("S").Op("~").Index().Id("E"), jen.Id("E").Any()).Params(jen.Id("s").Id("S")).Id("S").Block(
			jen.If(jen.Id("s").Op("==").Nil()).Block(jen.Return(jen.Id("S").Values())),
			jen.Return(jen.Id("s")),
		)
	}
	if used("nonNilMap") {
		f.Comment("nonNilMap makes a required map encode as {} rather than null.")
		f.Func().Id("nonNilMap").Types(jen.Id("M").Op("~").Map(jen.String()).Id("V"), jen.Id("V").Any()).Params(jen.Id("m").Id("M")).Id("M").Block(
			jen.If(jen.Id("m").Op("==").Nil()).Block(jen.Return(jen.Id("M").Values())),
			jen.Return(jen.Id("m")),
		)
	}
	if used("constant") {
		f.Comment("clip shortens a JSON value for an error message.")
		f.Func().Id("clip").Params(jen.Id("b").Index().Byte()).String().Block(
			jen.If(jen.Len(jen.Id("b")).Op(">").Lit(64)).Block(jen.Return(jen.String().Parens(jen.Id("b").Index(jen.Empty(), jen.Lit(64))).Op("+").Lit("…"))),
			jen.Return(jen.String().Parens(jen.Id("b"))),
		)

	}
	// objEncoder.
	f.Comment("objEncoder writes one JSON object member by member. Undeclared members")
	f.Comment("(Extra) come last, sorted, and never repeat a member already written.")
	f.Type().Id("objEncoder").Struct(
		jen.Id("typ").String(),
		jen.Id("buf").Index().Byte(),
		jen.Id("keys").Index().String(),
		jen.Id("err").Error(),
	)
	eRecv := func() *jen.Statement { return jen.Params(jen.Id("e").Op("*").Id("objEncoder")) }
	f.Func().Add(eRecv()).Id("raw").Params(jen.Id("name").String(), jen.Id("value").Index().Byte()).Block(
		jen.If(jen.Len(jen.Id("e").Dot("keys")).Op("==").Lit(0)).Block(
			jen.Id("e").Dot("buf").Op("=").Append(jen.Id("e").Dot("buf"), charLit('{')),
		).Else().Block(
			jen.Id("e").Dot("buf").Op("=").Append(jen.Id("e").Dot("buf"), charLit(',')),
		),
		jen.List(jen.Id("k"), jen.Id("_")).Op(":=").Qual(jsonPkg, "Marshal").Call(jen.Id("name")),
		jen.Id("e").Dot("buf").Op("=").Append(jen.Id("e").Dot("buf"), jen.Id("k").Op("...")),
		jen.Id("e").Dot("buf").Op("=").Append(jen.Id("e").Dot("buf"), charLit(':')),
		jen.Id("e").Dot("buf").Op("=").Append(jen.Id("e").Dot("buf"), jen.Id("value").Op("...")),
		jen.Id("e").Dot("keys").Op("=").Append(jen.Id("e").Dot("keys"), jen.Id("name")),
	)
	f.Func().Add(eRecv()).Id("value").Params(jen.Id("name").String(), jen.Id("v").Any()).Block(
		jen.If(jen.Id("e").Dot("err").Op("!=").Nil()).Block(jen.Return()),
		jen.List(jen.Id("b"), jen.Err()).Op(":=").Qual(jsonPkg, "Marshal").Call(jen.Id("v")),
		jen.If(jen.Err().Op("!=").Nil()).Block(
			jen.Id("e").Dot("err").Op("=").Qual(fmtPkg, "Errorf").Call(jen.Lit(pkg+": encoding %s: member %q: %w"), jen.Id("e").Dot("typ"), jen.Id("name"), jen.Err()),
			jen.Return(),
		),
		jen.Id("e").Dot("raw").Call(jen.Id("name"), jen.Id("b")),
	)
	if used("missing") {
		f.Func().Add(eRecv()).Id("missing").Params(jen.Id("name").String()).Block(
			jen.If(jen.Id("e").Dot("err").Op("==").Nil()).Block(
				jen.Id("e").Dot("err").Op("=").Qual(fmtPkg, "Errorf").Call(jen.Lit(pkg+": encoding %s: required member %q is not set"), jen.Id("e").Dot("typ"), jen.Id("name")),
			),
		)
	}
	f.Func().Add(eRecv()).Id("extra").Params(jen.Id("m").Add(rawMap())).Block(
		jen.Id("keys").Op(":=").Make(jen.Index().String(), jen.Lit(0), jen.Len(jen.Id("m"))),
		jen.For(jen.Id("k").Op(":=").Range().Id("m")).Block(
			jen.If(jen.Op("!").Qual(slicesPkg, "Contains").Call(jen.Id("e").Dot("keys"), jen.Id("k"))).Block(
				jen.Id("keys").Op("=").Append(jen.Id("keys"), jen.Id("k")),
			),
		),
		jen.Qual(sortPkg, "Strings").Call(jen.Id("keys")),
		jen.For(jen.List(jen.Id("_"), jen.Id("k")).Op(":=").Range().Id("keys")).Block(
			jen.Id("e").Dot("value").Call(jen.Id("k"), jen.Id("m").Index(jen.Id("k"))),
		),
	)
	f.Func().Add(eRecv()).Id("bytes").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		jen.If(jen.Id("e").Dot("err").Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Id("e").Dot("err"))),
		jen.If(jen.Len(jen.Id("e").Dot("keys")).Op("==").Lit(0)).Block(jen.Return(jen.Index().Byte().Parens(jen.Lit("{}")), jen.Nil())),
		jen.Return(jen.Append(jen.Id("e").Dot("buf"), charLit('}')), jen.Nil()),
	)

	if used("bestShape") {
		// shape: the structural union matcher.
		f.Comment("shape is what a structural union branch demands of a value: required")
		f.Comment("members, constant and enum members, and shapes of nested required objects.")
		f.Type().Id("shape").Struct(
			jen.Id("required").Index().String(),
			jen.Id("consts").Map(jen.String()).String(),
			jen.Id("enums").Map(jen.String()).Index().String(),
			jen.Id("nested").Map(jen.String()).Op("*").Id("shape"),
			jen.Id("declared").Index().String(),
		)
		f.Comment("match reports whether data meets s, and how many of its members s does not")
		f.Comment("declare.")
		f.Func().Params(jen.Id("s").Op("*").Id("shape")).Id("match").Params(jen.Id("data").Index().Byte()).Params(jen.Bool(), jen.Int()).Block(
			jen.List(jen.Id("m"), jen.Err()).Op(":=").Id("decodeObject").Call(jen.Id("data")),
			errIf(jen.False(), jen.Lit(0)),
			jen.For(jen.List(jen.Id("_"), jen.Id("r")).Op(":=").Range().Id("s").Dot("required")).Block(
				jen.If(jen.List(jen.Id("_"), jen.Id("ok")).Op(":=").Id("m").Index(jen.Id("r")), jen.Op("!").Id("ok")).Block(jen.Return(jen.False(), jen.Lit(0))),
			),
			jen.For(jen.List(jen.Id("k"), jen.Id("want")).Op(":=").Range().Id("s").Dot("consts")).Block(
				jen.If(jen.List(jen.Id("v"), jen.Id("ok")).Op(":=").Id("m").Index(jen.Id("k")), jen.Id("ok").Op("&&").Op("!").Id("sameJSON").Call(jen.Id("v"), jen.Id("want"))).Block(jen.Return(jen.False(), jen.Lit(0))),
			),
			jen.For(jen.List(jen.Id("k"), jen.Id("allowed")).Op(":=").Range().Id("s").Dot("enums")).Block(
				jen.If(jen.List(jen.Id("v"), jen.Id("ok")).Op(":=").Id("m").Index(jen.Id("k")), jen.Id("ok")).Block(
					jen.Var().Id("str").String(),
					jen.If(jen.Qual(jsonPkg, "Unmarshal").Call(jen.Id("v"), jen.Op("&").Id("str")).Op("!=").Nil().Op("||").Op("!").Qual(slicesPkg, "Contains").Call(jen.Id("allowed"), jen.Id("str"))).Block(
						jen.Return(jen.False(), jen.Lit(0)),
					),
				),
			),
			jen.For(jen.List(jen.Id("k"), jen.Id("n")).Op(":=").Range().Id("s").Dot("nested")).Block(
				jen.If(jen.List(jen.Id("v"), jen.Id("ok")).Op(":=").Id("m").Index(jen.Id("k")), jen.Id("ok")).Block(
					jen.If(jen.List(jen.Id("ok"), jen.Id("_")).Op(":=").Id("n").Dot("match").Call(jen.Id("v")), jen.Op("!").Id("ok")).Block(jen.Return(jen.False(), jen.Lit(0))),
				),
			),
			jen.Id("undeclared").Op(":=").Lit(0),
			jen.For(jen.Id("k").Op(":=").Range().Id("m")).Block(
				jen.If(jen.Op("!").Qual(slicesPkg, "Contains").Call(jen.Id("s").Dot("declared"), jen.Id("k"))).Block(jen.Id("undeclared").Op("++")),
			),
			jen.Return(jen.True(), jen.Id("undeclared")),
		)
		f.Comment("bestShape returns the index of the shape data meets with the fewest")
		f.Comment("undeclared members, the earliest on a tie, or -1.")
		f.Func().Id("bestShape").Params(jen.Id("data").Index().Byte(), jen.Id("shapes").Index().Op("*").Id("shape")).Int().Block(
			jen.List(jen.Id("best"), jen.Id("fewest")).Op(":=").List(jen.Lit(-1), jen.Lit(0)),
			jen.For(jen.List(jen.Id("i"), jen.Id("s")).Op(":=").Range().Id("shapes")).Block(
				jen.If(jen.List(jen.Id("ok"), jen.Id("n")).Op(":=").Id("s").Dot("match").Call(jen.Id("data")),
					jen.Id("ok").Op("&&").Parens(jen.Id("best").Op("<").Lit(0).Op("||").Id("n").Op("<").Id("fewest"))).Block(
					jen.List(jen.Id("best"), jen.Id("fewest")).Op("=").List(jen.Id("i"), jen.Id("n")),
				),
			),
			jen.Return(jen.Id("best")),
		)
	}
	if used("memberString") {
		f.Comment("memberString returns the string value of member name of the object m;")
		f.Comment("present is false when the member is absent, ok false when it is not a string.")
		f.Func().Id("memberString").Params(jen.Id("m").Add(rawMap()), jen.Id("name").String()).Params(jen.Id("value").String(), jen.List(jen.Id("present"), jen.Id("ok")).Bool()).Block(
			jen.List(jen.Id("v"), jen.Id("present")).Op(":=").Id("m").Index(jen.Id("name")),
			jen.If(jen.Op("!").Id("present")).Block(jen.Return(jen.Lit(""), jen.False(), jen.False())),
			jen.If(jen.Qual(jsonPkg, "Unmarshal").Call(jen.Id("v"), jen.Op("&").Id("value")).Op("!=").Nil()).Block(jen.Return(jen.Lit(""), jen.True(), jen.False())),
			jen.Return(jen.Id("value"), jen.True(), jen.True()),
		)
	}
	if used("decodePointer") {
		f.Comment("decodePointer decodes data into a new T with (*T).UnmarshalJSON and returns it")
		f.Comment("as the union U (never a typed nil).")
		f.Func().Id("decodePointer").Types(jen.Id("U").Any(), jen.Id("T").Any(), jen.Id("P").Interface(
			jen.Op("*").Id("T"),
			jen.Id("UnmarshalJSON").Params(jen.Index().Byte()).Error(),
		)).Params(jen.Id("data").Index().Byte()).Params(jen.Id("U"), jen.Error()).Block(
			jen.Var().Id("zero").Id("U"),
			jen.Id("p").Op(":=").Id("P").Parens(jen.New(jen.Id("T"))),
			jen.If(jen.Err().Op(":=").Id("p").Dot("UnmarshalJSON").Call(jen.Id("data")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Id("zero"), jen.Err())),
			jen.List(jen.Id("u"), jen.Id("ok")).Op(":=").Any().Parens(jen.Id("p")).Assert(jen.Id("U")),
			jen.If(jen.Op("!").Id("ok")).Block(jen.Return(jen.Id("zero"), jen.Qual(fmtPkg, "Errorf").Call(jen.Lit("%T is not a %T"), jen.Id("p"), jen.Parens(jen.Op("*").Id("U")).Parens(jen.Nil())))),
			jen.Return(jen.Id("u"), jen.Nil()),
		)
	}
	if used("decodeValue") {
		f.Comment("decodeValue decodes data into a T with encoding/json and returns it as the")
		f.Comment("union U.")
		f.Func().Id("decodeValue").Types(jen.Id("U").Any(), jen.Id("T").Any()).Params(jen.Id("data").Index().Byte()).Params(jen.Id("U"), jen.Error()).Block(
			jen.Var().Id("zero").Id("U"),
			jen.Var().Id("v").Id("T"),
			jen.If(jen.Err().Op(":=").Qual(jsonPkg, "Unmarshal").Call(jen.Id("data"), jen.Op("&").Id("v")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Id("zero"), jen.Err())),
			jen.List(jen.Id("u"), jen.Id("ok")).Op(":=").Any().Parens(jen.Id("v")).Assert(jen.Id("U")),
			jen.If(jen.Op("!").Id("ok")).Block(jen.Return(jen.Id("zero"), jen.Qual(fmtPkg, "Errorf").Call(jen.Lit("%T is not a %T"), jen.Id("v"), jen.Parens(jen.Op("*").Id("U")).Parens(jen.Nil())))),
			jen.Return(jen.Id("u"), jen.Nil()),
		)
	}
	if used("cloneRaw") {
		f.Comment("cloneRaw copies data so a kept raw value does not alias the caller's buffer.")
		f.Func().Id("cloneRaw").Params(jen.Id("data").Index().Byte()).Add(rawMessage()).Block(
			jen.Return(jen.Append(jen.Add(rawMessage()).Values(), jen.Id("data").Op("..."))),
		)
	}
	return true, nil
}
