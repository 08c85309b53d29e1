package generator

import (
	"strconv"

	"github.com/dave/jennifer/jen"
)

// types_json.go names, for the package, the codec support that lives once in
// runtime/genimpl (as protobuf-go's generated code calls protoimpl): only
// DecodeError, so that callers of a generated package can errors.As into
// its own name. Everything else the methods of types.go need they call in
// genimpl directly.
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
	// The types emitter records what it used; genimpl has all of it.
	codecUsage.LoadAndDelete(g)
	f.Comment("DecodeError reports a JSON document that does not decode into a type of this")
	f.Comment("package: a missing required member, a constant member with the wrong value,")
	f.Comment("null where the schema does not allow it, a value of the wrong JSON kind, or a")
	f.Comment("union value that no branch accepts. Nested errors wrap each other, so the")
	f.Comment("message reads as a path from the outermost type. It is genimpl's, so")
	f.Comment("errors.As finds it whichever generated package produced it.")
	f.Type().Id("DecodeError").Op("=").Add(gi("DecodeError"))
	return true, nil
}
