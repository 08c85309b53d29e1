package tasks

import (
	"time"
)

// Status is a task's state (tasks.mdx, Task Status Lifecycle).
type Status string

// The five statuses of 2025-11-25.
const (
	Working       Status = "working"
	InputRequired Status = "input_required"
	Completed     Status = "completed"
	Failed        Status = "failed"
	Cancelled     Status = "cancelled"
)

// Terminal reports whether no transition leaves s.
func (s Status) Terminal() bool { return s == Completed || s == Failed || s == Cancelled }

// CanTransition reports whether the page allows moving a task from one status
// to another: working and input_required may go to each other or to any
// terminal status; a terminal status goes nowhere.
func CanTransition(from, to Status) bool {
	switch from {
	case Working:
		return to == InputRequired || to.Terminal()
	case InputRequired:
		return to == Working || to.Terminal()
	}
	return false
}

// Task is the wire form of a task (the schema's Task). TTL is always written,
// null meaning unlimited; the Manager always sets PollInterval.
type Task struct {
	TaskID        string `json:"taskId"`
	Status        Status `json:"status"`
	StatusMessage string `json:"statusMessage,omitempty"`
	CreatedAt     string `json:"createdAt"`
	LastUpdatedAt string `json:"lastUpdatedAt"`
	TTL           *int64 `json:"ttl"`
	PollInterval  *int64 `json:"pollInterval,omitempty"`
}

// timeFormat is ISO 8601 / RFC 3339 in UTC with milliseconds.
const timeFormat = "2006-01-02T15:04:05.000Z07:00"

func formatTime(t time.Time) string { return t.UTC().Format(timeFormat) }

// createResult is the CreateTaskResult answered to a task-augmented request.
type createResult struct {
	Task Task `json:"task"`
}

// listResult is the ListTasksResult.
type listResult struct {
	Tasks      []Task `json:"tasks"`
	NextCursor string `json:"nextCursor,omitempty"`
}

// taskIDParams is the params of tasks/get, tasks/result and tasks/cancel.
type taskIDParams struct {
	TaskID *string `json:"taskId"`
}

// taskMeta is the "task" member of a task-augmented request.
type taskMeta struct {
	TTL *int64 `json:"ttl"`
}

// ExtensionID is the identifier of the Tasks extension (SEP-2663), its key in
// capabilities.extensions: the server's (server/discover) and the client's
// per-request ones (_meta io.modelcontextprotocol/clientCapabilities).
const ExtensionID = "io.modelcontextprotocol/tasks"
