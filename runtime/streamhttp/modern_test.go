package streamhttp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

func TestModernValidation(t *testing.T) {
	// Both response modes: a rejection's status is decided before any
	// stream starts, so SSEResponses changes nothing here.
	for _, sse := range []bool{false, true} {
		t.Run(fmt.Sprintf("sse=%v", sse), func(t *testing.T) { testModernValidation(t, sse) })
	}
}

func testModernValidation(t *testing.T, sse bool) {
	f := newFixture(t, Options{SSEResponses: sse, ParamHeaders: func(tool string) []ParamHeader {
		if tool == "sql" {
			return []ParamHeader{{Name: "Region", Path: []string{"region"}}, {Name: "Limit", Path: []string{"opts", "limit"}}}
		}
		return nil
	}})
	call := func(name, args string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":` + name + `,"arguments":` + args + `,` + modernMeta + `}}`
	}
	with := func(extra map[string]string) map[string]string {
		h := modernHdr("tools/call")
		for k, v := range extra {
			h[k] = v
		}
		return h
	}
	cases := []struct {
		name   string
		hdr    map[string]string
		body   string
		status int
		code   int
	}{
		{"ok", with(map[string]string{HeaderName: "echo"}), call(`"echo"`, `{}`), 200, 0},
		{"base64 name", with(map[string]string{HeaderName: "=?base64?" + "SGVsbG8sIOS4lueVjA==" + "?="}), call(`"Hello, 世界"`, `{}`), 200, 0},
		{"no version header", with(map[string]string{HeaderProtocolVersion: "", HeaderName: "echo"}), call(`"echo"`, `{}`), 400, session.CodeHeaderMismatch},
		{"unsupported version", with(map[string]string{HeaderProtocolVersion: "2099-01-01", HeaderName: "echo"}), call(`"echo"`, `{}`), 400, session.CodeUnsupportedProtocolVersion},
		{"meta mismatch", with(map[string]string{HeaderName: "echo"}), strings.Replace(call(`"echo"`, `{}`), `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`, `"io.modelcontextprotocol/protocolVersion":"2025-11-25"`, 1), 400, session.CodeHeaderMismatch},
		// basic/index.mdx: a missing required _meta member is -32602 with 400.
		{"no meta", with(map[string]string{HeaderName: "echo"}), `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`, 400, jsonrpc2.CodeInvalidParams},
		{"no client capabilities", with(map[string]string{HeaderName: "echo"}), strings.Replace(call(`"echo"`, `{}`), `,"io.modelcontextprotocol/clientCapabilities":{}`, ``, 1), 400, jsonrpc2.CodeInvalidParams},
		{"removed ping", modernHdr("ping"), `{"jsonrpc":"2.0","id":1,"method":"ping","params":{` + modernMeta + `}}`, 404, jsonrpc2.CodeMethodNotFound},
		{"removed initialize", modernHdr("initialize"), `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{` + modernMeta + `}}`, 404, jsonrpc2.CodeMethodNotFound},
		{"removed resources/subscribe", modernHdr("resources/subscribe"), `{"jsonrpc":"2.0","id":1,"method":"resources/subscribe","params":{"uri":"x:y",` + modernMeta + `}}`, 404, jsonrpc2.CodeMethodNotFound},
		{"no Mcp-Method", with(map[string]string{HeaderMethod: "", HeaderName: "echo"}), call(`"echo"`, `{}`), 400, session.CodeHeaderMismatch},
		{"Mcp-Method mismatch", with(map[string]string{HeaderMethod: "tools/list", HeaderName: "echo"}), call(`"echo"`, `{}`), 400, session.CodeHeaderMismatch},
		{"no Mcp-Name", with(nil), call(`"echo"`, `{}`), 400, session.CodeHeaderMismatch},
		{"Mcp-Name mismatch", with(map[string]string{HeaderName: "other"}), call(`"echo"`, `{}`), 400, session.CodeHeaderMismatch},
		{"param ok", with(map[string]string{HeaderName: "sql", "Mcp-Param-Region": "us-west1", "Mcp-Param-Limit": "42.0"}), call(`"sql"`, `{"region":"us-west1","opts":{"limit":42}}`), 200, 0},
		{"param missing", with(map[string]string{HeaderName: "sql"}), call(`"sql"`, `{"region":"us-west1"}`), 400, session.CodeHeaderMismatch},
		{"param mismatch", with(map[string]string{HeaderName: "sql", "Mcp-Param-Region": "eu"}), call(`"sql"`, `{"region":"us-west1"}`), 400, session.CodeHeaderMismatch},
		{"param for absent value", with(map[string]string{HeaderName: "sql", "Mcp-Param-Region": "eu"}), call(`"sql"`, `{"region":null}`), 400, session.CodeHeaderMismatch},
		{"unknown method", modernHdr("nope/nope"), `{"jsonrpc":"2.0","id":1,"method":"nope/nope","params":{` + modernMeta + `}}`, 404, jsonrpc2.CodeMethodNotFound},
	}
	for _, c := range cases {
		resp := post(t, context.Background(), f.url, c.hdr, c.body)
		body := readAll(t, resp)
		var e struct {
			ID    json.RawMessage `json:"id"`
			Error *struct {
				Code int `json:"code"`
				Data struct {
					Supported []string `json:"supported"`
				} `json:"data"`
			} `json:"error"`
		}
		_ = json.Unmarshal([]byte(body), &e)
		switch {
		case resp.StatusCode != c.status:
			t.Errorf("%s: status %d, want %d (%s)", c.name, resp.StatusCode, c.status, body)
		case c.code == 0 && e.Error != nil:
			t.Errorf("%s: unexpected error %s", c.name, body)
		case c.code != 0 && (e.Error == nil || e.Error.Code != c.code || string(e.ID) != "1"):
			t.Errorf("%s: body %s, want error %d for id 1", c.name, body, c.code)
		case c.code == session.CodeUnsupportedProtocolVersion && len(e.Error.Data.Supported) == 0:
			t.Errorf("%s: no supported versions in %s", c.name, body)
		}
		if resp.Header.Get(HeaderSessionID) != "" {
			t.Errorf("%s: a modern response carries a session id", c.name)
		}
	}
}

// Closing a modern request's stream cancels its handler with the
// disconnect source; nothing is written after, and no
// notifications/cancelled goes anywhere.
func TestModernStreamCloseCancels(t *testing.T) {
	f := newFixture(t, Options{})
	ctx, drop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, f.url, strings.NewReader(`{"jsonrpc":"2.0","id":9,"method":"sleep","params":{`+modernMeta+`}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set(HeaderProtocolVersion, "2026-07-28")
		req.Header.Set(HeaderMethod, "sleep")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	waitFor(t, f.started, "sleep start")
	drop()
	e := waitFor(t, f.ended, "handler end")
	var ce *jsonrpc2.CancelError
	if !errors.As(e.cause, &ce) || ce.Source != jsonrpc2.SourceStreamClosed || ce.ID != jsonrpc2.Int64ID(9) {
		t.Fatalf("cause = %v, want the stream-disconnect source for id 9", e.cause)
	}
	if !strings.Contains(ce.Error(), "closed the request's stream") {
		t.Errorf("cause text %q does not say the stream closed", ce.Error())
	}
	if e.notifyErr == nil {
		t.Error("a notification after the stream closed was accepted")
	}
	<-done
	// Stray cancellations: 202, harmless.
	resp := post(t, context.Background(), f.url, modernHdr("notifications/cancelled"), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9,"reason":"x"}}`)
	if b := readAll(t, resp); resp.StatusCode != 202 || b != "" {
		t.Fatalf("stray cancel: %d %q", resp.StatusCode, b)
	}
	ctx2, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := f.h.Close(ctx2); err != nil {
		t.Fatal(err)
	}
	close(f.events)
	for ev := range f.events {
		if ev.Kind == jsonrpc2.EventSent {
			t.Errorf("the server sent a cancellation: %+v", ev)
		}
	}
}

// A stray notifications/cancelled naming a running request's id does not
// touch it: every modern request has its own Conn.
func TestModernStrayCancelIgnored(t *testing.T) {
	f := newFixture(t, Options{})
	resp := postAsync(context.Background(), f.url, modernHdr("sleep"), `{"jsonrpc":"2.0","id":4,"method":"sleep","params":{`+modernMeta+`}}`)
	waitFor(t, f.started, "sleep start")
	r := post(t, context.Background(), f.url, modernHdr("notifications/cancelled"), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}`)
	if readAll(t, r); r.StatusCode != 202 {
		t.Fatalf("status %d", r.StatusCode)
	}
	select {
	case e := <-f.ended:
		t.Fatalf("stray cancel ended the handler: %v", e.cause)
	default:
	}
	f.srv.CloseClientConnections() // ends the sleep by disconnect
	waitFor(t, f.ended, "handler end")
	if r := <-resp; r != nil {
		r.Body.Close()
	}
}

func TestModernListenStream(t *testing.T) {
	f := newFixture(t, Options{KeepAlive: 5 * time.Millisecond})
	ctx, drop := context.WithCancel(context.Background())
	defer drop()
	resp := post(t, ctx, f.url, modernHdr("subscriptions/listen"), `{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{`+modernMeta+`}}`)
	defer resp.Body.Close()
	if resp.Header.Get("Content-Type") != "text/event-stream" || resp.Header.Get("X-Accel-Buffering") != "no" {
		t.Fatalf("headers %v", resp.Header)
	}
	// Raw bytes: the notification, and keep-alive comments.
	buf := make([]byte, 0, 4096)
	tmp := make([]byte, 512)
	for !(strings.Contains(string(buf), "notifications/tools/list_changed") && strings.Contains(string(buf), "\n:\n")) {
		n, err := resp.Body.Read(tmp)
		if err != nil {
			t.Fatalf("read: %v (have %q)", err, buf)
		}
		buf = append(buf, tmp[:n]...)
	}
	drop()
	e := waitFor(t, f.ended, "listen end")
	var ce *jsonrpc2.CancelError
	if !errors.As(e.cause, &ce) || ce.Source != jsonrpc2.SourceStreamClosed {
		t.Fatalf("cause %v", e.cause)
	}
}

// A handler that notifies first gets an SSE response.
func TestModernSSEResponse(t *testing.T) {
	f := newFixture(t, Options{})
	resp := post(t, context.Background(), f.url, modernHdr("progress"), `{"jsonrpc":"2.0","id":2,"method":"progress","params":{`+modernMeta+`}}`)
	defer resp.Body.Close()
	s := newSSE(resp.Body)
	if e := s.next(t); !strings.Contains(e, "notifications/progress") {
		t.Fatal(e)
	}
	if e := s.next(t); e != `{"jsonrpc":"2.0","id":2,"result":{"done":"yes"}}` {
		t.Fatal(e)
	}
	req, _ := http.NewRequest(http.MethodGet, f.url, nil)
	req.Header.Set("Accept", "text/event-stream")
	g, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	g.Body.Close()
	if g.StatusCode != 400 { // dual-era: a GET without a session is a bad legacy request
		t.Errorf("GET without session: %d", g.StatusCode)
	}
}

func TestSSEResponsesOption(t *testing.T) {
	f := newFixture(t, Options{SSEResponses: true})
	resp := post(t, context.Background(), f.url, modernHdr("echo"), `{"jsonrpc":"2.0","id":2,"method":"echo","params":{`+modernMeta+`}}`)
	defer resp.Body.Close()
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("content type %q", resp.Header.Get("Content-Type"))
	}
	if e := newSSE(resp.Body).next(t); !strings.Contains(e, `"id":2,"result"`) {
		t.Fatal(e)
	}
}

// The server ending a listen stream (the one notifications/cancelled a
// modern server may send): the notification is the stream's last event,
// then the stream ends.
func TestModernListenEndedByServer(t *testing.T) {
	f := newFixture(t, Options{})
	resp := post(t, context.Background(), f.url, modernHdr("subscriptions/listen"), `{"jsonrpc":"2.0","id":"L","method":"subscriptions/listen","params":{`+modernMeta+`}}`)
	defer resp.Body.Close()
	s := newSSE(resp.Body)
	if e := s.next(t); !strings.Contains(e, "list_changed") {
		t.Fatal(e)
	}
	conn := waitFor(t, f.conns, "listen conn")
	waitFor(t, f.started, "listen handler")
	hctx := waitFor(t, f.ctxs, "listen handler's ctx")
	// The modern dispatcher serves every client's requests: a request is
	// named by its handler's ctx, not by its id, which another client may
	// use too.
	if err := conn.CancelRequest(hctx, "subscription torn down"); err != nil {
		t.Fatal(err)
	}
	if e := s.next(t); !strings.Contains(e, `"method":"notifications/cancelled"`) || !strings.Contains(e, `"requestId":"L"`) {
		t.Fatalf("got %s", e)
	}
	if _, more := <-s.ch; more {
		t.Fatal("an event followed the cancellation")
	}
	e := waitFor(t, f.ended, "listen handler end")
	var ce *jsonrpc2.CancelError
	if !errors.As(e.cause, &ce) || ce.Source != jsonrpc2.SourceLocal {
		t.Fatalf("cause %v", e.cause)
	}
}

// A modern-only handler answers GET and DELETE with 405 and never mints a
// session, whatever the request says.
func TestModernOnlyRefusesLegacyTraffic(t *testing.T) {
	f := newFixture(t, Options{LegacyVersions: []string{}})
	for _, m := range []string{http.MethodGet, http.MethodDelete} {
		req, _ := http.NewRequest(m, f.url, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set(HeaderSessionID, "whatever")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed {
			t.Errorf("%s: %d, want 405", m, resp.StatusCode)
		}
	}
	hdr := modernHdr("echo")
	hdr[HeaderSessionID] = "ignored"
	resp := post(t, context.Background(), f.url, hdr, `{"jsonrpc":"2.0","id":1,"method":"echo","params":{`+modernMeta+`}}`)
	if body := readAll(t, resp); resp.StatusCode != 200 || resp.Header.Get(HeaderSessionID) != "" {
		t.Fatalf("%d %v %s", resp.StatusCode, resp.Header, body)
	}
	// A legacy initialize gets a 400 with a non-modern error body, which is
	// what makes a dual-era client fall back... to nothing here.
	resp = post(t, context.Background(), f.url, nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	if readAll(t, resp); resp.StatusCode != 400 {
		t.Fatalf("initialize on a modern-only server: %d", resp.StatusCode)
	}
}

// A modern handler cannot send a request to the client (MRTR replaces
// that); the call fails at once instead of hanging.
func TestModernRefusesServerRequests(t *testing.T) {
	f := newFixture(t, Options{})
	resp := post(t, context.Background(), f.url, modernHdr("ask"), `{"jsonrpc":"2.0","id":1,"method":"ask","params":{`+modernMeta+`}}`)
	body := readAll(t, resp)
	if err := waitFor(t, f.answers, "ask outcome"); err == nil || !strings.Contains(err.Error(), "MRTR") && !strings.Contains(err.Error(), "InputRequiredResult") {
		t.Fatalf("server call: %v", err)
	}
	if !strings.Contains(body, `"error"`) {
		t.Fatalf("body %s", body)
	}
}

// Handler.Close waits for the Conn that serves modern requests, with
// requests still being served: once it returns nil it is closed, so no
// handler, observer or logger of its runs after it (the harness's observer
// would otherwise send on a channel the test has closed).
func TestCloseWaitsForModernRequests(t *testing.T) {
	f := newFixture(t, Options{})
	const n = 4
	for i := range n {
		resp := postAsync(context.Background(), f.url, modernHdr("sleep"), fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"sleep","params":{%s}}`, i, modernMeta))
		defer func() {
			if r := <-resp; r != nil {
				r.Body.Close()
			}
		}()
	}
	for range n {
		waitFor(t, f.started, "sleep start")
	}
	conns := []*jsonrpc2.Conn{waitFor(t, f.conns, "conn")} // one for them all
	select {
	case c := <-f.conns:
		t.Fatalf("a second Conn %p for modern requests", c)
	default:
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := f.h.Close(ctx); err != nil {
		t.Fatal(err)
	}
	for i, c := range conns {
		select {
		case <-c.Done():
		default:
			t.Errorf("conn %d still open after Handler.Close returned", i)
		}
	}
}

// The revision data decides what a modern request must carry: a Handler
// given a revision of its own (Options.Revisions) serves its version, asks
// Mcp-Name for the member its HTTPNameMembers names, and leaves Mcp-Method
// unchecked when its HTTPHeaders lack it; the default revisions are
// unchanged beside it.
func TestModernRevisionData(t *testing.T) {
	const v = "2099-01-01"
	own := session.Revision{Version: v, Modern: true,
		Lifecycle:       []string{session.MethodDiscover},
		HTTPHeaders:     []string{"MCP-Protocol-Version", HeaderName},
		HTTPNameMembers: map[string]string{"tools/call": "tool"}}
	f := newFixture(t, Options{Revisions: append(testRevs(), own)})
	meta := strings.Replace(modernMeta, "2026-07-28", v, 1)
	call := func(params string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{` + params + `,` + meta + `}}`
	}
	cases := []struct {
		name, mcpName, params string
		status                int
	}{
		{"own member", "a", `"tool":"a","name":"echo"`, 200},
		{"name is not the member", "echo", `"tool":"a","name":"echo"`, 400},
		{"member absent", "echo", `"name":"echo"`, 400},
	}
	for _, c := range cases {
		hdr := map[string]string{HeaderProtocolVersion: v, HeaderName: c.mcpName} // no Mcp-Method
		resp := post(t, context.Background(), f.url, hdr, call(c.params))
		if body := readAll(t, resp); resp.StatusCode != c.status {
			t.Errorf("%s: status %d, want %d (%s)", c.name, resp.StatusCode, c.status, body)
		}
	}
	// 2026-07-28 keeps its own rules on the same Handler.
	resp := post(t, context.Background(), f.url, map[string]string{HeaderProtocolVersion: "2026-07-28", HeaderName: "echo"},
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo",`+modernMeta+`}}`)
	if body := readAll(t, resp); resp.StatusCode != 400 {
		t.Errorf("2026-07-28 without Mcp-Method: status %d, want 400 (%s)", resp.StatusCode, body)
	}
	if got, want := Versions(append(testRevs(), own), EraModern), []string{v, "2026-07-28"}; !slices.Equal(got, want) {
		t.Errorf("Versions = %v, want %v", got, want)
	}
}

// TestForServer: a modern-only server's Handler names only the versions
// the server speaks in -32022, as its server/discover does.
func TestForRevisions(t *testing.T) {
	srv := session.NewServer(session.Implementation{Name: "t", Version: "1"}, testRevs()[0], func(*jsonrpc2.Conn) []string { return nil })
	opts := forRevisions(srv.Revisions(), Options{})
	if !slices.Equal(opts.ModernVersions, []string{"2026-07-28"}) || opts.LegacyVersions == nil || len(opts.LegacyVersions) != 0 {
		t.Errorf("modern %q legacy %q, want [2026-07-28] and none", opts.ModernVersions, opts.LegacyVersions)
	}
	if got := forRevisions(srv.Revisions(), Options{LegacyVersions: []string{"2025-11-25"}}).LegacyVersions; !slices.Equal(got, []string{"2025-11-25"}) {
		t.Errorf("an explicit LegacyVersions was replaced: %q", got)
	}
}

// TestRemovedMethod: only what 2026-07-28 removed is refused up front;
// tasks/*, which legacy revisions had in the core and the tasks extension
// serves to modern clients, is not.
func TestRemovedMethod(t *testing.T) {
	revs := append(testRevs(), session.Revision{Version: "2025-11-25", ServerMethods: map[string]string{"tasks/get": "GetTask", "resources/subscribe": "Subscribe"}})
	for method, want := range map[string]bool{"ping": true, "initialize": true, "logging/setLevel": true, "resources/subscribe": true,
		"resources/unsubscribe": true, "tasks/get": false, "tools/call": false, "nope/nope": false} {
		if got := removedMethod(revs, "2026-07-28", method); got != want {
			t.Errorf("%s: removed %v, want %v", method, got, want)
		}
	}
	if removedMethod(revs, "2025-11-25", "ping") {
		t.Error("ping removed at 2025-11-25")
	}
}
