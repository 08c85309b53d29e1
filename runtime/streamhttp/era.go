package streamhttp

import (
	"encoding/json"
	"slices"

	"github.com/mcpgen/mcpgen/internal/jsonscan"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// Era is the protocol family a request or session belongs to.
type Era uint8

const (
	// EraLegacy is 2025-03-26 … 2025-11-25: initialize, sessions, GET stream.
	EraLegacy Era = iota + 1
	// EraModern is 2026-07-28 and later: stateless, per-request metadata.
	EraModern
)

// String names the era for logs.
func (e Era) String() string {
	switch e {
	case EraLegacy:
		return "legacy"
	case EraModern:
		return "modern"
	}
	return "unknown"
}

// Header names. net/http canonicalises them, so the spelling here only
// matters for what we write.
const (
	HeaderSessionID       = "Mcp-Session-Id"
	HeaderProtocolVersion = "Mcp-Protocol-Version"
	HeaderMethod          = "Mcp-Method"
	HeaderName            = "Mcp-Name"
	HeaderParamPrefix     = "Mcp-Param-"
)

// Modern error codes (2026-07-28 schema). The third,
// UnsupportedProtocolVersionError's, is the session's
// (session.CodeUnsupportedProtocolVersion), which both layers send.
const (
	CodeHeaderMismatch          = -32020
	CodeMissingClientCapability = -32021
)

// peek is what the HTTP layer needs from a request's params: the version in
// _meta and the values mirrored into the standard headers.
type peek struct {
	Meta      map[string]json.RawMessage `json:"_meta"`
	Name      *string                    `json:"name"`
	URI       *string                    `json:"uri"`
	Arguments json.RawMessage            `json:"arguments"`
}

func peekParams(params json.RawMessage) (peek, bool) {
	var p peek
	if len(params) == 0 {
		return p, true
	}
	if params[0] != '{' {
		return p, false
	}
	// The params were valid JSON already (DecodeMessage checked), so an
	// error here means a member of the wrong type, e.g. "name": 3.
	err := json.Unmarshal(params, &p)
	return p, err == nil
}

// stringMember returns the string member of params that Mcp-Name mirrors
// (Revision.HTTPNameMembers), or nil when it is absent or not a string.
// name and uri, the members of every revision so far, were peeked already.
func (p peek) stringMember(params json.RawMessage, member string) *string {
	switch member {
	case "name":
		return p.Name
	case "uri":
		return p.URI
	}
	var v string
	if raw := jsonscan.Member(params, member); raw == nil || json.Unmarshal(raw, &v) != nil {
		return nil
	}
	return &v
}

// metaVersion returns _meta's protocol version and whether it is a string.
func (p peek) metaVersion() (string, bool) {
	raw, ok := p.Meta[session.MetaProtocolVersion]
	if !ok {
		return "", false
	}
	var v string
	if json.Unmarshal(raw, &v) != nil {
		return "", false
	}
	return v, true
}

// errorBody encodes a JSON-RPC error response; id may be zero (null).
func errorBody(id jsonrpc2.RequestID, code int, msg string, data any) []byte {
	type errObj struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
		Data    any    `json:"data,omitempty"`
	}
	var idv any
	if !id.IsZero() {
		idv = id
	}
	b, _ := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   errObj `json:"error"`
	}{"2.0", idv, errObj{code, msg, data}})
	return b
}

// isModernCode reports whether a JSON-RPC error code only a modern server
// sends, which is how a client tells the eras apart on a 400.
func isModernCode(code int) bool {
	return slices.Contains([]int{CodeHeaderMismatch, CodeMissingClientCapability, session.CodeUnsupportedProtocolVersion}, code)
}
