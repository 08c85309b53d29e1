package session

import (
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// LegacyContext is what a legacy client stated once, in initialize and
// logging/setLevel, and a modern client states on every request.
type LegacyContext struct {
	// Version is the negotiated legacy protocol version.
	Version string
	// ClientInfo and ClientCapabilities are initialize's clientInfo and
	// capabilities, as sent.
	ClientInfo         json.RawMessage
	ClientCapabilities json.RawMessage
	// LogLevel is the level set with logging/setLevel ("" when unset).
	LogLevel string
}

// modernMetaKeys are the members MapLegacyParams may add to _meta.
var modernMetaKeys = []string{MetaProtocolVersion, MetaClientInfo, MetaClientCapabilities, MetaLogLevel}

// MapLegacyParams maps the params of a legacy request onto the modern
// shape: the per-request _meta members a modern client sends are filled
// in from lc, and nothing else changes. UnmapLegacyParams undoes it.
func MapLegacyParams(params json.RawMessage, lc LegacyContext) (json.RawMessage, error) {
	caps := lc.ClientCapabilities
	if len(caps) == 0 {
		caps = json.RawMessage(`{}`)
	}
	// The members in the order addMeta's encoding/json output had them
	// (sorted), each only when _meta does not have it. The version (always)
	// and the log level (when set) are JSON strings of str, written
	// straight into the output rather than encoded apart first (two
	// allocations per legacy request).
	add := [...]struct {
		key   string
		value []byte // raw JSON; nil for none
		str   string // when isStr: the value is this, as a JSON string
		isStr bool
	}{
		{key: MetaClientCapabilities, value: caps},
		{key: MetaClientInfo, value: lc.ClientInfo},
		{key: MetaLogLevel, str: lc.LogLevel, isStr: lc.LogLevel != ""},
		{key: MetaProtocolVersion, str: lc.Version, isStr: true},
	}
	extra := 0
	for _, a := range add {
		extra += len(a.key) + len(a.value) + len(a.str) + 8
	}
	out, ok := spliceMeta(params, extra, func(out, meta []byte) ([]byte, bool) {
		n := 0
		jsonscan.EachMember(meta, func(k, v []byte) bool {
			out = appendMember(out, n, k, v)
			n++
			return true
		})
		for _, a := range add {
			if (len(a.value) == 0 && !a.isStr) || jsonscan.Member(meta, a.key) != nil {
				continue
			}
			if a.isStr {
				out = appendJSONString(appendMember(out, n, []byte(a.key), nil), a.str)
			} else {
				out = appendMember(out, n, []byte(a.key), a.value)
			}
			n++
		}
		return out, true
	})
	if ok {
		return out, nil
	}
	m := map[string]json.RawMessage{}
	for _, a := range add {
		if a.isStr {
			m[a.key] = appendJSONString(nil, a.str)
		} else if len(a.value) > 0 {
			m[a.key] = a.value
		}
	}
	return addMeta(params, m)
}

// UnmapLegacyParams removes what MapLegacyParams added; hadMeta says
// whether the legacy params had a _meta member of their own.
func UnmapLegacyParams(params json.RawMessage, hadMeta bool) (json.RawMessage, error) {
	out, ok := spliceMeta(params, 0, func(out, meta []byte) ([]byte, bool) {
		n := 0
		jsonscan.EachMember(meta, func(k, v []byte) bool {
			if !isKeyOf(k, modernMetaKeys) {
				out = appendMember(out, n, k, v)
				n++
			}
			return true
		})
		return out, n > 0 || hadMeta
	})
	if ok {
		return out, nil
	}
	return removeMeta(params, modernMetaKeys, hadMeta)
}

// unmapLegacyRequest is requestJSON(id, method, UnmapLegacyParams(params,
// hadMeta)) built in one buffer; ok is false where UnmapLegacyParams must
// decide.
func unmapLegacyRequest(id jsonrpc2.RequestID, method string, params []byte, hadMeta bool) ([]byte, bool) {
	msg, _, ok := unmapLegacyRequestParams(id, method, params, hadMeta)
	return msg, ok
}

// unmapLegacyRequestParams is unmapLegacyRequest that also returns the
// params within the message.
func unmapLegacyRequestParams(id jsonrpc2.RequestID, method string, params []byte, hadMeta bool) (msg, paramsIn []byte, ok bool) {
	out, start, ok := spliceMetaAfter(requestHead{id, method}, 1, params, 0, stripModernMeta(hadMeta))
	if !ok {
		return nil, nil, false
	}
	// spliceMetaAfter left room for the brace: the params stay within.
	return append(out, '}'), out[start:len(out):len(out)], true
}

// stripModernMeta is the edit of _meta that unmaps a request to a legacy
// one: the modern members go, and _meta with them when nothing else was
// in it (unless hadMeta: the caller's own _meta stays, even empty).
func stripModernMeta(hadMeta bool) func(out, meta []byte) ([]byte, bool) {
	return func(out, meta []byte) ([]byte, bool) {
		n := 0
		jsonscan.EachMember(meta, func(k, v []byte) bool {
			if !isKeyOf(k, modernMetaKeys) {
				out = appendMember(out, n, k, v)
				n++
			}
			return true
		})
		return out, n > 0 || hadMeta
	}
}

// unmapLegacyInPlace is unmapLegacyRequestParams editing msg itself: a
// request as the Conn encoded it (params last, then the closing brace),
// which the session's writer owns (jsonrpc2.OutMessage.Data). The
// stripped params are written over the old ones, so the request costs no
// copy of its own. ok is false where it cannot be done so (params
// elsewhere in msg, an edit that would be longer, or what
// unmapLegacyRequest declines).
func unmapLegacyInPlace(msg, params []byte, hadMeta bool) (out, paramsIn []byte, ok bool) {
	off := len(msg) - 1 - len(params)
	if len(params) == 0 || off < 0 || msg[len(msg)-1] != '}' || &msg[off] != &params[0] {
		return nil, nil, false
	}
	sp := getSpliceScratch(len(params))
	defer putSpliceScratch(sp)
	res, _, ok := spliceMetaInto((*sp)[:0], requestHead{}, params, stripModernMeta(hadMeta))
	if !ok || len(res) > len(params) {
		return nil, nil, false
	}
	*sp = res[:0]
	n := copy(msg[off:], res)
	msg[off+n] = '}'
	return msg[:off+n+1], msg[off : off+n : off+n], true
}

// spliceMeta is jsonscan.EditObject(params, "_meta", ...) without a map
// and without encoding/json, for every legacy request: it copies the
// members of params, writing the _meta member (last, when params has none)
// as edit writes its members (after out; meta is the old _meta's value,
// nil when absent or null); when edit returns false _meta is left out.
// ok is false for what EditObject would reject or read differently
// (params or _meta that is not an object, invalid JSON, _meta twice):
// then the caller takes the encoding/json path, whose errors name the
// fault.
//
// extra is about how many bytes edit adds beyond the old _meta's: the
// output is allocated once at that size (a fixed margin over-allocated
// most of what a round trip allocates on the legacy path).
func spliceMeta(params []byte, extra int, edit func(out, meta []byte) ([]byte, bool)) (out json.RawMessage, ok bool) {
	out, _, ok = spliceMetaAfter(requestHead{}, 0, params, extra, edit)
	return out, ok
}

// requestHead is the text of a request before its params, for
// spliceMetaAfter to write first: none when method is "".
type requestHead struct {
	id     jsonrpc2.RequestID
	method string
}

func (h requestHead) size() int {
	if h.method == "" {
		return 0
	}
	return requestPrefixLen(h.id, h.method)
}

func (h requestHead) appendTo(b []byte) []byte {
	if h.method == "" {
		return b
	}
	return appendRequestPrefix(b, h.id, h.method)
}

// spliceMetaAfter is spliceMeta writing the edited params after the
// request's head,
// in a buffer with room for room more bytes after them: the client
// transport builds a whole request around the params this way, in one
// buffer, rather than copying the edited params into a message.
// start is where the params begin in out.
func spliceMetaAfter(prefix requestHead, room int, params []byte, extra int, edit func(out, meta []byte) ([]byte, bool)) (out json.RawMessage, start int, ok bool) {
	// The edit is written into pooled scratch and then copied into a
	// buffer of its exact size (with room): what edit adds is only known
	// by writing it, and a bound made of extra (which counts the keys the
	// old _meta already has) over-allocated a request by up to half.
	// params holds the old _meta, which the edited one replaces.
	sp := getSpliceScratch(prefix.size() + len(params) + len(`,"_meta":{}`) + extra)
	defer putSpliceScratch(sp)
	out, start, ok = spliceMetaInto((*sp)[:0], prefix, params, edit)
	if !ok {
		return nil, 0, false
	}
	*sp = out[:0]
	return append(make([]byte, 0, len(out)+room), out...), start, true
}

// spliceMetaInto is spliceMetaAfter appending to dst, which it may grow.
func spliceMetaInto(dst []byte, prefix requestHead, params []byte, edit func(out, meta []byte) ([]byte, bool)) (out []byte, start int, ok bool) {
	p := jsonscan.Trim(params)
	if len(p) == 0 || string(p) == "null" {
		p = []byte(`{}`)
	}
	if p[0] != '{' || !jsonscan.Valid(p) {
		return nil, 0, false
	}
	var meta []byte
	metas := 0
	jsonscan.EachMember(p, func(k, v []byte) bool {
		if jsonscan.KeyIs(k, "_meta") {
			meta = v
			metas++
		}
		return true
	})
	if metas > 1 || (meta != nil && meta[0] != '{' && string(meta) != "null") {
		return nil, 0, false
	}
	if string(meta) == "null" {
		meta = nil
	}
	out = prefix.appendTo(dst)
	paramsAt := len(out)
	out = append(out, '{')
	n := 0
	writeMeta := func() {
		start := len(out)
		if n > 0 {
			out = append(out, ',')
		}
		out = append(out, `"_meta":{`...)
		var keep bool
		out, keep = edit(out, meta)
		if keep {
			out = append(out, '}')
			n++
		} else {
			out = out[:start]
		}
	}
	jsonscan.EachMember(p, func(k, v []byte) bool {
		if jsonscan.KeyIs(k, "_meta") {
			writeMeta()
		} else {
			out = appendMember(out, n, k, v)
			n++
		}
		return true
	})
	if metas == 0 {
		writeMeta()
	}
	return append(out, '}'), paramsAt, true
}

// spliceScratch holds the buffers the splices write into first.
var spliceScratch = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

// getSpliceScratch is a scratch buffer of at least size bytes; the caller
// stores back in it what it grew to, and puts it back.
func getSpliceScratch(size int) *[]byte {
	sp := spliceScratch.Get().(*[]byte)
	if cap(*sp) < size {
		*sp = make([]byte, 0, size)
	}
	return sp
}

// putSpliceScratch returns sp to the pool, unless a huge message grew it.
func putSpliceScratch(sp *[]byte) {
	if cap(*sp) <= 64<<10 {
		spliceScratch.Put(sp)
	}
}

// appendMember appends the member "k":v (k raw, as jsonscan reports it),
// after a comma unless it is the first (n == 0).
func appendMember(out []byte, n int, k, v []byte) []byte {
	if n > 0 {
		out = append(out, ',')
	}
	out = append(out, '"')
	out = append(out, k...)
	out = append(out, '"', ':')
	return append(out, v...)
}

// isKeyOf reports whether the raw key k names one of keys.
func isKeyOf(k []byte, keys []string) bool {
	for _, key := range keys {
		if jsonscan.KeyIs(k, key) {
			return true
		}
	}
	return false
}

// appendJSONString appends s as encoding/json writes a string (what
// mustJSON(s) returned), without reflection.
func appendJSONString(out []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x80 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return append(out, mustJSON(s)...)
		}
	}
	out = append(out, '"')
	out = append(out, s...)
	return append(out, '"')
}

// Members of modern results that legacy results do not have: resultType
// on every result, and the caching hints of cacheable ones (list and read
// results, Revision.CacheableResults).
const (
	memberResultType = "resultType"
	memberCacheScope = "cacheScope"
	memberTTL        = "ttlMs"
)

// MapModernResult maps a modern result onto the legacy shape: the
// resultType member that modern results carry ("complete") is removed, as
// legacy results have none, and so are cacheScope and ttlMs when the
// result is cacheable. An "input_required" result cannot be mapped: for a
// legacy client, Input sends ordinary requests instead.
func MapModernResult(result json.RawMessage, cacheable bool) (json.RawMessage, error) {
	return mapModernResult(result, cacheable, false)
}

// mapModernResult is MapModernResult; inPlace writes the mapped result over
// result itself (dropping members only ever moves bytes to the left), for a
// result encoded into a buffer the caller owns.
func mapModernResult(result json.RawMessage, cacheable, inPlace bool) (json.RawMessage, error) {
	if len(result) == 0 {
		return result, nil
	}
	rt := jsonscan.Member(result, "resultType")
	if rt == nil {
		return result, nil
	}
	var kind string
	if rt[0] == '"' {
		kind = jsonStringValue(rt)
	}
	// "" is a generated result type's zero value: the session sends it to
	// a modern client as "complete" (withModernDefaults).
	if kind != "complete" && kind != "" {
		return nil, errors.New("session: a " + kind + " result has no legacy form")
	}
	drop := modernResultMembers[:1]
	if cacheable {
		drop = modernResultMembers[:]
	}
	if r := jsonscan.Trim(result); len(r) > 0 && r[0] == '{' && jsonscan.Valid(r) {
		// One pass, copying every member but the dropped ones: this runs
		// for every result a legacy client gets from the modern handlers.
		var out []byte
		if inPlace && len(r) == len(result) {
			out = r[:0] // r is result: nothing before it to keep
		} else {
			out = make([]byte, 0, len(r))
		}
		out = append(out, '{')
		n := 0
		jsonscan.EachMember(r, func(k, v []byte) bool {
			if !isKeyOf(k, drop) {
				out = appendMember(out, n, k, v)
				n++
			}
			return true
		})
		return append(out, '}'), nil
	}
	out, err := jsonscan.WithMember(result, memberResultType, nil)
	if err != nil || !cacheable {
		return out, err
	}
	if out, err = jsonscan.WithMember(out, memberCacheScope, nil); err != nil {
		return nil, err
	}
	return jsonscan.WithMember(out, memberTTL, nil)
}

// modernResultMembers are what MapModernResult removes: the first always,
// the others from cacheable results.
var modernResultMembers = [...]string{memberResultType, memberCacheScope, memberTTL}

// jsonStringValue decodes the valid string literal v as encoding/json does;
// plain ASCII without escapes costs no decoding.
func jsonStringValue(v []byte) string {
	body := v[1 : len(v)-1]
	for _, c := range body {
		if c == '\\' || c >= 0x80 {
			if s, ok := jsonscan.Unquote(v); ok {
				return s
			}
			var s string
			_ = json.Unmarshal(v, &s)
			return s
		}
	}
	// The values read on every request and result (a resultType, the
	// protocol version in _meta) are returned as shared strings, not copied.
	switch string(body) { // compiled to comparisons: no allocation
	case "complete":
		return "complete"
	case "input_required":
		return "input_required"
	}
	if v, ok := knownVersion(body); ok {
		return v
	}
	return string(body)
}

// versions are the protocol versions of the revisions this process has
// built a Server or a client for (rememberVersions), so that the version
// in a request's _meta is returned as one of them rather than copied. The
// session knows no version of its own: they come with the generated
// Revision values. Copy on write: read on every request, written by
// constructors only.
var versions atomic.Pointer[[]string]

// rememberVersions adds the versions of revs to versions.
func rememberVersions(revs ...Revision) {
	for {
		old := versions.Load()
		var list []string
		if old != nil {
			list = *old
		}
		next := list
		for _, r := range revs {
			if r.Version != "" && !slices.Contains(next, r.Version) {
				next = append(slices.Clip(next), r.Version)
			}
		}
		if len(next) == len(list) || versions.CompareAndSwap(old, &next) {
			return
		}
	}
}

// knownVersion returns the remembered version spelled body, if any.
func knownVersion(body []byte) (string, bool) {
	if p := versions.Load(); p != nil {
		for _, v := range *p {
			if string(body) == v { // compiled to a comparison: no allocation
				return v, true
			}
		}
	}
	return "", false
}

// UnmapModernResult is MapModernResult's inverse, what a modern client
// does with a legacy server's result: resultType "complete" is added, and
// for a cacheable result the most careful caching hints, "private" and
// ttlMs 0 (do not reuse), since a legacy server said nothing about them.
func UnmapModernResult(result json.RawMessage, cacheable bool) (json.RawMessage, error) {
	add := map[string]json.RawMessage{memberResultType: json.RawMessage(`"complete"`)}
	if cacheable {
		add[memberCacheScope] = json.RawMessage(`"private"`)
		add[memberTTL] = json.RawMessage(`0`)
	}
	m, err := jsonscan.Members(result)
	if err != nil {
		return nil, err
	}
	for k, v := range add {
		if _, ok := m[k]; !ok {
			m[k] = v
		}
	}
	return json.Marshal(m)
}
