package jsonrpc2

import (
	"encoding/json"
	"errors"
	"fmt"
)

// ProgressParams is the params of notifications/progress, as the runtime
// reads them to reset timeouts and feed WithProgress callbacks.
type ProgressParams struct {
	ProgressToken ProgressToken   `json:"progressToken"`
	Progress      float64         `json:"progress"`
	Total         *float64        `json:"total,omitempty"`
	Message       string          `json:"message,omitempty"`
	Meta          json.RawMessage `json:"_meta,omitempty"`
}

// ProgressToken returns the progress token the peer put in the request's
// params._meta, which a handler needs to send notifications/progress.
func (r *Request) ProgressToken() (ProgressToken, bool) {
	tok, ok, err := progressTokenOf(r.Params)
	return tok, ok && err == nil
}

// progressTokenOf finds params._meta.progressToken.
func progressTokenOf(params []byte) (ProgressToken, bool, error) {
	if len(params) == 0 || params[0] != '{' {
		return ProgressToken{}, false, nil
	}
	meta := memberValue(params, "_meta")
	if meta == nil || meta[0] != '{' {
		return ProgressToken{}, false, nil
	}
	raw := memberValue(meta, "progressToken")
	if raw == nil {
		return ProgressToken{}, false, nil
	}
	tok, err := ParseRequestID(raw)
	if err != nil {
		return ProgressToken{}, true, fmt.Errorf("runtime: params._meta.progressToken: %w", err)
	}
	return tok, true, nil
}

// memberValue returns the raw value of member key of the valid JSON object
// obj, or nil.
func memberValue(obj []byte, key string) []byte {
	var found []byte
	eachMember(obj, func(k, v []byte) bool {
		if string(k) == key {
			found = v
		}
		return true
	})
	return found
}

// injectProgressToken returns params with _meta.progressToken set to tok,
// or the token already there. Params must be absent or an object: MCP
// request params always are, and there is nowhere to put a token otherwise.
func injectProgressToken(params json.RawMessage, tok ProgressToken) (json.RawMessage, ProgressToken, error) {
	if len(params) == 0 {
		out := append([]byte(`{"_meta":{"progressToken":`), tok.appendJSON(nil)...)
		return append(out, "}}"...), tok, nil
	}
	if params[0] != '{' {
		return nil, tok, errors.New("runtime: cannot add a progress token to params that are not a JSON object")
	}
	if existing, ok, err := progressTokenOf(params); err != nil {
		return nil, tok, err
	} else if ok {
		return params, existing, nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(params, &obj); err != nil {
		return nil, tok, err
	}
	meta := map[string]json.RawMessage{}
	if m, ok := obj["_meta"]; ok && string(m) != "null" {
		if err := json.Unmarshal(m, &meta); err != nil {
			return nil, tok, fmt.Errorf("runtime: params._meta is not an object: %w", err)
		}
	}
	meta["progressToken"] = tok.appendJSON(nil)
	mb, err := json.Marshal(meta)
	if err != nil {
		return nil, tok, err
	}
	obj["_meta"] = mb
	out, err := json.Marshal(obj)
	return out, tok, err
}

// eachMember calls f with the raw key and value of each member of the valid
// JSON object obj until f returns false. Keys are compared raw (unescaped),
// which is exact for the ASCII member names the protocol uses.
func eachMember(obj []byte, f func(k, v []byte) bool) {
	i := skipWS(obj, 1)
	for i < len(obj) && obj[i] != '}' {
		kEnd := skipString(obj, i)
		k := obj[i+1 : kEnd-1]
		i = skipWS(obj, kEnd)
		i = skipWS(obj, i+1)
		vEnd := skipValue(obj, i)
		if !f(k, obj[i:vEnd:vEnd]) {
			return
		}
		i = skipWS(obj, vEnd)
		if i < len(obj) && obj[i] == ',' {
			i = skipWS(obj, i+1)
		}
	}
}
