// Package genimpl is the support code of the packages mcpgen generates, and
// only of them: like protobuf-go's protoimpl, it exists so that every
// generated package calls one copy of the JSON scanning, decoding and
// encoding helpers instead of carrying its own. Its API is shaped for
// generated code and may change with the generator; hand-written code should
// use the generated types and the runtime package instead.
//
// The codec works without reflection or intermediate maps on the hot path:
// an object's members are located by one validating pass of the scanner
// into a small array of byte spans on the stack, declared members are
// decoded straight from their spans into the fields, a union's
// discriminator is peeked at without a map, and undeclared members are
// copied out (UnmarshalJSON may not keep its input) only when present. A
// nested object is passed over by its parent's pass and then scanned by its
// own decoder, so a value at depth n is read n+1 times; no level builds
// anything it then throws away. Keys are
// written from literals the generator precomputes. Whatever is not a fast
// path (rare value shapes, escaped keys) falls back to encoding/json, whose
// results define the behaviour the fast paths must reproduce; the package's
// fuzz targets check that against encoding/json.
package genimpl
