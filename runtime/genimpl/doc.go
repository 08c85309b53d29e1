// Package genimpl is the support code of the packages mcpgen generates, and
// only of them: like protobuf-go's protoimpl, it exists so that every
// generated package calls one copy of the JSON scanning, decoding and
// encoding helpers instead of carrying its own. Its API is shaped for
// generated code and may change with the generator; hand-written code should
// use the generated types and the runtime package instead.
//
// The codec scans each value once, without reflection on the hot path: an
// object's members are located by one pass of the scanner into a small
// array of byte spans, declared members are decoded straight from their
// spans, and undeclared ones are copied out only when present. Keys are
// written from literals the generator precomputes. Whatever is not a fast
// path (rare value shapes, escaped keys) falls back to encoding/json, whose
// results define the behaviour the fast paths must reproduce; the package's
// fuzz targets check that against encoding/json.
package genimpl
