package streamhttp

import (
	"slices"

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

// isModernCode reports whether a JSON-RPC error code only a modern server
// sends, which is how a client tells the eras apart on a 400.
func isModernCode(code int) bool {
	return slices.Contains([]int{session.CodeHeaderMismatch, session.CodeMissingRequiredClientCapability, session.CodeUnsupportedProtocolVersion}, code)
}
