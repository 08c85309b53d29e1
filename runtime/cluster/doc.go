// Package cluster holds the seams that let several replicas of one MCP server
// share what one process otherwise keeps to itself: a Bus that carries
// cancellations and notifications between replicas, and a SessionStore that
// keeps legacy (≤ 2025-11-25) Streamable HTTP session state where every
// replica can read it. Task records have their own seam, tasks.Store.
//
// The package is standard library only. Its in-memory implementations
// (MemoryBus, MemorySessionStore) are what a single process uses, and what
// tests use to run several replicas in one process; engines such as NATS
// (the natscluster package of the separate github.com/mcpgen/mcpgen/cluster
// module) implement the same interfaces for replicas in separate processes.
//
// Who uses them: streamhttp.Options.Sessions and Options.Bus (legacy
// sessions served by any replica; notifications/cancelled forwarded on
// "mcp.cancel.<SubjectToken(session id)>", a DELETE on
// "mcp.session.drop.<token>", record changes on "mcp.session.state.<token>"),
// session.WithBus (list_changed and resources/updated fanned out on
// "mcp.notify.>") and tasks.Config.Bus (a tasks/cancel answered elsewhere
// than where the work runs on "mcp.task.cancel.<SubjectToken(task id)>",
// task transitions on "mcp.task.state.<token>", tasks/update answers on
// "mcp.task.input.<token>"; tasks.Config.Store holds the records). The
// payloads are JSON and name their origin: a replica
// ignores the drops, state changes and notifications it published itself
// (it acted on them locally), but keeps its own forwarded cancellations
// like any other, for the request that may still reach it. Duplicates are
// harmless everywhere. A forwarded cancellation the bus does not accept
// makes its POST fail (503) rather than be answered 202.
package cluster
