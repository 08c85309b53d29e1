package session

import (
	"encoding/json"
	"errors"

	"github.com/mcpgen/mcpgen/internal/jsonscan"
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
	add := map[string]json.RawMessage{
		MetaProtocolVersion:    mustJSON(lc.Version),
		MetaClientCapabilities: caps,
	}
	if len(lc.ClientInfo) > 0 {
		add[MetaClientInfo] = lc.ClientInfo
	}
	if lc.LogLevel != "" {
		add[MetaLogLevel] = mustJSON(lc.LogLevel)
	}
	return addMeta(params, add)
}

// UnmapLegacyParams removes what MapLegacyParams added; hadMeta says
// whether the legacy params had a _meta member of their own.
func UnmapLegacyParams(params json.RawMessage, hadMeta bool) (json.RawMessage, error) {
	return removeMeta(params, modernMetaKeys, hadMeta)
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
	if len(result) == 0 {
		return result, nil
	}
	rt := jsonscan.Member(result, "resultType")
	if rt == nil {
		return result, nil
	}
	var kind string
	_ = json.Unmarshal(rt, &kind)
	// "" is a generated result type's zero value: the session sends it to
	// a modern client as "complete" (withModernDefaults).
	if kind != "complete" && kind != "" {
		return nil, errors.New("session: a " + kind + " result has no legacy form")
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
