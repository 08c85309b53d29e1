package session

import (
	"bytes"
	"encoding/json"
)

// members decodes a JSON object into its members; absent or null params
// are the empty object.
func members(raw json.RawMessage) (map[string]json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return m, nil
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, err
	}
	if m == nil {
		m = map[string]json.RawMessage{}
	}
	return m, nil
}

// member returns obj's member key, or nil.
func member(obj json.RawMessage, key string) json.RawMessage {
	m, err := members(obj)
	if err != nil {
		return nil
	}
	return m[key]
}

// metaString returns params._meta[key] when it is a JSON string.
func metaString(params json.RawMessage, key string) (string, bool) {
	v := member(member(params, "_meta"), key)
	if v == nil {
		return "", false
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// addMeta returns params with each member of add put into params._meta
// unless already there. Nothing else changes.
func addMeta(params json.RawMessage, add map[string]json.RawMessage) (json.RawMessage, error) {
	m, err := members(params)
	if err != nil {
		return nil, err
	}
	meta, err := members(m["_meta"])
	if err != nil {
		return nil, err
	}
	for k, v := range add {
		if _, ok := meta[k]; !ok && v != nil {
			meta[k] = v
		}
	}
	b, err := json.Marshal(meta)
	if err != nil {
		return nil, err
	}
	m["_meta"] = b
	return json.Marshal(m)
}

// removeMeta is addMeta's inverse: it removes keys from params._meta, and
// _meta itself when that leaves it empty and it was not in the original
// (hadMeta false).
func removeMeta(params json.RawMessage, keys []string, hadMeta bool) (json.RawMessage, error) {
	m, err := members(params)
	if err != nil {
		return nil, err
	}
	meta, err := members(m["_meta"])
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		delete(meta, k)
	}
	if len(meta) == 0 && !hadMeta {
		delete(m, "_meta")
	} else {
		b, err := json.Marshal(meta)
		if err != nil {
			return nil, err
		}
		m["_meta"] = b
	}
	return json.Marshal(m)
}

// withMember returns obj with key set to v (or removed when v is nil).
func withMember(obj json.RawMessage, key string, v json.RawMessage) (json.RawMessage, error) {
	m, err := members(obj)
	if err != nil {
		return nil, err
	}
	if v == nil {
		delete(m, key)
	} else {
		m[key] = v
	}
	return json.Marshal(m)
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
