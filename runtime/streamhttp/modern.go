package streamhttp

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// errNoServerRequests refuses a server-to-client request on a modern
// stream: 2026-07-28 embeds them in results (MRTR) instead.
var errNoServerRequests = errors.New("streamhttp: the modern era has no server-to-client requests on Streamable HTTP (use an InputRequiredResult)")

// modernWriter is the jsonrpc2.MessageWriter of one modern request
// delivered to the Handler's dispatcher Conn: it puts the request's
// response, and what its handler sends meanwhile, on the POST's response
// stream. Each message arrives described (jsonrpc2.OutMessage), so nothing
// is decoded here.
type modernWriter struct {
	st *stream
	// cancelled is the Policy's cancellation method: the one notification
	// a modern server sends that ends a stream (tearing down a
	// subscriptions/listen, cancellation.mdx), after which nothing follows.
	cancelled string
}

// WriteMessage implements jsonrpc2.MessageWriter.
func (w *modernWriter) WriteMessage(_ context.Context, m *jsonrpc2.OutMessage) error {
	switch m.Kind {
	case jsonrpc2.KindResponse:
		return w.st.sendFinal(m.Data, http.StatusOK)
	case jsonrpc2.KindErrorResponse:
		return w.st.sendFinal(m.Data, modernStatus(m.Code))
	case jsonrpc2.KindNotification:
		if m.Method == w.cancelled && !m.ID.IsZero() {
			return w.st.send(m.Data, true)
		}
		return w.st.send(m.Data, false)
	case jsonrpc2.KindRequest:
		return errNoServerRequests
	}
	return errors.New("streamhttp: refusing to write an invalid message")
}

// modernStatus maps the error code of a modern request's final error
// response, written as plain JSON, to its HTTP status: the modern errors
// that reject a request are 400, an unknown method is 404
// (streamable-http.mdx), everything else 200.
func modernStatus(code int) int {
	switch {
	case code == jsonrpc2.CodeMethodNotFound:
		return http.StatusNotFound
	case isModernCode(code):
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// dispatcher returns the one Conn that serves every modern request of the
// Handler (built by the ConnFactory for EraModern on first use, over
// jsonrpc2.NoTransport), or nil when the factory refused.
func (h *Handler) dispatcher() *jsonrpc2.Conn {
	h.dispOnce.Do(func() {
		conn := h.newConn(context.Background(), jsonrpc2.NoTransport(), EraModern)
		if conn == nil {
			return
		}
		conn.Start()
		h.disp = conn
	})
	return h.disp
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
	disp := h.dispatcher()
	if disp == nil {
		writeError(w, http.StatusInternalServerError, m.ID, jsonrpc2.CodeInternalError, "request refused", nil)
		return
	}
	st := newStream(w, !h.opts.SSEResponses, h.opts.WriteTimeout)
	if m.Method == session.MethodSubscriptionsListen && revisionFor(h.opts.Revisions, version, true).HasLifecycle(session.MethodSubscriptionsListen) {
		_ = st.openSSE() // long-lived: headers (and X-Accel-Buffering) now
	}
	// The HTTP request's values (the verified identity, for one) reach
	// the handler; its cancellation does not: in this era the client
	// cancels by closing the stream, which wait sees.
	h.drainTrack(st, m, nil)
	defer h.drainUntrack(st)
	// Decided: validateModern found the header and params._meta agreeing
	// on a version this server speaks. The session takes it from here.
	m.Version = version
	d := disp.Deliver(r.Context(), m, &modernWriter{st: st, cancelled: disp.Policy().CancelledMethod})
	if d == nil {
		return // refused, and answered on st
	}
	if h.wait(r, st, nil) {
		// The cancellation itself: the Policy (DisconnectIsCancellation)
		// makes the Conn cancel the handler with SourceStreamClosed. The
		// stream is already marked closed, so nothing is written after.
		d.StreamClosed()
		yieldToCancelled()
	}
}

// checkToolParamHeaders is checkParamHeaders for the tool a tools/call
// names, when it names one.
func checkToolParamHeaders(hd http.Header, headers func(tool string) []ParamHeader, p peek) string {
	name, ok := p.nameOf()
	if !ok {
		return ""
	}
	return checkParamHeaders(hd, headers(name), p.Arguments)
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
		return "Header mismatch: MCP-Protocol-Version header is required", session.CodeHeaderMismatch, nil
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
		return "Header mismatch: MCP-Protocol-Version header value '" + version + "' does not match body value '" + metaVersion + "'", session.CodeHeaderMismatch, nil
	}
	if caps, ok := p.metaMember(session.MetaClientCapabilities); !ok || !isObject(caps) {
		return "Invalid params: params._meta is missing the " + session.MetaClientCapabilities + " object", jsonrpc2.CodeInvalidParams, nil
	}
	if got := hd.Values(HeaderMethod); rev.HasHTTPHeader(HeaderMethod) && (len(got) != 1 || got[0] != m.Method) {
		return "Header mismatch: Mcp-Method header must be present once and equal the body's method '" + m.Method + "'", session.CodeHeaderMismatch, nil
	}
	if member, named := nameMember(rev, m.Method); named {
		got := hd.Values(HeaderName)
		if len(got) != 1 {
			return "Header mismatch: Mcp-Name header is required for " + m.Method, session.CodeHeaderMismatch, nil
		}
		v, ok := decodeHeaderValue(got[0])
		if !ok {
			return "Header mismatch: Mcp-Name header value is malformed", session.CodeHeaderMismatch, nil
		}
		if !p.stringMemberIs(m.Params, member, v) {
			return "Header mismatch: Mcp-Name header value does not match the body", session.CodeHeaderMismatch, nil
		}
	}
	if m.Method == "tools/call" && rev.HasHTTPHeader(HeaderParamPrefix) && h.opts.ParamHeaders != nil {
		if msg := checkToolParamHeaders(hd, h.opts.ParamHeaders, p); msg != "" {
			return "Header mismatch: " + msg, session.CodeHeaderMismatch, nil
		}
	}
	return "", 0, nil
}
