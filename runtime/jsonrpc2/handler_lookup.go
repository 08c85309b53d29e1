package jsonrpc2

// Handler returns the handler registered for method, or nil. It lets a
// layer above the Conn wrap the handlers that generated Register functions
// installed, without those functions knowing about it: the session lifecycle
// (runtime/session) and the task manager (runtime/tasks, which runs a
// method's handler detached, as a task).
func (c *Conn) Handler(method string) Handler {
	c.hmu.RLock()
	defer c.hmu.RUnlock()
	return c.handlers[method]
}
