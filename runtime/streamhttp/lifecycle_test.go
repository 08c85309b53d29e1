package streamhttp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// These tests serve a real session.Server (the lifecycle layer) through
// NewHandler and watch raw HTTP: the session package answers
// initialize, server/discover and the version checks; the handler below
// only knows tools/call. The revisions are written out (as the harness's
// policies are) so the runtime's tests do not depend on generated code.

func legacyRevision() session.Revision {
	return withHTTPFacts(session.Revision{Version: "2025-11-25", Policy: legacyPolicy,
		Lifecycle:     []string{session.MethodInitialize, session.MethodInitialized, session.MethodPing, session.MethodSetLevel},
		ServerMethods: map[string]string{"tools/call": "CallTool"},
		Capabilities:  map[string]string{"tools/call": "tools"}})
}

func modernRevision() session.Revision {
	return withHTTPFacts(session.Revision{Version: "2026-07-28", Modern: true, Policy: modernPolicy,
		Lifecycle:        []string{session.MethodDiscover, session.MethodSubscriptionsListen},
		ServerMethods:    map[string]string{"tools/call": "CallTool"},
		Capabilities:     map[string]string{"tools/call": "tools"},
		CacheableResults: map[string]bool{"server/discover": true}})
}

// lifecycleFixture is a dual-era session.Server behind NewHandler.
// Its tools/call answers "echo" at once; "block" reports its start and
// waits for its ctx, then reports the cause.
type lifecycleFixture struct {
	url     string
	h       *Handler
	started chan string
	causes  chan error
	srv     *session.Server
}

func newLifecycleFixture(t *testing.T, opts Options) *lifecycleFixture {
	t.Helper()
	f := &lifecycleFixture{started: make(chan string, 16), causes: make(chan error, 16)}
	register := func(c *jsonrpc2.Conn) []string {
		if c == nil {
			return []string{"tools/call"}
		}
		c.Handle("tools/call", func(ctx context.Context, r *jsonrpc2.Request) (any, error) {
			var p struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(r.Params, &p)
			if p.Name == "block" {
				f.started <- r.ID.String()
				<-ctx.Done()
				f.causes <- context.Cause(ctx)
				return nil, context.Cause(ctx)
			}
			return map[string]any{"content": []any{map[string]string{"type": "text", "text": "echoed " + p.Name}}}, nil
		})
		return []string{"tools/call"}
	}
	srv := session.NewServer(session.Implementation{Name: "lifecycle-test", Version: "0"}, modernRevision(), register,
		session.WithLegacy(legacyRevision()), session.WithLogger(quiet()))
	f.srv = srv
	return f.serve(t, srv, opts)
}

func (f *lifecycleFixture) serve(t *testing.T, srv Lifecycle, opts Options) *lifecycleFixture {
	t.Helper()
	if opts.Logger == nil {
		opts.Logger = quiet()
	}
	f.h = NewHandler(srv, opts)
	late := &lateWrites{next: f.h}
	hs := httptest.NewServer(late)
	f.url = hs.URL + "/mcp"
	t.Cleanup(func() {
		hs.CloseClientConnections()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := f.h.Close(ctx); err != nil {
			t.Errorf("Handler.Close: %v", err)
		}
		hs.Close()
		if n := late.count(); n > 0 {
			t.Errorf("%d writes after ServeHTTP returned", n)
		}
	})
	return f
}

// bounded is a context for one exchange: a refused first message must be
// answered, and a hang fails the test instead of stalling it.
func bounded(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// rpcBody is one JSON-RPC response, from a JSON body or the last data line
// of an SSE body.
func rpcBody(t *testing.T, resp *http.Response) (string, map[string]json.RawMessage) {
	t.Helper()
	body := readAll(t, resp)
	data := body
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, l := range strings.Split(body, "\n") {
			if d, ok := strings.CutPrefix(l, "data:"); ok && strings.Contains(d, `"id"`) {
				data = strings.TrimSpace(d)
			}
		}
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(data), &m); err != nil {
		t.Fatalf("response %d %q: %v", resp.StatusCode, body, err)
	}
	return body, m
}

func TestLifecycleLegacySession(t *testing.T) {
	f := newLifecycleFixture(t, Options{})
	ctx := bounded(t)
	resp := post(t, ctx, f.url, nil,
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	body, m := rpcBody(t, resp)
	sid := resp.Header.Get(HeaderSessionID)
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: %d session %q %s", resp.StatusCode, sid, body)
	}
	var res struct {
		ProtocolVersion string                     `json:"protocolVersion"`
		ServerInfo      session.Implementation     `json:"serverInfo"`
		Capabilities    map[string]json.RawMessage `json:"capabilities"`
	}
	if err := json.Unmarshal(m["result"], &res); err != nil || res.ProtocolVersion != "2025-11-25" ||
		res.ServerInfo.Name != "lifecycle-test" || res.Capabilities["tools"] == nil {
		t.Fatalf("initialize result (the session's, with the tools capability derived): %s", body)
	}
	resp = post(t, ctx, f.url, legacyHdr(sid), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if b := readAll(t, resp); resp.StatusCode != 202 {
		t.Fatalf("initialized: %d %q", resp.StatusCode, b)
	}
	resp = post(t, ctx, f.url, legacyHdr(sid),
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{}}}`)
	if body := readAll(t, resp); resp.StatusCode != 200 || !strings.Contains(body, `"echoed echo"`) || !strings.Contains(body, `"id":1`) {
		t.Fatalf("tools/call in the session: %d %s", resp.StatusCode, body)
	}
	// The session's Conn applies the client's cancellation with its reason:
	// the legacy Policy survived the lifecycle's wrapping of the transport.
	done := postAsync(ctx, f.url, legacyHdr(sid),
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"block","arguments":{}}}`)
	waitFor(t, f.started, "block to start")
	resp = post(t, ctx, f.url, legacyHdr(sid),
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"test gave up"}}`)
	if b := readAll(t, resp); resp.StatusCode != 202 {
		t.Fatalf("notifications/cancelled: %d %q", resp.StatusCode, b)
	}
	var ce *jsonrpc2.CancelError
	if cause := waitFor(t, f.causes, "block's cause"); !errors.As(cause, &ce) || ce.Source != jsonrpc2.SourcePeer || ce.Reason != "test gave up" {
		t.Fatalf("cause %v, want the peer's cancellation", cause)
	}
	if r := waitFor(t, done, "the cancelled request's POST"); r != nil {
		if b := readAll(t, r); strings.Contains(b, `"id":2`) {
			t.Fatalf("a response followed the cancellation: %s", b)
		}
	}

	req, _ := http.NewRequestWithContext(ctx, http.MethodDelete, f.url, nil)
	req.Header.Set(HeaderSessionID, sid)
	req.Header.Set(HeaderProtocolVersion, "2025-11-25")
	dr, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, dr)
	if dr.StatusCode/100 != 2 {
		t.Fatalf("DELETE: %d", dr.StatusCode)
	}
	resp = post(t, ctx, f.url, legacyHdr(sid), `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo"}}`)
	if b := readAll(t, resp); resp.StatusCode != 404 {
		t.Fatalf("request in a deleted session: %d %s", resp.StatusCode, b)
	}
}

func TestLifecycleModernRequests(t *testing.T) {
	f := newLifecycleFixture(t, Options{})
	ctx := bounded(t)
	resp := post(t, ctx, f.url, modernHdr("server/discover"),
		`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+modernMeta+`}}`)
	body, m := rpcBody(t, resp)
	if resp.StatusCode != 200 || resp.Header.Get(HeaderSessionID) != "" {
		t.Fatalf("server/discover: %d session %q %s", resp.StatusCode, resp.Header.Get(HeaderSessionID), body)
	}
	var disc struct {
		SupportedVersions []string                   `json:"supportedVersions"`
		Capabilities      map[string]json.RawMessage `json:"capabilities"`
		Meta              struct {
			ServerInfo session.Implementation `json:"io.modelcontextprotocol/serverInfo"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(m["result"], &disc); err != nil || strings.Join(disc.SupportedVersions, ",") != "2026-07-28,2025-11-25" ||
		disc.Capabilities["tools"] == nil || disc.Meta.ServerInfo.Name != "lifecycle-test" {
		t.Fatalf("server/discover result (the session's): %s", body)
	}

	hdr := modernHdr("tools/call")
	hdr[HeaderName] = "echo"
	resp = post(t, ctx, f.url, hdr,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{},`+modernMeta+`}}`)
	if body := readAll(t, resp); resp.StatusCode != 200 || !strings.Contains(body, `"echoed echo"`) {
		t.Fatalf("modern tools/call: %d %s", resp.StatusCode, body)
	}

	// Closing the response stream is the cancellation: the modern Policy and
	// the transport's disconnect seam survive the lifecycle's wrapping.
	hdr[HeaderName] = "block"
	cctx, cancel := context.WithCancel(ctx)
	done := postAsync(cctx, f.url, hdr,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"block","arguments":{},`+modernMeta+`}}`)
	waitFor(t, f.started, "block to start")
	cancel()
	var ce *jsonrpc2.CancelError
	if cause := waitFor(t, f.causes, "block's cause"); !errors.As(cause, &ce) || ce.Source != jsonrpc2.SourceStreamClosed {
		t.Fatalf("cause %v, want the stream's disconnect", cause)
	}
	if r := waitFor(t, done, "the aborted POST"); r != nil {
		r.Body.Close()
	}
}

// refusing is a Lifecycle that reads the first message and refuses it,
// and lists no revisions (Options give them). Adopt and RefreshLegacy, of
// the embedded nil Lifecycle, are never called: no cluster here.
type refusing struct {
	Lifecycle
	read chan []byte
}

func (r refusing) Revisions() []session.Revision { return nil }

func (r refusing) Dispatcher(jsonrpc2.Transport) (*jsonrpc2.Conn, error) {
	return nil, errors.New("refused for the test")
}

func (r refusing) Accept(ctx context.Context, t jsonrpc2.Transport) (*jsonrpc2.Conn, error) {
	msg, err := t.Read(ctx)
	if err != nil {
		return nil, err
	}
	r.read <- msg
	return nil, errors.New("refused for the test")
}

func TestLifecycleRefusedFirstMessage(t *testing.T) {
	t.Run("lifecycle error", func(t *testing.T) {
		lc := refusing{read: make(chan []byte, 4)}
		f := (&lifecycleFixture{}).serve(t, lc, Options{Revisions: testRevs()})
		ctx := bounded(t)
		resp := post(t, ctx, f.url, nil,
			`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
		body, m := rpcBody(t, resp)
		if resp.StatusCode != 500 || m["error"] == nil || string(m["id"]) != "7" {
			t.Fatalf("refused initialize: %d %s", resp.StatusCode, body)
		}
		if got := string(waitFor(t, lc.read, "the message Accept read")); !strings.Contains(got, `"initialize"`) {
			t.Fatalf("Accept read %s", got)
		}
		if n := f.h.Sessions(); n != 0 {
			t.Fatalf("%d sessions kept after a refused initialize", n)
		}
		if sid := resp.Header.Get(HeaderSessionID); sid != "" {
			resp = post(t, ctx, f.url, legacyHdr(sid), `{"jsonrpc":"2.0","id":8,"method":"ping"}`)
			if b := readAll(t, resp); resp.StatusCode != 404 {
				t.Fatalf("the refused session answers: %d %s", resp.StatusCode, b)
			}
		}

		resp = post(t, ctx, f.url, modernHdr("server/discover"),
			`{"jsonrpc":"2.0","id":9,"method":"server/discover","params":{`+modernMeta+`}}`)
		body, m = rpcBody(t, resp)
		if resp.StatusCode != 500 || m["error"] == nil || string(m["id"]) != "9" {
			t.Fatalf("refused modern request: %d %s", resp.StatusCode, body)
		}
	})

	// The transport serves a modern version the session.Server does not
	// speak: the dispatcher's session view answers -32022 on the request's
	// own stream, so the client gets the answer instead of a hang.
	t.Run("version the lifecycle does not speak", func(t *testing.T) {
		f := newLifecycleFixture(t, Options{ModernVersions: []string{"2027-01-01", "2026-07-28"}})
		ctx := bounded(t)
		hdr := modernHdr("tools/call")
		hdr[HeaderProtocolVersion] = "2027-01-01"
		hdr[HeaderName] = "echo"
		meta := strings.Replace(modernMeta, "2026-07-28", "2027-01-01", 1)
		resp := post(t, ctx, f.url, hdr, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"echo",`+meta+`}}`)
		body, m := rpcBody(t, resp)
		var e jsonrpc2.Error
		if err := json.Unmarshal(m["error"], &e); err != nil || e.Code != session.CodeUnsupportedProtocolVersion || string(m["id"]) != "4" {
			t.Fatalf("unspoken version: %d %s", resp.StatusCode, body)
		}
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("status %d for -32022, want 400", resp.StatusCode)
		}
	})
}
