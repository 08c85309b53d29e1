package tasks

import (
	"encoding/json"
	"strings"
)

// Supports reports whether a peer's "tasks" capability (as declared in its
// initialize request or result) lets requests of method be task-augmented.
// Requestors SHOULD only augment such requests, and MUST NOT augment
// tools/call when the server lacks tasks.requests.tools.call; the set of
// requests is exhaustive, so an absent or malformed capability means no.
func Supports(capability json.RawMessage, method string) bool {
	var caps struct {
		Requests map[string]json.RawMessage `json:"requests"`
	}
	if json.Unmarshal(capability, &caps) != nil || caps.Requests == nil {
		return false
	}
	node := caps.Requests
	parts := strings.Split(method, "/")
	for i, p := range parts {
		raw, ok := node[p]
		if !ok {
			return false
		}
		if i == len(parts)-1 {
			var leaf map[string]json.RawMessage
			return json.Unmarshal(raw, &leaf) == nil && leaf != nil
		}
		node = nil
		if json.Unmarshal(raw, &node) != nil || node == nil {
			return false
		}
	}
	return false
}

// ToolAllowsTask reports whether a client may invoke a tool as a task, from
// the server's tasks capability and the tool's execution.taskSupport
// ("" when absent): only with tasks.requests.tools.call declared, and only
// for "optional" or "required".
func ToolAllowsTask(capability json.RawMessage, taskSupport string) bool {
	return Supports(capability, toolsCall) && (taskSupport == string(Optional) || taskSupport == string(Required))
}
