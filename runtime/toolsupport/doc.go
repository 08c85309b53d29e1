// Package toolsupport is the support code of the typed-tools packages
// "mcpgen tools" generates, and only of them: the error types a tools
// package exports (under its own names, as aliases), and the helpers its
// generated bind functions, Handler and Caller call. Like genimpl for the
// bindings, it exists so that every generated tools package calls one
// copy of this code, compiled, vetted and tested here, instead of carrying
// its own. It imports only the standard library and the
// project's own scanner (runtime/internal/jsonscan, itself standard library only).
//
// Its API is shaped for generated code and may change with the generator;
// hand-written code should use what the generated package exports
// (ValidationError, ValidationErrors, ExecutionError, Errorf, the DecodeXxx
// functions, Handler and Caller).
//
// Values are checked as encoding/json decodes them with UseNumber
// (map[string]any, []any, string, json.Number, bool, nil): numbers stay
// exact (compared as big.Rat), and every check reports a *ValidationError
// naming the JSON pointer of the value at fault, relative to what was
// decoded (the generated code passes the pointer down as it descends).
package toolsupport

// SupportPackageIsVersion1 is the version guard of generated tools
// packages, like genimpl.SupportPackageIsVersion1 is for the bindings:
// every package "mcpgen tools" writes refers to it once,
//
//	const _ = toolsupport.SupportPackageIsVersion2
//
// so a tools package compiles only against a toolsupport that still
// provides what the generator that wrote it relied on; otherwise the
// build fails on that line with "undefined:
// toolsupport.SupportPackageIsVersionN", and the file's header names the
// mcpgen version that wrote it. When the generator starts to need
// something new here, it refers to the next version and this package adds
// the next constant in the same change; older constants stay while the
// code generated against them is still served.
const SupportPackageIsVersion1 = true

// SupportPackageIsVersion2 is the guard of tools packages that call the
// fast binders' raw helpers (RawObject, RawString, BindArgumentsFast, ...),
// which version 1's support package does not have.
const SupportPackageIsVersion2 = true
