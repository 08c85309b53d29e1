package runtime

// HandlerFor returns the handler registered for method, or nil. Layers that
// wrap a method's handler after the generated Register function installed it
// (the task manager in runtime/tasks runs it detached, as a task) use it to
// find what to wrap.
func (c *Conn) HandlerFor(method string) Handler {
	c.hmu.RLock()
	defer c.hmu.RUnlock()
	return c.handlers[method]
}
