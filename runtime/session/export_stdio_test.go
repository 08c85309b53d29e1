package session

// ServeBounded exposes ServeStdio's body on any transport to the tests.
var ServeBounded = (*Server).serve
