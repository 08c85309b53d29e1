package jsonrpc2

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
)

// MessageKind says which of the four JSON-RPC message shapes a Message is.
type MessageKind uint8

const (
	// KindInvalid is a message that is none of the others.
	KindInvalid MessageKind = iota
	// KindRequest has "method" and "id".
	KindRequest
	// KindNotification has "method" and no "id".
	KindNotification
	// KindResponse has "id" and "result".
	KindResponse
	// KindErrorResponse has "id" (possibly null) and "error".
	KindErrorResponse
)

var kindNames = [...]string{"invalid", "request", "notification", "response", "error response"}

// String names the kind for logs.
func (k MessageKind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Message is one decoded JSON-RPC 2.0 message of any kind. The shape is decided
// by which keys are present (not by their values), as JSON-RPC defines it:
// method+id is a request, method alone a notification, result or error a
// response. Params and Result alias the decoded input; they are never copied.
type Message struct {
	Kind   MessageKind
	ID     RequestID // zero for notifications and for responses with id null
	Method string
	Params json.RawMessage // nil when absent; never "null"
	Result json.RawMessage
	Error  *Error
	// Values, on a request a MessageReader hands the Conn, carries values
	// its handler's ctx has on top of the Conn's base context (a legacy
	// Streamable HTTP session's request: the values of the POST that
	// carried it, such as its bearer token's identity, for the life of the
	// handler and of what keeps its ctx, a task's work). Values only: the
	// Conn owns the cancellation, so it should be a context.WithoutCancel.
	// Nil for a message decoded from bytes.
	Values context.Context
	// Version, on a request, is the protocol version the transport decided
	// it is of, so the layers above need not find it again: a Streamable
	// HTTP server sets it for a 2026-07-28 request once the
	// MCP-Protocol-Version header and params._meta agree on it. Empty for
	// a message decoded from bytes, whose layers read params._meta.
	Version string
}

// DecodeMessage decodes one JSON-RPC message. When the input cannot be used it
// returns an *Error to send back: CodeParseError for bad JSON, and
// CodeInvalidRequest for a well-formed message that breaks JSON-RPC (an id that
// is not a string or integer, a wrong "jsonrpc" member, a batch). If the
// returned Message has Kind KindRequest and a non-zero ID, the error response
// should carry that id; otherwise it carries id null.
func DecodeMessage(data []byte) (*Message, *Error) {
	return decodeMessage(data, &Message{})
}

// DecodeMessageInto is DecodeMessage into a Message of the caller's, which
// may live on its stack: a layer that only looks at a message on its way
// (a transport wrapper) then costs no allocation for it. m is reset first;
// where DecodeMessage returns no Message, m is left with Kind KindInvalid.
func DecodeMessageInto(data []byte, m *Message) *Error {
	*m = Message{}
	got, err := decodeMessage(data, m)
	if got == nil {
		*m = Message{}
	}
	return err
}

// decodeMessage is DecodeMessage, filling m.
func decodeMessage(data []byte, m *Message) (*Message, *Error) {
	if !jsonscan.Valid(data) {
		return nil, &Error{Code: CodeParseError, Message: "parse error: message is not valid JSON"}
	}
	data = jsonscan.Trim(data)
	if data[0] != '{' {
		if data[0] == '[' {
			return nil, &Error{Code: CodeInvalidRequest, Message: "invalid request: batches are not supported"}
		}
		return nil, &Error{Code: CodeInvalidRequest, Message: "invalid request: message is not a JSON object"}
	}
	var f rawFields
	scanObject(data, &f)
	switch {
	case f.method != nil:
		if f.id != nil {
			m.Kind = KindRequest
		} else {
			m.Kind = KindNotification
		}
	case f.result != nil || f.error != nil:
		if f.result != nil && f.error != nil {
			return nil, &Error{Code: CodeInvalidRequest, Message: "invalid request: response has both result and error"}
		}
		if f.result != nil {
			m.Kind = KindResponse
		} else {
			m.Kind = KindErrorResponse
		}
	default:
		return nil, &Error{Code: CodeInvalidRequest, Message: "invalid request: no method, result or error member"}
	}
	if f.id == nil && m.Kind == KindResponse {
		// Only an error response may go without a usable id (JSON-RPC: null
		// when the request's id could not be read); a result must say
		// which request it answers.
		return m, &Error{Code: CodeInvalidRequest, Message: "invalid request: response without id"}
	}
	if f.id != nil {
		id, err := ParseRequestID(f.id)
		if err != nil {
			// An error response may carry id null: that is how the peer tells us
			// it could not read one of our messages.
			if !(m.Kind == KindErrorResponse && string(jsonscan.Trim(f.id)) == "null") {
				return m, &Error{Code: CodeInvalidRequest, Message: "invalid request: " + err.Error()}
			}
		} else {
			m.ID = id
		}
	}
	if f.jsonrpc == nil || string(jsonscan.Trim(f.jsonrpc)) != `"2.0"` {
		return m, &Error{Code: CodeInvalidRequest, Message: `invalid request: "jsonrpc" must be "2.0"`}
	}
	if f.method != nil {
		if f.method[0] != '"' {
			return m, &Error{Code: CodeInvalidRequest, Message: "invalid request: method is not a string"}
		}
		// A common method name is looked up on the literal's bytes (no
		// allocation): its names hold no escapes, so a literal equal to one
		// decodes to it.
		if c, ok := commonMethods[string(f.method[1:len(f.method)-1])]; ok {
			m.Method = c
		} else {
			s, err := decodeJSONString(f.method)
			if err != nil {
				return m, &Error{Code: CodeInvalidRequest, Message: "invalid request: " + err.Error()}
			}
			m.Method = internMethod(s, f.method)
		}
	}
	if f.params != nil {
		switch f.params[0] {
		case '{', '[':
			m.Params = json.RawMessage(f.params)
		case 'n': // null: treated as absent, which is what senders mean by it
		default:
			return m, &Error{Code: CodeInvalidRequest, Message: "invalid request: params must be an object or array"}
		}
	}
	switch m.Kind {
	case KindResponse:
		m.Result = json.RawMessage(f.result)
	case KindErrorResponse:
		var e Error
		if err := json.Unmarshal(f.error, &e); err != nil || f.error[0] != '{' {
			return m, &Error{Code: CodeInvalidRequest, Message: "invalid request: error member is not a JSON-RPC error object"}
		}
		m.Error = &e
	}
	return m, nil
}

// rawFields holds the raw values of the top-level members JSON-RPC defines;
// a nil slice means the member is absent.
type rawFields struct {
	jsonrpc, id, method, params, result, error []byte
}

// scanObject picks the members JSON-RPC defines out of a top-level object
// that is already known to be valid JSON. Keys are matched exactly
// (encoding/json would match "ID" to "id"); duplicate keys keep the last
// value, as encoding/json does.
func scanObject(data []byte, f *rawFields) {
	jsonscan.EachMember(data, func(key, val []byte) bool {
		switch string(key) {
		case "jsonrpc":
			f.jsonrpc = val
		case "id":
			f.id = val
		case "method":
			f.method = val
		case "params":
			f.params = val
		case "result":
			f.result = val
		case "error":
			f.error = val
		}
		return true
	})
}

// commonMethods lets the decoder return a shared string for the methods every
// session sees, instead of allocating one per message.
var commonMethods = map[string]string{}

func init() {
	for _, m := range []string{
		"notifications/cancelled", "notifications/progress", "initialize",
		"notifications/initialized", "ping", "tools/call", "tools/list",
		"resources/read", "resources/list", "prompts/get", "prompts/list",
		"sampling/createMessage", "elicitation/create", "roots/list",
		"subscriptions/listen", "tasks/cancel", "tasks/get", "tasks/result",
		"notifications/message", "server/discover", "completion/complete",
	} {
		commonMethods[m] = m
	}
}

func internMethod(s string, _ []byte) string {
	if m, ok := commonMethods[s]; ok {
		return m
	}
	return s
}

// MarshalJSON encodes m as a JSON-RPC 2.0 message of its Kind.
func (m *Message) MarshalJSON() ([]byte, error) {
	switch m.Kind {
	case KindRequest:
		return appendRequest(nil, m.ID, m.Method, m.Params), nil
	case KindNotification:
		return appendNotification(nil, m.Method, m.Params), nil
	case KindResponse:
		return appendResult(nil, m.ID, m.Result), nil
	case KindErrorResponse:
		if m.Error == nil {
			return nil, errors.New("jsonrpc2: error response without Error")
		}
		return appendError(nil, m.ID, m.Error), nil
	}
	return nil, fmt.Errorf("jsonrpc2: cannot encode a message of kind %v", m.Kind)
}

// The append* encoders build messages directly: they run once per message on
// the hot path, and reflection-based encoding/json would dominate a round trip.

func appendRequest(dst []byte, id RequestID, method string, params json.RawMessage) []byte {
	dst = appendRequestHead(dst, id, method)
	return appendParams(dst, params)
}

// appendRequestPrefix appends a request up to its params' value.
func appendRequestPrefix(dst []byte, id RequestID, method string) []byte {
	return append(appendRequestHead(dst, id, method), `,"params":`...)
}

// appendRequestHead appends a request's members before its params.
func appendRequestHead(dst []byte, id RequestID, method string) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	dst = id.appendJSON(dst)
	dst = append(dst, `,"method":`...)
	return appendJSONString(dst, method)
}

// appendNotificationPrefix appends a notification up to its params' value.
func appendNotificationPrefix(dst []byte, method string) []byte {
	return append(appendNotificationHead(dst, method), `,"params":`...)
}

func appendNotification(dst []byte, method string, params json.RawMessage) []byte {
	return appendParams(appendNotificationHead(dst, method), params)
}

// appendNotificationHead appends a notification's members before its params.
func appendNotificationHead(dst []byte, method string) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","method":`...)
	return appendJSONString(dst, method)
}

// appendParams ends a request or notification: its params, if any, and the
// closing brace.
func appendParams(dst []byte, params json.RawMessage) []byte {
	if len(params) > 0 {
		dst = append(dst, `,"params":`...)
		dst = append(dst, params...)
	}
	return append(dst, '}')
}

func appendResult(dst []byte, id RequestID, result json.RawMessage) []byte {
	dst = appendResultPrefix(dst, id)
	if len(result) == 0 {
		result = json.RawMessage("{}")
	}
	dst = append(dst, result...)
	return append(dst, '}')
}

// appendResultPrefix appends a response up to its result's value.
func appendResultPrefix(dst []byte, id RequestID) []byte {
	return append(appendResponseHead(dst, id), `,"result":`...)
}

// appendResponseHead appends a response's members before its result or error.
func appendResponseHead(dst []byte, id RequestID) []byte {
	dst = append(dst, `{"jsonrpc":"2.0","id":`...)
	return id.appendJSON(dst)
}

func appendError(dst []byte, id RequestID, e *Error) []byte {
	dst = appendResponseHead(dst, id)
	dst = append(dst, `,"error":{"code":`...)
	dst = strconv.AppendInt(dst, int64(e.Code), 10)
	dst = append(dst, `,"message":`...)
	dst = appendJSONString(dst, e.Message)
	if len(e.Data) > 0 && jsonscan.Valid(e.Data) {
		dst = append(dst, `,"data":`...)
		dst = append(dst, e.Data...)
	}
	return append(dst, "}}"...)
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string literal. Control characters are
// escaped (so the output never holds a raw newline) and invalid UTF-8 becomes
// U+FFFD, as encoding/json does.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		b := s[i]
		if b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
