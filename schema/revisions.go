package schema

import (
	"maps"
	"slices"
	"sort"
)

// Era is a protocol family: how a session begins and where per-request
// state travels.
type Era string

// The eras.
const (
	// EraLegacy revisions open a session with initialize (2024-11-05 …
	// 2025-11-25).
	EraLegacy Era = "legacy"
	// EraModern revisions are stateless: there is no initialize, and every
	// request carries the version, client info and capabilities in _meta
	// (2026-07-28 on).
	EraModern Era = "modern"
)

// The HTTP headers the revisions define, spelled as the specification
// pages spell them (net/http canonicalises them on the wire).
const (
	// HeaderSessionID carries the session of a legacy Streamable HTTP
	// connection (2025-03-26 … 2025-11-25).
	HeaderSessionID = "Mcp-Session-Id"
	// HeaderProtocolVersion carries the negotiated version on every HTTP
	// request (2025-06-18 on).
	HeaderProtocolVersion = "MCP-Protocol-Version"
	// HeaderMethod mirrors the request's method (2026-07-28 on).
	HeaderMethod = "Mcp-Method"
	// HeaderName mirrors params.name or params.uri (2026-07-28 on).
	HeaderName = "Mcp-Name"
	// HeaderParamPrefix starts the headers that mirror tool arguments a
	// tool's x-mcp-header marks (2026-07-28 on).
	HeaderParamPrefix = "Mcp-Param-"
)

// LifecycleMethods are the methods the session layer handles rather than
// the user's handlers alone: opening a legacy session, liveness and the log
// level, a modern server's discovery (all answered by the session unless
// the implementation provides them), and the modern subscription stream
// (the implementation's handler, inside the session's stream rules).
// Which of them a revision has is read from its schema (Facts.Lifecycle),
// never from a table.
var LifecycleMethods = []string{
	"initialize", "notifications/initialized", LivenessMethod, "logging/setLevel",
	"server/discover", "subscriptions/listen",
}

// LivenessMethod is the liveness check (basic/utilities/ping.mdx). A
// revision whose schema defines it gets it as its generated Policy's
// LivenessMethod, which the runtime admits past a full house.
const LivenessMethod = "ping"

// RevisionFacts is one row of the revision table: what mcpgen needs to know
// about a protocol revision that its schema does not say, or that the
// generator must know without loading the schema (the typed-tools
// generator). TestRevisionTable checks every row against the official
// schema of its revision wherever the schema can tell; ADDING_A_REVISION.md
// says how to add one.
type RevisionFacts struct {
	// Version is the revision, e.g. "2025-11-25".
	Version string
	// CanonicalSHA256 is the CanonicalDigest of the official schema, which
	// recognises it whatever its formatting. Checked.
	CanonicalSHA256 string
	// Era is the revision's protocol family. Checked: legacy exactly when
	// the schema defines initialize.
	Era Era
	// Dialect is the JSON Schema dialect of the official schema
	// ("draft-07" or "2020-12"). Checked.
	Dialect string
	// Headers are the HTTP headers the revision's Streamable HTTP
	// transport defines; empty for a revision without Streamable HTTP
	// (2024-11-05 has the older HTTP+SSE transport, which mcpgen does not
	// serve). From basic/transports*.
	Headers []string
	// NameHeader maps each request whose params member the Mcp-Name
	// header mirrors to that member ("tools/call" → "name",
	// "resources/read" → "uri"); nil when the revision has no Mcp-Name.
	// From basic/transports/streamable-http.mdx. Checked: each method and
	// member exists.
	NameHeader map[string]string
	// StructuredToolOutput: Tool.outputSchema and
	// CallToolResult.structuredContent exist (2025-06-18 on). Checked.
	StructuredToolOutput bool
	// ToolInputErrorsAsResults: a tool's input validation errors are tool
	// execution errors (isError: true), not -32602 protocol errors
	// (server/tools.mdx from 2025-11-25 on, SEP-1303; earlier pages list
	// "invalid arguments" among protocol errors).
	ToolInputErrorsAsResults bool
	// ServerMayCancel: the server sends notifications/cancelled for its own
	// requests (every legacy revision; 2026-07-28 lets only the client).
	ServerMayCancel bool
	// ServerCancelsOnly are the client-issued methods the server may end
	// with notifications/cancelled (2026-07-28: subscriptions/listen).
	ServerCancelsOnly []string
	// HTTPDisconnectCancels: closing a Streamable HTTP response stream is
	// the cancellation (2026-07-28), rather than something that must not
	// be taken as one.
	HTTPDisconnectCancels bool
	// RemovedMethods are the requests of earlier revisions that this
	// revision does not have and that a request of this revision must get
	// Method not found for (on Streamable HTTP: 404), even where a handler
	// answers them for clients of an earlier revision (2026-07-28:
	// initialize, ping, logging/setLevel from changelog.mdx,
	// resources/subscribe and resources/unsubscribe from
	// patterns/subscriptions.mdx). An explicit list, not every method an
	// earlier schema has: tasks/* left the core for an extension a modern
	// server may serve. Rows carry it forward. Checked: the schema does not
	// define them and an earlier revision's does.
	RemovedMethods []string
	// SSEPriming: a legacy Streamable HTTP server primes each SSE stream
	// with an event id and empty data, so the client can reconnect
	// (basic/transports.mdx from 2025-11-25 on); clients of earlier
	// revisions get no priming event. Checked: only with a legacy
	// Streamable HTTP transport.
	SSEPriming bool
	// CoreTasks: task-augmented requests are part of the core protocol
	// (tasks/get, tasks/result, tasks/list, tasks/cancel and the "task"
	// params member: 2025-11-25); 2026-07-28 moved tasks into the Tasks
	// extension. Checked: exactly when the schema defines tasks/get.
	CoreTasks bool
	// Source names the specification pages the cancellation rules come
	// from (the generated Policy quotes it).
	Source string
}

// StreamableHTTP reports whether the revision defines the Streamable HTTP
// transport.
func (r RevisionFacts) StreamableHTTP() bool { return len(r.Headers) > 0 }

// revisionTable is the table, oldest first. Add a row here when adding a
// revision (ADDING_A_REVISION.md).
var revisionTable = []RevisionFacts{
	{
		Version:         "2024-11-05",
		CanonicalSHA256: "9a1a5ef2d4db51e864947eee3081637b13b78dfc3699edbcb352761987a0fee8",
		Era:             EraLegacy, Dialect: "draft-07",
		ServerMayCancel: true,
		Source:          "basic/utilities/cancellation.mdx; basic/transports.mdx: a disconnect is not a cancellation",
	},
	{
		Version:         "2025-03-26",
		CanonicalSHA256: "dd69e073199dd24e9e86bbd0e03c960c9c6b96a70d95070bb2644cbf1ca03178",
		Era:             EraLegacy, Dialect: "draft-07",
		Headers:         []string{HeaderSessionID},
		ServerMayCancel: true,
		Source:          "basic/utilities/cancellation.mdx; basic/transports.mdx: a disconnect is not a cancellation",
	},
	{
		Version:         "2025-06-18",
		CanonicalSHA256: "cff2c4f638c2b5849dd6b5ec150c751232821c8350a897126c3f6775092cf59d",
		Era:             EraLegacy, Dialect: "draft-07",
		Headers:              []string{HeaderSessionID, HeaderProtocolVersion},
		StructuredToolOutput: true,
		ServerMayCancel:      true,
		Source:               "basic/utilities/cancellation.mdx; basic/transports.mdx: a disconnect is not a cancellation",
	},
	{
		Version:         "2025-11-25",
		CanonicalSHA256: "9105f0f264e7b7d9c4125b0a5c844ae5b16e7c5cb947ec04db6e3c8eb325923b",
		Era:             EraLegacy, Dialect: "2020-12",
		Headers:                  []string{HeaderSessionID, HeaderProtocolVersion},
		StructuredToolOutput:     true,
		ToolInputErrorsAsResults: true,
		ServerMayCancel:          true,
		SSEPriming:               true,
		CoreTasks:                true,
		Source:                   "basic/utilities/cancellation.mdx; basic/transports.mdx: a disconnect is not a cancellation",
	},
	{
		Version:         "2026-07-28",
		CanonicalSHA256: "6b3a3dd3090f1a3954dc653be746b86c4cab968de0717b541f40d2ae9955a2b1",
		Era:             EraModern, Dialect: "2020-12",
		Headers:                  []string{HeaderProtocolVersion, HeaderMethod, HeaderName, HeaderParamPrefix},
		NameHeader:               map[string]string{"tools/call": "name", "prompts/get": "name", "resources/read": "uri"},
		StructuredToolOutput:     true,
		ToolInputErrorsAsResults: true,
		ServerCancelsOnly:        []string{"subscriptions/listen"},
		HTTPDisconnectCancels:    true,
		RemovedMethods:           []string{"initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"},
		Source:                   "basic/patterns/cancellation.mdx; basic/transports/streamable-http.mdx: closing the response stream is the cancellation",
	},
}

// Revisions returns the revision table, oldest first.
func Revisions() []RevisionFacts {
	out := make([]RevisionFacts, len(revisionTable))
	for i, r := range revisionTable {
		out[i] = r.clone()
	}
	return out
}

// LookupRevision returns the row of revision version.
func LookupRevision(version string) (RevisionFacts, bool) {
	for _, r := range revisionTable {
		if r.Version == version {
			return r.clone(), true
		}
	}
	return RevisionFacts{}, false
}

// factsFor returns the row of version, or, for a revision the table does
// not know (a schema of one's own in a YYYY-MM-DD directory), the newest
// row not after it with the schema-specific members cleared: the prose
// rules carry forward until a revision changes them.
func factsFor(version string) RevisionFacts {
	if r, ok := LookupRevision(version); ok {
		return r
	}
	r := revisionTable[0]
	for _, row := range revisionTable {
		if row.Version <= version {
			r = row
		}
	}
	r = r.clone()
	r.Version, r.CanonicalSHA256, r.Era, r.Dialect = version, "", "", ""
	return r
}

// DefaultHTTPVersions lists the revisions of era that have the Streamable
// HTTP transport, newest first: what an HTTP server serves unless told
// otherwise.
func DefaultHTTPVersions(era Era) []string {
	var out []string
	for _, r := range revisionTable {
		if r.Era == era && r.StreamableHTTP() {
			out = append(out, r.Version)
		}
	}
	sort.Sort(sort.Reverse(sort.StringSlice(out)))
	return out
}

func (r RevisionFacts) clone() RevisionFacts {
	r.Headers = slices.Clone(r.Headers)
	r.ServerCancelsOnly = slices.Clone(r.ServerCancelsOnly)
	r.RemovedMethods = slices.Clone(r.RemovedMethods)
	r.NameHeader = maps.Clone(r.NameHeader)
	return r
}
