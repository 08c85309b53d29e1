package genimpl

import "github.com/mcpgen/mcpgen/runtime/internal/jsonscan"

// The scanner lives in runtime/internal/jsonscan, the one home of the project's
// JSON scanning; these names are what the generated code and the rest of
// genimpl call.

// Skip returns the index just past the JSON value that starts at data[i]
// (after optional whitespace), or -1 when there is no valid value there. It
// validates everything it passes over, as encoding/json would.
func Skip(data []byte, i int) int { return jsonscan.Skip(data, i) }

// Value returns the one JSON value data holds, without surrounding
// whitespace, and whether data is exactly one valid value.
func Value(data []byte) ([]byte, bool) { return jsonscan.Value(data) }

// Object iterates over the members of one JSON object, validating every
// byte it passes over (jsonscan.Object).
type Object = jsonscan.Object

// NewObject starts iterating over the object at data[i]; a value that is
// not an object makes the first Next return false and Bad true.
func NewObject(data []byte, i int) Object { return jsonscan.NewObject(data, i) }

// Array iterates over the items of one JSON array like Object.
type Array = jsonscan.Array

// NewArray starts iterating over the array at data[i].
func NewArray(data []byte, i int) Array { return jsonscan.NewArray(data, i) }
