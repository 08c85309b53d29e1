package session

import (
	"encoding/json"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// The session's _meta policy, on top of runtime/internal/jsonscan (which does the
// scanning and the member editing).

// metaString returns params._meta[key] when it is a JSON string.
func metaString(params json.RawMessage, key string) (string, bool) {
	return metaMemberString(jsonscan.Member(params, "_meta"), key)
}

// metaMemberString is metaString for a _meta object already located: a
// request's view reads several of its members and locates it once.
func metaMemberString(meta json.RawMessage, key string) (string, bool) {
	v := jsonscan.Member(meta, key)
	if v == nil {
		return "", false
	}
	switch v[0] { // what json.Unmarshal into a string accepts, without it
	case '"':
		return jsonStringValue(v), true
	case 'n':
		return "", true
	}
	return "", false
}

// addMeta returns params with each member of add put into params._meta
// unless already there. Nothing else changes.
func addMeta(params json.RawMessage, add map[string]json.RawMessage) (json.RawMessage, error) {
	return jsonscan.EditObject(params, "_meta", func(meta map[string]json.RawMessage) bool {
		for k, v := range add {
			if _, ok := meta[k]; !ok && v != nil {
				meta[k] = v
			}
		}
		return true
	})
}

// removeMeta is addMeta's inverse: it removes keys from params._meta, and
// _meta itself when that leaves it empty and it was not in the original
// (hadMeta false).
func removeMeta(params json.RawMessage, keys []string, hadMeta bool) (json.RawMessage, error) {
	return jsonscan.EditObject(params, "_meta", func(meta map[string]json.RawMessage) bool {
		for _, k := range keys {
			delete(meta, k)
		}
		return len(meta) > 0 || hadMeta
	})
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// requestVersion is the protocol version of a request: the one its
// transport decided (jsonrpc2.Request.Version), else that of meta, the
// request's params._meta (located by the caller).
func requestVersion(req *jsonrpc2.Request, meta json.RawMessage) (string, bool) {
	if req.Version != "" {
		return req.Version, true
	}
	return metaMemberString(meta, MetaProtocolVersion)
}
