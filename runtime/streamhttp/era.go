package streamhttp

import (
	"encoding/json"
	"slices"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
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

// Modern error codes (2026-07-28 schema).
const (
	CodeHeaderMismatch             = -32020
	CodeMissingClientCapability    = -32021
	CodeUnsupportedProtocolVersion = -32022
)

// metaProtocolVersion is the _meta key that carries the version of a modern
// request.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
)

// DefaultModernVersions and DefaultLegacyVersions are what a Handler serves
// unless Options says otherwise, latest first.
var (
	DefaultModernVersions = []string{"2026-07-28"}
	DefaultLegacyVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}
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

// metaVersion returns _meta's protocol version and whether it is a string.
func (p peek) metaVersion() (string, bool) {
	raw, ok := p.Meta[metaProtocolVersion]
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
	return slices.Contains([]int{CodeHeaderMismatch, CodeMissingClientCapability, CodeUnsupportedProtocolVersion}, code)
}
