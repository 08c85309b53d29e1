package toolsupport

import (
	"fmt"
	"strings"
)

// ValidationError says where a value breaks its schema: Pointer is the JSON
// pointer of the offending value (relative to what was decoded, "" for the
// whole value) and Message what is wrong with it.
type ValidationError struct {
	Pointer string
	Message string
}

// Error formats the pointer and the message.
func (e *ValidationError) Error() string {
	p := e.Pointer
	if p == "" {
		p = "(root)"
	}
	return p + ": " + e.Message
}

// Invalid returns a *ValidationError at pointer p with the formatted
// message.
func Invalid(p, format string, args ...any) *ValidationError {
	return &ValidationError{Pointer: p, Message: fmt.Sprintf(format, args...)}
}

// ValidationErrors are several violations of one value, in the order of
// its members; errors.As finds the first *ValidationError.
type ValidationErrors []*ValidationError

// Error lists the violations.
func (e ValidationErrors) Error() string {
	s := make([]string, len(e))
	for i, v := range e {
		s[i] = v.Error()
	}
	return strings.Join(s, "; ")
}

// Unwrap returns the violations, for errors.As and errors.Is.
func (e ValidationErrors) Unwrap() []error {
	out := make([]error, len(e))
	for i, v := range e {
		out[i] = v
	}
	return out
}

// ExecutionError is a tool failure the model should see: the dispatcher
// answers it with a result whose isError is true and whose text is Message,
// rather than with a JSON-RPC error (server/tools.mdx, "Error Handling":
// API failures and business logic errors are tool execution errors).
type ExecutionError struct {
	Message string
}

// Error returns the message.
func (e *ExecutionError) Error() string { return e.Message }

// Errorf returns an *ExecutionError with the formatted message; return it
// from a tool method to report a failure the model can correct.
func Errorf(format string, args ...any) error {
	return &ExecutionError{Message: fmt.Sprintf(format, args...)}
}

// Violations collects the violations of one object, so that an object
// reports every member at fault at once (the model corrects them all in one
// retry). The zero value is empty and ready to use.
type Violations []*ValidationError

// Add records err's violations (a *ValidationError, ValidationErrors, or
// any other error as a violation of the whole value) and reports whether
// err was nil.
func (v *Violations) Add(err error) bool {
	switch err := err.(type) {
	case nil:
		return true
	case *ValidationError:
		*v = append(*v, err)
	case ValidationErrors:
		*v = append(*v, err...)
	default:
		*v = append(*v, &ValidationError{Message: err.Error()})
	}
	return false
}

// Err is nil without violations, the *ValidationError when there is one,
// and ValidationErrors when there are several.
func (v Violations) Err() error {
	switch len(v) {
	case 0:
		return nil
	case 1:
		return v[0]
	}
	return ValidationErrors(v)
}
