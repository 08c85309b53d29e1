package jsonrpc2

import (
	"encoding/json"
	"fmt"
)

// JSON-RPC 2.0 error codes the runtime itself produces.
const (
	CodeParseError     = -32700 // the message is not valid JSON
	CodeInvalidRequest = -32600 // valid JSON, but not a valid JSON-RPC request (e.g. a fractional id)
	CodeMethodNotFound = -32601 // no handler is registered for the method
	CodeInvalidParams  = -32602 // params do not fit the method
	CodeInternalError  = -32603 // the handler failed with an error that is not an *Error

	// CodeServerBusy answers a request refused because WithMaxInFlight
	// requests are already admitted; the peer may retry later. JSON-RPC
	// has no busy code, and MCP 2026-07-28 (basic/index.mdx) says new
	// codes SHOULD be allocated outside -32768..-32000 (-32000..-32019 is
	// legacy, -32020..-32099 belongs to the spec), so it is an
	// application-range code; 429 recalls HTTP's Too Many Requests.
	CodeServerBusy = -31429
)

// Error is a JSON-RPC error object. A handler that returns an *Error (or an
// error wrapping one) gets exactly that error on the wire; any other handler
// error becomes CodeInternalError. Call returns an *Error when the peer answers
// with an error response, so callers can use errors.As.
type Error struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// Error formats the code and message.
func (e *Error) Error() string {
	return fmt.Sprintf("jsonrpc error %d: %s", e.Code, e.Message)
}

// NewError returns an *Error with the given code and message.
func NewError(code int, message string) *Error { return &Error{Code: code, Message: message} }

// NewMethodNotFoundError returns the -32601 error for method; it is what a Conn
// answers for methods with no handler (the generated Register functions
// register only the methods an implementation has).
func NewMethodNotFoundError(method string) *Error {
	return &Error{Code: CodeMethodNotFound, Message: "method not found: " + method}
}

// NewInvalidParamsError returns a -32602 error with the given detail.
func NewInvalidParamsError(detail string) *Error {
	return &Error{Code: CodeInvalidParams, Message: "invalid params: " + detail}
}
