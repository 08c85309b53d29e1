package session_test

import "testing"

// TestAcceptPassesWhatItRead: the messages Accept reads before the era is
// known reach the Conn as Accept decoded them: an invalid request is
// answered with its own id (what could be read of it travels with the
// error), a notification is handled, and initialize is answered. (The two
// answers are written by different goroutines, so in either order.)
func TestAcceptPassesWhatItRead(t *testing.T) {
	p := serve(t, newServer(nil, &toolServer{}))
	p.send(`{"jsonrpc":"1.0","id":7,"method":"tools/list"}`)
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	var invalid, initialized bool
	for range 2 {
		got := p.recv()
		switch got["id"] {
		case float64(7):
			e, ok := got["error"].(map[string]any)
			invalid = ok && e["code"] == float64(-32600)
		case float64(1):
			res, ok := got["result"].(map[string]any)
			initialized = ok && res["protocolVersion"] == "2025-11-25"
		}
		if !invalid && !initialized {
			t.Fatalf("unexpected answer %s", str(got))
		}
	}
	if !invalid || !initialized {
		t.Fatalf("answers: invalid request -32600 for id 7 %v, initialize %v", invalid, initialized)
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if got := p.recv(); got["id"] != float64(2) || got["result"] == nil {
		t.Fatalf("tools/list after initialize: %s", str(got))
	}
}
