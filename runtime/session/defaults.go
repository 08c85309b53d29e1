package session

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
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
// it is (the runtime sends it; the schema decides). The members are
// spliced into the encoded result, which is encoded once and never
// decoded: this runs for every modern result.
func withModernDefaults(res any, cacheable bool) (any, error) {
	var raw []byte
	switch r := res.(type) {
	case nil:
		raw = []byte(`{}`)
	case json.RawMessage:
		raw = r
	default:
		b, err := marshalResult(res)
		if err != nil {
			return nil, err
		}
		raw = b
	}
	return json.RawMessage(modernDefaults(raw, cacheable)), nil
}

// modernDefaults is withModernDefaults on an encoded result: raw itself
// when it needs nothing, else a new slice.
func modernDefaults(raw []byte, cacheable bool) []byte {
	start := jsonscan.SkipSpace(raw, 0)
	if start >= len(raw) {
		return raw
	}
	if raw[start] == 'n' { // null: the empty result
		raw, start = []byte(`{}`), 0
	}
	if raw[start] != '{' {
		return raw
	}
	// One pass over the top-level members: where each default's member
	// is, if it is there.
	type span struct{ from, to int } // the value's bytes; from < 0: absent
	defaults := []struct {
		key, value string
		empty      func(v []byte) bool
		at         span
	}{
		{memberResultType, `"` + DefaultResultType + `"`, emptyString, span{-1, -1}},
		{memberCacheScope, `"` + DefaultCacheScope + `"`, emptyString, span{-1, -1}},
		{memberTTL, `0`, func(v []byte) bool { return string(v) == "null" }, span{-1, -1}},
	}
	if !cacheable {
		defaults = defaults[:1]
	}
	i := jsonscan.SkipSpace(raw, start+1)
	for i < len(raw) && raw[i] == '"' {
		kEnd := jsonscan.SkipString(raw, i)
		if kEnd < 0 {
			return raw
		}
		key := raw[i+1 : kEnd-1]
		i = jsonscan.SkipSpace(raw, kEnd)
		if i >= len(raw) || raw[i] != ':' {
			return raw
		}
		i = jsonscan.SkipSpace(raw, i+1)
		vEnd := jsonscan.SkipTrusted(raw, i)
		if vEnd <= i {
			return raw
		}
		for d := range defaults {
			if jsonscan.KeyIs(key, defaults[d].key) {
				defaults[d].at = span{i, vEnd} // the last one counts, as for encoding/json
			}
		}
		i = jsonscan.SkipSpace(raw, vEnd)
		if i >= len(raw) || raw[i] != ',' {
			break
		}
		i = jsonscan.SkipSpace(raw, i+1)
	}
	// What to insert after the opening brace, and which values to replace.
	var insert []byte
	type replace struct {
		at    span
		value string
	}
	var repl []replace
	for _, d := range defaults {
		switch {
		case d.at.from < 0:
			insert = append(insert, `"`+d.key+`":`+d.value+`,`...)
		case d.empty(raw[d.at.from:d.at.to]):
			repl = append(repl, replace{d.at, d.value})
		}
	}
	if len(insert) == 0 && len(repl) == 0 {
		return raw
	}
	if len(insert) > 0 && raw[jsonscan.SkipSpace(raw, start+1)] == '}' {
		insert = insert[:len(insert)-1] // an empty object: no comma
	}
	slices.SortFunc(repl, func(a, b replace) int { return a.at.from - b.at.from })
	out := make([]byte, 0, len(raw)+len(insert)+24)
	out = append(out, raw[:start+1]...)
	out = append(out, insert...)
	pos := start + 1
	for _, r := range repl {
		out = append(out, raw[pos:r.at.from]...)
		out = append(out, r.value...)
		pos = r.at.to
	}
	out = append(out, raw[pos:]...)
	return out
}

// emptyString reports whether a JSON value is "" or null.
func emptyString(v []byte) bool { return string(v) == `""` || string(v) == "null" }

// generatedJSON is what the bindings' generated types implement: their
// MarshalJSON writes exactly what json.Marshal would write of them
// (compact, HTML-safe), through their AppendJSON.
type generatedJSON interface {
	json.Marshaler
	AppendJSON(buf []byte) ([]byte, error)
}

// marshalResult is json.Marshal(res) for a handler's result. A generated
// result (nearly every one) is encoded by its own MarshalJSON alone:
// json.Marshal would only check and compact its output once more, which
// for a large result is most of the cost of sending it.
func marshalResult(res any) ([]byte, error) {
	if g, ok := res.(generatedJSON); ok {
		if r := reflect.ValueOf(res); r.Kind() != reflect.Pointer || !r.IsNil() {
			return g.MarshalJSON()
		}
	}
	return json.Marshal(res)
}

// encodedResult is a generated result that the response message is built
// from directly (jsonrpc2 appends it into the message): its JSON is edited
// in place there, with the modern defaults (modernDefaults) or mapped to
// the legacy form (MapModernResult), instead of being encoded into a
// buffer of its own, edited into another and copied into the message. An
// edit that fails is answered as answerError answers it.
type encodedResult struct {
	res       generatedJSON
	rs        *requestState
	method    string
	cacheable bool
	legacy    bool
}

// encoded returns res to be sent as an encodedResult when it is a
// generated result (not a nil pointer), else nil.
func encoded(res any, rs *requestState, method string, cacheable, legacy bool) *encodedResult {
	g, ok := res.(generatedJSON)
	if !ok {
		return nil
	}
	if r := reflect.ValueOf(res); r.Kind() == reflect.Pointer && r.IsNil() {
		return nil
	}
	return &encodedResult{res: g, rs: rs, method: method, cacheable: cacheable, legacy: legacy}
}

// AppendJSON appends the edited result; the jsonrpc2 Conn calls it.
func (e *encodedResult) AppendJSON(buf []byte) ([]byte, error) {
	start := len(buf)
	out, err := e.res.AppendJSON(buf)
	if err != nil {
		return buf, e.fail(err)
	}
	body := out[start:]
	var edited []byte
	if e.legacy {
		if edited, err = mapModernResult(body, e.cacheable, true); err != nil {
			return buf, e.fail(err)
		}
	} else {
		edited = modernDefaults(body, e.cacheable)
	}
	if len(edited) == len(body) && len(body) > 0 && &edited[0] == &body[0] {
		return out, nil // nothing to change: the common case
	}
	return append(out[:start], edited...), nil
}

// fail is answerError's answer to err, as an error for the Conn to send.
func (e *encodedResult) fail(err error) error {
	ctx := context.Context(&e.rs.ctx)
	_, aerr := e.rs.st.srv.answerError(ctx, e.rs, e.method, err)
	if aerr == nil { // only an input-required error has a result, and no edit returns one
		aerr = &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: "internal error"}
	}
	return aerr
}
