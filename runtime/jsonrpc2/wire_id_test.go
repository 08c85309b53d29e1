package jsonrpc2

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// Must-show 1: ids keep their JSON kind and digits on the wire; ids that are
// not a string or an integer get -32600 with id null.
func TestWireRequestIDsExact(t *testing.T) {
	p := newRawPeer(t)
	p.conn.Handle("echo", func(ctx context.Context, req *Request) (any, error) {
		return map[string]string{"id": req.ID.String()}, nil
	})
	for _, id := range []string{`"7"`, `7`, `9007199254740993`, `123456789012345678901234567890`, `-0`, `"\u00e9\n"`} {
		p.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"echo"}`)
		l := p.next()
		want := `{"jsonrpc":"2.0","id":` + id + `,"result":`
		if id == `"\u00e9\n"` {
			want = `{"jsonrpc":"2.0","id":"é\n","result":`
		}
		if !strings.HasPrefix(l, want) {
			t.Errorf("id %s answered with %s", id, l)
		}
	}
	for _, bad := range []string{`1.5`, `7.0`, `1e3`, `true`, `null`, `{"a":1}`, `[7]`} {
		p.send(`{"jsonrpc":"2.0","id":` + bad + `,"method":"echo"}`)
		m := p.nextJSON()
		e, _ := m["error"].(map[string]any)
		if m["id"] != nil || e == nil || e["code"] != json.Number("-32600") {
			t.Errorf("id %s: got %v, want -32600 with id null", bad, m)
		}
	}
	if rest := p.sync("after"); len(rest) != 0 {
		t.Errorf("unexpected lines %q", rest)
	}
}

// Must-show 1: "7" and 7 are different requests, and a cancellation naming
// an id that is not a string or integer is ignored and logged.
func TestWireCancelMatchesIDKindExactly(t *testing.T) {
	logs := &logCapture{}
	events := newEventLog()
	p := newRawPeer(t, WithLogger(slogOf(logs)), WithObserver(events.observe))
	started := make(chan string, 2)
	p.conn.Handle("wait", func(ctx context.Context, req *Request) (any, error) {
		started <- req.ID.String()
		<-ctx.Done()
		return "late", nil
	})
	p.conn.Handle("block", func(ctx context.Context, req *Request) (any, error) {
		started <- req.ID.String()
		<-ctx.Done()
		return "late", nil
	})
	p.send(`{"jsonrpc":"2.0","id":"7","method":"wait"}`)
	p.send(`{"jsonrpc":"2.0","id":7,"method":"block"}`)
	<-started
	<-started
	for _, bad := range []string{`7.9`, `true`, `null`, `[7]`} {
		p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + bad + `}}`)
		ev := events.waitFor(t, func(e Event) bool { return e.Kind == EventIgnored })
		if ev.Why != IgnoreMalformed || !strings.Contains(ev.Detail, "requestId") {
			t.Errorf("requestId %s: event %+v", bad, ev)
		}
	}
	if !logs.contains("cancellation ignored", "why=malformed notification", "/params/requestId: must be a string or an integer") {
		t.Errorf("ignored cancellation not logged: %q", logs.records)
	}
	// 7.0 is the integer 7 to JSON Schema, so the revision's decoder (and
	// with it the runtime) reads it as a cancellation of request 7, never
	// of "7".
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7.0,"reason":"integer one only"}}`)
	ev := events.waitFor(t, func(e Event) bool { return e.Kind == EventApplied })
	if ev.ID != Int64ID(7) || ev.Method != "block" {
		t.Fatalf("applied to %+v", ev)
	}
	p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"7","reason":"string one only"}}`)
	ev = events.waitFor(t, func(e Event) bool { return e.Kind == EventApplied })
	if ev.ID != StringID("7") || ev.Method != "wait" {
		t.Fatalf("applied to %+v", ev)
	}
	rest := p.closeAndDrain()
	// Neither cancelled request may answer.
	for _, l := range rest {
		if strings.Contains(l, `"result"`) {
			t.Errorf("cancelled request answered: %s", l)
		}
	}
}
