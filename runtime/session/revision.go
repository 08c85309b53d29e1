package session

import (
	"context"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

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
	// Lifecycle lists the lifecycle methods the revision's schema defines:
	// of initialize, notifications/initialized, ping, logging/setLevel,
	// server/discover (which the session answers unless the implementation
	// provides them) and subscriptions/listen (the implementation's, inside
	// the session's stream rules), those the revision has; 2026-07-28 has
	// no ping and no logging/setLevel.
	// From the revision table of mcpgen's schema package, through the
	// generated Revision.
	Lifecycle []string
	// HTTPHeaders lists the HTTP headers the revision's Streamable HTTP
	// transport defines (Mcp-Session-Id, MCP-Protocol-Version, Mcp-Method,
	// Mcp-Name, and the Mcp-Param- prefix); empty for a revision without
	// Streamable HTTP (2024-11-05). From the revision table, through the
	// generated Revision.
	HTTPHeaders []string
	// HTTPNameMembers maps each request whose params member the Mcp-Name
	// header mirrors to that member ("tools/call" → "name",
	// "resources/read" → "uri"); nil when the revision has no Mcp-Name.
	// From the revision table, through the generated Revision.
	HTTPNameMembers map[string]string
	// RemovedMethods lists the requests of earlier revisions that this
	// revision does not have: a request of this revision for one gets
	// Method not found (on Streamable HTTP: 404), even where a handler
	// answers it for clients of an earlier revision (2026-07-28:
	// initialize, ping, logging/setLevel, resources/subscribe,
	// resources/unsubscribe). From the revision table, through the
	// generated Revision.
	RemovedMethods []string
	// SSEPriming is set for a legacy revision whose Streamable HTTP server
	// primes each SSE stream with an event id and empty data, so the
	// client can resume it (2025-11-25); a client of an earlier revision
	// gets no priming event. From the revision table, through the
	// generated Revision.
	SSEPriming bool
	// CoreTasks is set for a revision whose core protocol has
	// task-augmented requests (tasks/get, tasks/cancel, …, the "task"
	// params member: 2025-11-25); a legacy client of a revision without
	// it gets no tasks, and 2026-07-28 has them as the Tasks extension
	// instead. From the revision table, through the generated Revision.
	CoreTasks bool
}

// HasLifecycle reports whether the revision defines the lifecycle method
// method.
func (r Revision) HasLifecycle(method string) bool {
	for _, m := range r.Lifecycle {
		if m == method {
			return true
		}
	}
	return false
}

// HasHTTPHeader reports whether the revision's Streamable HTTP transport
// defines the header name (compared case-insensitively, as HTTP does; a
// prefix such as "Mcp-Param-" is matched as written).
func (r Revision) HasHTTPHeader(name string) bool {
	for _, h := range r.HTTPHeaders {
		if strings.EqualFold(h, name) {
			return true
		}
	}
	return false
}

// ProtocolRevision returns the data of the revision the request in ctx is
// served under (the negotiated one for a legacy client), as the generated
// Revision of that revision gave it to the Server; false outside a
// session's request. Layers above the session (tasks) read what a
// revision has from it instead of comparing versions.
func ProtocolRevision(ctx context.Context) (Revision, bool) {
	rs, ok := stateOf(ctx)
	if !ok {
		return Revision{}, false
	}
	srv := rs.st.srv
	if srv.base.Version == rs.version {
		return srv.base, true
	}
	return srv.legacyRevision(rs.version)
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

// The MCP error codes the runtime sends or recognises (2026-07-28 schema),
// declared here once: the session, streamhttp and tasks all use these.
const (
	// CodeHeaderMismatch is HeaderMismatchError's code: an HTTP header
	// that mirrors the body (MCP-Protocol-Version, Mcp-Method, Mcp-Name,
	// Mcp-Param-*) is missing or disagrees with it.
	CodeHeaderMismatch = -32020
	// CodeMissingRequiredClientCapability is
	// MissingRequiredClientCapabilityError's code: the request needs a
	// client capability (an extension, say) the client did not declare.
	CodeMissingRequiredClientCapability = -32021
	// CodeUnsupportedProtocolVersion is UnsupportedProtocolVersionError's
	// code.
	CodeUnsupportedProtocolVersion = -32022
)
