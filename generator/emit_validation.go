package generator

import "github.com/dave/jennifer/jen"

// emitValidationTypes writes the two declarations cancel.go's validators
// need from this package. The error type and the JSON scanner they run on
// live once, in runtime/genimpl (compiled and tested there); a generated
// package only names the error and gives its validators a receiver.
func emitValidationTypes(f *jen.File) {
	f.Comment("ValidationError says why a value does not match this revision's schema: the")
	f.Comment("JSON pointer (RFC 6901) of the offending value, and what is wrong with it.")
	f.Comment("It is genimpl's, shared by every generated package.")
	f.Type().Id("ValidationError").Op("=").Add(gi("ValidationError"))
	f.Line()
	f.Comment("svState is one validation: genimpl's scanner, with this package's")
	f.Comment("generated validators as its methods.")
	f.Type().Id("svState").Struct(gi("Validator"))
}
