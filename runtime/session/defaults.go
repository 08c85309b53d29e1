package session

import (
	"encoding/json"

	"github.com/mcpgen/mcpgen/internal/jsonscan"
)

// Defaults the session puts into a modern (2026-07-28) result whose
// handler left a required member out or empty, so that every result it
// sends is valid against its revision's schema however it was built (a
// generated type's zero value, a map, raw JSON):
//
//   - resultType: "complete" (basic/index.mdx: every result carries it;
//     an InputRequiredResult sets "input_required" itself);
//   - on cacheable results (Revision.CacheableResults: the list results,
//     resources/read, server/discover) cacheScope: "private" and ttlMs: 0
//     (server/utilities/caching.mdx). ttlMs 0 is what a client assumes when
//     it is absent (immediately stale), and "private" never lets a shared
//     cache hand one caller's result to another: a handler that knows its
//     result is the same for everyone and stays fresh sets "public" and a
//     TTL itself.
//
// Members the handler set are never changed. Legacy results are left
// alone (mapped results lose these members instead: MapModernResult).
const (
	DefaultResultType = "complete"
	DefaultCacheScope = "private"
	DefaultTTLMs      = 0
)

// withModernDefaults returns res with the defaults above filled in where
// missing (absent, null or ""). A result that needs nothing is returned
// as its JSON unchanged; a result that is not a JSON object is returned as
// it is (the runtime sends it; the schema decides).
func withModernDefaults(res any, cacheable bool) (any, error) {
	var raw json.RawMessage
	switch r := res.(type) {
	case nil:
		raw = json.RawMessage(`{}`)
	case json.RawMessage:
		raw = r
	default:
		b, err := json.Marshal(res)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	trimmed := jsonscan.Trim(raw)
	if string(trimmed) == "null" {
		raw, trimmed = json.RawMessage(`{}`), []byte(`{}`)
	}
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return raw, nil
	}
	missing := func(key string) bool {
		v := jsonscan.Member(trimmed, key)
		return v == nil || string(v) == "null" || string(v) == `""`
	}
	add := map[string]json.RawMessage{}
	if missing(memberResultType) {
		add[memberResultType] = json.RawMessage(`"` + DefaultResultType + `"`)
	}
	if cacheable {
		if missing(memberCacheScope) {
			add[memberCacheScope] = json.RawMessage(`"` + DefaultCacheScope + `"`)
		}
		if v := jsonscan.Member(trimmed, memberTTL); v == nil || string(v) == "null" {
			add[memberTTL] = json.RawMessage(`0`)
		}
	}
	if len(add) == 0 {
		return raw, nil
	}
	m, err := jsonscan.Members(trimmed)
	if err != nil {
		return nil, err
	}
	for k, v := range add {
		m[k] = v
	}
	b, err := json.Marshal(m)
	return json.RawMessage(b), err
}
