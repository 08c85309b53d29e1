package streamhttp

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"sync"

	"github.com/mcpgen/mcpgen/internal/jsonscan"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// errNoServerRequests refuses a server-to-client request on a modern
// stream: 2026-07-28 embeds them in results (MRTR) instead.
var errNoServerRequests = errors.New("streamhttp: the modern era has no server-to-client requests on Streamable HTTP (use an InputRequiredResult)")

// requestTransport is the jsonrpc2.Transport of the Conn serving one modern
// request: reading yields that request once, decoded as the Handler decoded
// it (jsonrpc2.MessageReader), and Write puts messages on its response
// stream.
type requestTransport struct {
	m    *jsonrpc2.Message // the request, decoded by Handler.post
	data []byte            // its bytes, for Read
	st   *stream
	read bool
	// routed is closed when the Conn asks for a message after the request:
	// by then its read loop has put the request in its in-flight table, so
	// a disconnect reported from then on finds it.
	routed     chan struct{}
	routedDone bool // only the reading goroutine touches it
	closed     chan struct{}
	once       sync.Once
	onDisc     func(jsonrpc2.RequestID)
	// base holds the HTTP request's values (not its cancellation) for the
	// handler: the verified identity of an authorized request, for one.
	base context.Context
}

// BaseContext implements jsonrpc2.ContextTransport.
func (t *requestTransport) BaseContext() context.Context {
	if t.base == nil {
		return context.Background()
	}
	return t.base
}

// ReadMessage implements jsonrpc2.MessageReader: the request, then nothing
// until Close. It must not report EOF earlier, since EOF shuts the Conn down
// and would cancel the handler for the wrong reason.
func (t *requestTransport) ReadMessage(ctx context.Context) (*jsonrpc2.Message, error) {
	if !t.read {
		t.read = true
		return t.m, nil
	}
	if accepting(ctx) {
		return nil, errUndecided
	}
	if !t.routedDone {
		t.routedDone = true
		close(t.routed)
	}
	select {
	case <-t.closed:
		return nil, io.EOF
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Read implements jsonrpc2.Transport, for a reader that wants the bytes
// (the Conn reads through ReadMessage).
func (t *requestTransport) Read(ctx context.Context) ([]byte, error) {
	if _, err := t.ReadMessage(ctx); err != nil {
		return nil, err
	}
	return t.data, nil
}

// Write implements jsonrpc2.Transport.
func (t *requestTransport) Write(ctx context.Context, msg []byte) error {
	if handlerDone(ctx) {
		return errStreamClosed
	}
	m, derr := jsonrpc2.DecodeMessage(msg)
	if derr != nil {
		return derr
	}
	switch m.Kind {
	case jsonrpc2.KindResponse, jsonrpc2.KindErrorResponse:
		if m.ID != t.m.ID {
			return errStreamClosed
		}
		return t.st.send(msg, true)
	case jsonrpc2.KindNotification:
		if m.Method == "notifications/cancelled" {
			// The one notifications/cancelled a modern server sends: ending
			// a subscriptions/listen stream. Nothing may follow it.
			return t.st.send(msg, true)
		}
		return t.st.send(msg, false)
	case jsonrpc2.KindRequest:
		return errNoServerRequests
	}
	return errors.New("streamhttp: refusing to write an invalid message")
}

// Close implements jsonrpc2.Transport.
func (t *requestTransport) Close() error {
	t.once.Do(func() { close(t.closed) })
	return nil
}

// OnRequestDisconnect implements jsonrpc2.DisconnectNotifier.
func (t *requestTransport) OnRequestDisconnect(f func(jsonrpc2.RequestID)) { t.onDisc = f }

// disconnected reports the closed stream to conn, once its read loop has
// routed the request: a client that gives up at once can close the stream
// before that, and a disconnect reported then would find no request to
// cancel (the handler would start afterwards and run until the Conn
// closes, cancelled for the wrong reason). It stops waiting when the Conn
// shuts down or stop is closed (the Handler closing).
func (t *requestTransport) disconnected(conn *jsonrpc2.Conn, stop <-chan struct{}) {
	select {
	case <-t.routed:
	case <-conn.Done():
	case <-stop:
	}
	t.onDisc(t.m.ID)
}

// modernStatus maps a final message written as plain JSON to its HTTP
// status: the modern errors that reject a request are 400, an unknown method
// is 404 (streamable-http.mdx), everything else 200.
func modernStatus(msg []byte) int {
	var e struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(msg, &e) != nil || e.Error == nil {
		return http.StatusOK
	}
	switch {
	case e.Error.Code == jsonrpc2.CodeMethodNotFound:
		return http.StatusNotFound
	case isModernCode(e.Error.Code):
		return http.StatusBadRequest
	}
	return http.StatusOK
}

func (h *Handler) modernPost(w http.ResponseWriter, r *http.Request, m *jsonrpc2.Message, data []byte,
	version, metaVersion string, hasMeta bool, p peek, paramsOK bool) {
	switch m.Kind {
	case jsonrpc2.KindNotification:
		// 2026-07-28 defines no client notifications over HTTP. A stray
		// notifications/cancelled in particular names no request we could
		// find (every request has its own Conn) and must not cancel one of
		// another client's: accept it and drop it.
		h.log.Debug("modern notification ignored", "method", m.Method)
		w.WriteHeader(http.StatusAccepted)
		return
	case jsonrpc2.KindResponse, jsonrpc2.KindErrorResponse:
		writeError(w, http.StatusBadRequest, jsonrpc2.RequestID{}, jsonrpc2.CodeInvalidRequest, "clients must not send responses to a modern server", nil)
		return
	}
	if msg, code, data := h.validateModern(r.Header, m, version, metaVersion, hasMeta, p, paramsOK); msg != "" {
		writeError(w, http.StatusBadRequest, m.ID, code, msg, data)
		return
	}
	if removedMethod(h.opts.Revisions, version, m.Method) {
		// Decided here, before any stream starts, so that the 404 holds in
		// SSE response mode too.
		writeError(w, http.StatusNotFound, m.ID, jsonrpc2.CodeMethodNotFound, "Method not found: "+m.Method+" is not part of protocol version "+version, nil)
		return
	}
	if !h.enter() {
		writeError(w, http.StatusServiceUnavailable, m.ID, jsonrpc2.CodeInternalError, "server is shutting down", nil)
		return
	}
	defer h.bg.Done()
	if !h.acceptStream(w, m.ID) {
		return
	}
	defer h.releaseStream()
	st := newStream(w, !h.opts.SSEResponses, h.opts.WriteTimeout)
	st.status = modernStatus
	t := &requestTransport{m: m, data: data, st: st, routed: make(chan struct{}), closed: make(chan struct{}), base: context.WithoutCancel(r.Context())}
	conn := h.newConn(t, EraModern)
	if conn == nil {
		if !st.finished() { // a lifecycle layer may have answered (a JSON answer leaves written() false)
			writeError(w, http.StatusInternalServerError, m.ID, jsonrpc2.CodeInternalError, "request refused", nil)
		}
		return
	}
	if m.Method == session.MethodSubscriptionsListen && revisionFor(h.opts.Revisions, version, true).HasLifecycle(session.MethodSubscriptionsListen) {
		_ = st.openSSE() // long-lived: headers (and X-Accel-Buffering) now
	}
	conn.Start()
	gone := h.wait(r, st, nil)
	if gone && t.onDisc != nil {
		// The cancellation itself: the Policy (DisconnectIsCancellation)
		// makes the Conn cancel the handler with SourceStreamClosed. The
		// stream is already marked closed, so nothing is written after.
		t.disconnected(conn, h.ctx.Done())
		yieldToCancelled()
	}
	h.background(func() {
		t.Close()
		ctx, cancel := context.WithTimeout(context.Background(), h.opts.ShutdownTimeout)
		defer cancel()
		if err := conn.Close(ctx); err != nil {
			h.log.Warn("request handler still running after close", "id", m.ID.String(), "error", err)
		}
	})
}

// isObject reports whether raw is a JSON object.
func isObject(raw json.RawMessage) bool {
	t := jsonscan.Trim(raw)
	return len(t) > 0 && t[0] == '{'
}

// removedMethod reports whether method is one of the requests the modern
// revision version removed (session.Revision.RemovedMethods, generated
// from the revision table: for 2026-07-28 initialize, ping,
// logging/setLevel, resources/subscribe, resources/unsubscribe) and does
// not define again. A modern request for one is answered 404 with -32601
// (streamable-http.mdx), whatever would answer it for a legacy client.
// Other unknown methods (an extension's, say) are the lifecycle layer's to
// answer.
func removedMethod(revs []session.Revision, version, method string) bool {
	for _, r := range revs {
		if r.Version == version && !r.Modern {
			return false // a legacy revision removed nothing of its era
		}
	}
	rev := revisionFor(revs, version, true)
	if !slices.Contains(rev.RemovedMethods, method) {
		return false
	}
	_, ok := rev.ServerMethods[method]
	return !ok && !rev.HasLifecycle(method)
}

// validateModern applies streamable-http.mdx's server validation. It returns
// an empty message when the request may proceed.
func (h *Handler) validateModern(hd http.Header, m *jsonrpc2.Message, version, metaVersion string, hasMeta bool, p peek, paramsOK bool) (string, int, any) {
	if version == "" {
		return "Header mismatch: MCP-Protocol-Version header is required", CodeHeaderMismatch, nil
	}
	if !slices.Contains(h.opts.ModernVersions, version) {
		supported := append(slices.Clone(h.opts.ModernVersions), h.opts.LegacyVersions...)
		return "Unsupported protocol version", session.CodeUnsupportedProtocolVersion,
			map[string]any{"supported": supported, "requested": version}
	}
	if !paramsOK {
		return "Invalid params: params must be an object with string name/uri", jsonrpc2.CodeInvalidParams, nil
	}
	if !hasMeta {
		// basic/index.mdx: _meta and its protocolVersion are required
		// params, so their absence is Invalid params (400), not a mismatch.
		return "Invalid params: params._meta is missing " + session.MetaProtocolVersion, jsonrpc2.CodeInvalidParams, nil
	}
	rev := revisionFor(h.opts.Revisions, version, true)
	if metaVersion != version {
		return "Header mismatch: MCP-Protocol-Version header value '" + version + "' does not match body value '" + metaVersion + "'", CodeHeaderMismatch, nil
	}
	if caps, ok := p.metaMember(session.MetaClientCapabilities); !ok || !isObject(caps) {
		return "Invalid params: params._meta is missing the " + session.MetaClientCapabilities + " object", jsonrpc2.CodeInvalidParams, nil
	}
	if got := hd.Values(HeaderMethod); rev.HasHTTPHeader(HeaderMethod) && (len(got) != 1 || got[0] != m.Method) {
		return "Header mismatch: Mcp-Method header must be present once and equal the body's method '" + m.Method + "'", CodeHeaderMismatch, nil
	}
	if member, named := nameMember(rev, m.Method); named {
		want := p.stringMember(m.Params, member)
		got := hd.Values(HeaderName)
		if len(got) != 1 {
			return "Header mismatch: Mcp-Name header is required for " + m.Method, CodeHeaderMismatch, nil
		}
		v, ok := decodeHeaderValue(got[0])
		if !ok {
			return "Header mismatch: Mcp-Name header value is malformed", CodeHeaderMismatch, nil
		}
		if want == nil || v != *want {
			return "Header mismatch: Mcp-Name header value does not match the body", CodeHeaderMismatch, nil
		}
	}
	if m.Method == "tools/call" && rev.HasHTTPHeader(HeaderParamPrefix) && h.opts.ParamHeaders != nil && p.Name != nil {
		if msg := checkParamHeaders(hd, h.opts.ParamHeaders(*p.Name), p.Arguments); msg != "" {
			return "Header mismatch: " + msg, CodeHeaderMismatch, nil
		}
	}
	return "", 0, nil
}

// handlerDone reports whether ctx is the context of a handler that has been
// cancelled or has answered. Whatever such a handler still sends (a late
// progress notification) must not reach the wire: it could otherwise slip
// in before the runtime's own notifications/cancelled, or after the stream
// was meant to end.
func handlerDone(ctx context.Context) bool {
	_, ok := jsonrpc2.RequestFromContext(ctx)
	return ok && ctx.Err() != nil
}
