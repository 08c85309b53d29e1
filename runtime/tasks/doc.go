// Package tasks runs MCP tasks on a jsonrpc2.Conn, in both eras: the core
// task-augmented requests of 2025-11-25 (basic/utilities/tasks.mdx), on both
// ends of the wire, and the Tasks extension io.modelcontextprotocol/tasks
// that carries them in 2026-07-28 (SEP-2663, modelcontextprotocol/ext-tasks
// specification/draft/tasks.md; ext.go says what differs). One Manager,
// one handler per tool: WithTasks(m) serves a session.Server's tools as core
// tasks to a 2025-11-25 client that asks with the "task" member and as
// extension tasks to a 2026-07-28 client that lists the extension in the
// request's capabilities.
//
// Receiver side: a Manager, attached to a Conn with Serve before the Conn
// starts (an interceptor around the handlers the generated Register function
// installs, before or after), takes over the configured methods (tools/call on a
// server; sampling/createMessage and elicitation/create on a client). A
// request carrying the "task" member is answered at once with a
// CreateTaskResult while the method's ordinary handler runs in the background
// under a context of its own, detached from the creating request: a
// notifications/cancelled naming that request does not touch it, tasks/cancel
// does. The Manager answers tasks/get, tasks/list, tasks/result and
// tasks/cancel from a Store (in memory by default) and reports the tasks
// capability it implements (Capability) for the lifecycle layer to declare.
//
// Requestor side: Start sends a task-augmented request and returns a Handle
// whose Status polls tasks/get, Result waits (honouring pollInterval, and
// calling tasks/result early when the task needs input) and Cancel sends
// tasks/cancel. Ending the context given to Start after the task exists sends
// tasks/cancel, never notifications/cancelled.
//
// # Decisions worth knowing
//
//   - Exactly one terminal state per task: every transition is a
//     compare-and-set in the Store, so a tasks/cancel racing the work's
//     completion leaves either "cancelled" or "completed"/"failed", and a task
//     that was cancelled stays cancelled whatever its work returns later.
//   - tasks/result for a cancelled task answers the JSON-RPC error -32603
//     "task cancelled": the page requires the underlying request's outcome,
//     and a cancelled request has none, so an error that says so is the
//     closest honest answer.
//   - Binding: tasks are bound to the Conn they were created on (the session)
//     and, when Config.Owner is set, to the authorization context it returns.
//     With Config.Unbound there is no binding: ids are still 144-bit random
//     and task operations rate-limited, and tasks/list is neither declared nor
//     served (tasks.mdx, Security Considerations).
//   - A session-bound task cannot be reached once its Conn has gone, so its
//     work is cancelled (cause SourceClose) when the Conn shuts down.
//   - Limits: 256 running tasks per requestor and a token bucket of
//     2 × MaxActive / PollInterval operations a second, burst 2 × MaxActive
//     (512/s, burst 512, by default: DefaultRateLimit), so that polling every
//     running task at the advertised interval is admitted with twofold
//     headroom; beyond them the answer is the JSON-RPC error CodeRateLimited
//     (-32000, implementation-defined range). ttl: the
//     requested one, else Config.DefaultTTL, capped by Config.MaxTTL; expired
//     tasks are deleted (and their work cancelled) on the next operation.
//   - Tool-level rules: execution.taskSupport comes from Config.ToolSupport.
//     "required" without a task and "forbidden" with one both answer -32601,
//     as the tool-level section says (the Error Handling section's -32600
//     for a required task is a MAY; the page's MUST wins).
//   - tasks/result is woken in-process when the task ends; with a Store
//     shared between processes it falls back to re-reading the Store every
//     poll interval.
//   - Replicas (cluster.go): with Config.Bus (a cluster.Bus) and a Store
//     shared by every replica behind a load balancer (natscluster.TaskStore
//     of the separate github.com/mcpgen/mcpgen/cluster module, on JetStream),
//     any replica answers tasks/get, tasks/result, tasks/list, tasks/update
//     and tasks/cancel; tasks/cancel ends the work's ctx on the replica that
//     runs it (mcp.task.cancel.<id> on the bus), tasks/update wakes its Ask
//     there, and tasks/result elsewhere is woken by the bus. The runner
//     renews a lease in the record (Config.Lease, default 10 s, every
//     Lease/3); every replica sweeps expired leases and fails those tasks
//     ("replica X stopped"), so a dead replica's tasks end failed within
//     Lease + Lease/3. Without Bus nothing of this runs.
//   - Requestors: Handle.Result polls (notifications/tasks/status is
//     optional, so nothing relies on it). AnswerRelated adds the
//     related-task metadata to the requestor's answers to input requests.
//   - Extension tasks (2026-07-28) are bound to no Conn (modern requests are
//     stateless), only to Config.Owner's requestor when set; their work's
//     input requests (Ask) are listed in tasks/get's inputRequests and
//     answered by tasks/update. The extension's notifications/tasks go to
//     the subscriptions/listen streams that named the task in
//     notifications.taskIds (listen_ext.go; the session answers the
//     request, the Manager contributes through
//     session.WithListenContributor); the requestor side polls, which the
//     extension allows.
package tasks
