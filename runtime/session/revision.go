package session

import "github.com/mcpgen/mcpgen/runtime/jsonrpc2"

// Revision is what the session needs to know about one protocol revision,
// as data a generated package builds (mcpYYYYMMDD.Revision()).
type Revision struct {
	// Version is the protocol version string, e.g. "2025-11-25".
	Version string
	// Modern is true for revisions without initialize, whose requests carry
	// version, client info and capabilities in _meta (2026-07-28 on).
	Modern bool
	// Policy is the revision's cancellation rules for a side.
	Policy func(jsonrpc2.Side) jsonrpc2.Policy
	// ServerMethods maps each request a server of this revision handles to
	// the Go method of the generated ServerHandler interface ("tools/call" →
	// "CallTool"): the requests whose handlers get the session's view of the
	// request.
	ServerMethods map[string]string
	// ClientMethods is ServerMethods for the requests a client handles
	// ("sampling/createMessage" → "CreateMessage").
	ClientMethods map[string]string
	// CacheableResults lists the requests whose modern result carries the
	// caching hints cacheScope and ttlMs, which legacy results lack.
	CacheableResults map[string]bool
	// Capabilities maps a server request to the server capability that
	// registering a handler for it declares ("tools/call" → "tools").
	Capabilities map[string]string
}

// Implementation names a program, as serverInfo or clientInfo.
type Implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Title   string `json:"title,omitempty"`
}

// Keys of the modern per-request _meta (2026-07-28 basic/index.mdx).
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// CodeUnsupportedProtocolVersion is UnsupportedProtocolVersionError's code.
const CodeUnsupportedProtocolVersion = -32022
