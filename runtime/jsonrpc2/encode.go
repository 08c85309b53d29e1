package jsonrpc2

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
)

// jsonAppender is a value that appends its own JSON encoding to a buffer:
// every type mcpgen generates (through runtime/genimpl) has this method.
// The runtime writes such a value straight into the message it builds,
// trusting it to append exactly one valid JSON value, as the generated
// encoders do by construction (they validate every raw member they copy).
// Going through json.Marshal instead would copy the value's MarshalJSON
// output twice and scan it again to re-validate it: about a tenth of a
// round trip's CPU.
type jsonAppender interface {
	AppendJSON(buf []byte) ([]byte, error)
}

// asAppender returns v as a jsonAppender, unless v does not have the method
// or holds a nil pointer (whose value-receiver AppendJSON would panic;
// encoding/json writes such a value as null, and marshalValue still does).
func asAppender(v any) (jsonAppender, bool) {
	a, ok := v.(jsonAppender)
	if !ok || (*[2]unsafe.Pointer)(unsafe.Pointer(&v))[1] == nil {
		return nil, false
	}
	return a, true
}

// scratch holds the buffers messages are built in before being copied out
// at their final size: a message is handed to the transport, which may keep
// it (the in-memory pipe does), so it cannot itself be reused.
var scratch = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// appendedMessage builds a message as prefix, v's JSON, then suffix, and
// returns it at its exact size, together with where v's JSON lies in it.
func appendedMessage(prefix []byte, a jsonAppender, suffix byte) (msg []byte, start, end int, err error) {
	bp := scratch.Get().(*[]byte)
	b := append((*bp)[:0], prefix...)
	start = len(b)
	b, err = a.AppendJSON(b)
	if err == nil {
		end = len(b)
		b = append(b, suffix)
		msg = append(make([]byte, 0, len(b)), b...)
	}
	if cap(b) <= 64<<10 {
		*bp = b[:0]
		scratch.Put(bp)
	}
	return msg, start, end, err
}

// encodeResultCode builds the response message for a successful handler's
// result, and says which error code the message carries when encoding the
// result turned it into an error response (0 when it is a result), so a
// transport routes and maps it to a status without decoding it again.
func encodeResultCode(id RequestID, result any) ([]byte, int) {
	if a, ok := asAppender(result); ok {
		var pre [64]byte
		msg, _, _, err := appendedMessage(appendResultPrefix(pre[:0], id), a, '}')
		if err != nil {
			// An *Error is the answer the result's own encoder chose (the
			// session's, editing a result as it is appended); anything
			// else is a failure to encode.
			var rpcErr *Error
			if !errors.As(err, &rpcErr) {
				rpcErr = &Error{Code: CodeInternalError, Message: "internal error: encoding result: " + err.Error()}
			}
			return appendError(nil, id, rpcErr), rpcErr.Code
		}
		return msg, 0
	}
	raw, err := marshalValue(result)
	if err != nil {
		return appendError(nil, id, &Error{Code: CodeInternalError, Message: "internal error: encoding result: " + err.Error()}), CodeInternalError
	}
	// Sized for the envelope and the id as well, so appending never grows
	// the slice: the message may wait long for a slow reader, charged by
	// its length, and a grown slice would hold up to a quarter more.
	return appendResult(make([]byte, 0, len(raw)+id.textLen()+responseEnvelope), id, raw), 0
}

// marshalValue encodes params or a result: json.RawMessage is used as is
// (after checking it is valid JSON, since it is spliced into the message),
// nil means absent, anything else goes through encoding/json.
func marshalValue(v any) (json.RawMessage, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		if len(x) == 0 {
			return nil, nil
		}
		if !jsonscan.Valid(x) {
			return nil, fmt.Errorf("jsonrpc2: json.RawMessage is not valid JSON: %s", clip(x))
		}
		return x, nil
	}
	return json.Marshal(v)
}
