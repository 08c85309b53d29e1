package generator

// cancelSupport is the fixed part of cancel.go. The error type and the JSON
// scanner the generated validators run on live once, in runtime/genimpl; a
// generated package names them and gives its validators a receiver.
const cancelSupport = `
// ValidationError says why a value does not match this revision's schema: the
// JSON pointer (RFC 6901) of the offending value, and what is wrong with it.
// It is genimpl's, shared by every generated package.
type ValidationError = genimpl.ValidationError

// svState is one validation: genimpl's scanner, with this package's
// generated validators as its methods.
type svState struct{ genimpl.Validator }
`
