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
// For packages generated from a server's snapshot it also keeps the tool
// schemas as published (Schema) and checks the values bound to
// json.RawMessage against them: in the Caller before sending
// (CheckArguments), in the bind functions and result decoders
// (Schema.Check); see schema.go for what that interpreter asserts.
//
// Values are checked as encoding/json decodes them with UseNumber
// (map[string]any, []any, string, json.Number, bool, nil): numbers stay
// exact (compared as big.Rat), and every check reports a *ValidationError
// naming the JSON pointer of the value at fault, relative to what was
// decoded (the generated code passes the pointer down as it descends).
package toolsupport
