package schema

import "fmt"

// Error is a problem with a schema file, located by file and JSON pointer.
type Error struct {
	// File is the schema file as the caller named it.
	File string
	// Pointer is the JSON pointer of the offending node ("#" for the root,
	// empty when the file itself could not be read).
	Pointer string
	// Msg says what is wrong.
	Msg string
	// Err is the underlying error, if any.
	Err error
}

// Error formats as "file: pointer: message".
func (e *Error) Error() string {
	s := e.File
	if e.Pointer != "" {
		s += ": " + e.Pointer
	}
	s += ": " + e.Msg
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the underlying error.
func (e *Error) Unwrap() error { return e.Err }

func errAt(file, ptr, format string, args ...any) *Error {
	return &Error{File: file, Pointer: ptr, Msg: fmt.Sprintf(format, args...)}
}
