package session

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// The client transport rewrites every request the Conn writes (the
// modern era's per-request _meta, the legacy era's removal of it). These
// do it by copying spans of the message the Conn encoded, where the first
// version decoded it into maps and encoded it again with encoding/json
// (most of a round trip's allocations on the client side). The output
// decodes to exactly what the map edits gave.

// requestJSON is the JSON-RPC request {id, method, params} as the Conn
// would write it; params must be valid JSON.
func requestJSON(id jsonrpc2.RequestID, method string, params []byte) []byte {
	if len(params) == 0 {
		params = []byte("null") // encoding/json's nil RawMessage
	}
	b := appendRequestPrefix(make([]byte, 0, requestPrefixLen(id, method)+len(params)+1), id, method)
	b = append(b, params...)
	return append(b, '}')
}

// requestPrefixLen is about the length of the request's text before its
// params (more for a method that needs escapes).
func requestPrefixLen(id jsonrpc2.RequestID, method string) int {
	return len(`{"jsonrpc":"2.0","id":,"method":"","params":`) + 24 + len(method)
}

// appendRequestPrefix appends the request's text up to its params.
func appendRequestPrefix(b []byte, id jsonrpc2.RequestID, method string) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = id.AppendJSON(b)
	b = append(b, `,"method":`...)
	b = appendJSONString(b, method)
	return append(b, `,"params":`...)
}

// spliceModernRequest is requestJSON(id, method, spliceModernParams(...))
// built in one buffer; params is the spliced params within msg (a round
// trip keeps them for a retry). ok is false where modernParams must decide.
func spliceModernRequest(id jsonrpc2.RequestID, method string, params []byte, version string, info, caps json.RawMessage) (msg, spliced json.RawMessage, ok bool) {
	head := requestHead{id, method}
	out, n, ok := spliceModernParamsAfter(head, params, version, info, caps)
	if !ok {
		return nil, nil, false
	}
	return append(out, '}'), out[n:len(out):len(out)], true
}

// spliceModernParams is modernParams without maps: _meta gets the
// session's protocol version, and its client info and capabilities where
// the typed params left them absent or empty. ok is false where
// modernParams must decide (params or _meta not an object, invalid JSON).
func spliceModernParams(params []byte, version string, info, caps json.RawMessage) (json.RawMessage, bool) {
	out, _, ok := spliceModernParamsAfter(requestHead{}, params, version, info, caps)
	return out, ok
}

// spliceModernParamsAfter is spliceModernParams writing after prefix, with
// room for the request's closing brace.
func spliceModernParamsAfter(prefix requestHead, params []byte, version string, info, caps json.RawMessage) (json.RawMessage, int, bool) {
	if len(info) == 0 {
		info = json.RawMessage("null") // what encoding/json writes of a nil RawMessage
	}
	if len(caps) == 0 {
		caps = json.RawMessage("null")
	}
	extra := len(MetaProtocolVersion) + len(version) + len(MetaClientInfo) + len(info) + len(MetaClientCapabilities) + len(caps) + 3*8
	return spliceMetaAfter(prefix, 1, params, extra, func(out, meta []byte) ([]byte, bool) {
		// The last occurrence of each counts, as in the map.
		ci := jsonscan.Member(meta, MetaClientInfo)
		cc := jsonscan.Member(meta, MetaClientCapabilities)
		if len(ci) == 0 || string(ci) == "null" {
			ci = info
		}
		if len(cc) == 0 || string(cc) == "{}" || string(cc) == "null" {
			cc = caps
		}
		out = append(out, `"`+MetaProtocolVersion+`":`...)
		out = appendJSONString(out, version)
		out = append(out, `,"`+MetaClientInfo+`":`...)
		out = append(out, ci...)
		out = append(out, `,"`+MetaClientCapabilities+`":`...)
		out = append(out, cc...)
		jsonscan.EachMember(meta, func(k, v []byte) bool {
			if !isKeyOf(k, modernMetaKeys[:3]) {
				out = appendMember(out, 1, k, v)
			}
			return true
		})
		return out, true
	})
}

// resultTypeOf is the resultType of a result as json.Unmarshal into a
// struct with that one field reads it: the last member whose name matches
// without regard to case, "" when it is not a string.
func resultTypeOf(result []byte) string {
	var kind string
	jsonscan.EachMember(result, func(k, v []byte) bool {
		if v[0] == '"' && (bytes.EqualFold(k, resultTypeKey) || (!plainASCII(k) && strings.EqualFold(keyText(k), memberResultType))) {
			kind = jsonStringValue(v)
		}
		return true
	})
	return kind
}

var resultTypeKey = []byte(memberResultType)

// plainASCII reports whether the raw key k reads as itself.
func plainASCII(k []byte) bool {
	for _, c := range k {
		if c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

// onlyModernMeta is emptyModernMeta without a map: params._meta (valid
// JSON) is absent, null, or an object of nothing but modern members.
func onlyModernMeta(params []byte) bool {
	meta := jsonscan.Member(params, "_meta")
	if meta == nil || string(meta) == "null" {
		return true
	}
	if meta[0] != '{' {
		return false
	}
	only := true
	jsonscan.EachMember(meta, func(k, _ []byte) bool {
		only = isKeyOf(k, modernMetaKeys)
		return only
	})
	return only
}

// keyText decodes a raw member key.
func keyText(k []byte) string {
	q := make([]byte, 0, len(k)+2)
	q = append(append(append(q, '"'), k...), '"')
	return jsonStringValue(q)
}
