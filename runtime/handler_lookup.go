package runtime

// Handler returns the handler registered for method, or nil. It lets a
// layer above the Conn (the session lifecycle) wrap the handlers that
// generated Register functions installed, without those functions knowing
// about it.
func (c *Conn) Handler(method string) Handler {
	c.hmu.RLock()
	defer c.hmu.RUnlock()
	return c.handlers[method]
}
