package streamhttp

import "github.com/mcpgen/mcpgen/runtime/session"

// extensionNameMembers are the members Mcp-Name mirrors for the requests of
// extensions, which no revision's schema has: the Tasks extension
// (io.modelcontextprotocol/tasks, SEP-2663, "Streamable HTTP: Routing
// Headers") has the client set Mcp-Name to params.taskId on tasks/get,
// tasks/update and tasks/cancel, so a load balancer can route a task's
// requests to the instance holding it.
var extensionNameMembers = map[string]string{
	"tasks/get":    "taskId",
	"tasks/update": "taskId",
	"tasks/cancel": "taskId",
}

// nameMember returns the params member Mcp-Name mirrors for method in rev,
// the revision's own (Revision.HTTPNameMembers) or an extension's, and
// whether there is one; none when rev has no Mcp-Name header.
func nameMember(rev session.Revision, method string) (string, bool) {
	if !rev.HasHTTPHeader(HeaderName) {
		return "", false
	}
	if m, ok := rev.HTTPNameMembers[method]; ok {
		return m, true
	}
	m, ok := extensionNameMembers[method]
	return m, ok
}
