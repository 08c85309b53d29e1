package session

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// clientTransport sits between a client Conn and the real transport. It
// does what the era needs on the wire, so that the generated callers stay
// era-agnostic: in the modern era it puts the per-request _meta on every
// request and runs MRTR (answering input requests with the client's
// handlers and retrying with inputResponses, under the original request's
// id as far as the Conn can tell); in the legacy era it removes the
// modern _meta members that the newest package's types carry.
type clientTransport struct {
	inner     jsonrpc2.Transport
	innerMW   jsonrpc2.MessageWriter // inner, when it takes messages described
	stripMeta bool                   // legacy era under modern types
	cacheable map[string]bool        // the modern base's CacheableResults
	info      json.RawMessage
	caps      json.RawMessage
	conn      *jsonrpc2.Conn // set before the Conn starts

	// pending receives the one read the probe left outstanding on a
	// goroutine of its own (awaitProbe); reading is set while it is.
	// Otherwise the Conn's read loop reads the inner transport itself:
	// a goroutine pumping it would add a hand-off to every answer.
	read     jsonrpc2.Message // what ReadMessage decodes into (see receive)
	pending  chan readResult
	reading  bool // guarded by mu
	stop     chan struct{}
	stopOnce sync.Once

	mu      sync.Mutex
	modern  bool
	version string
	// modernVersions are the modern versions the client speaks, for the
	// retry after an UnsupportedProtocolVersionError.
	modernVersions []string
	nextTry        int
	kept           [][]byte                          // read during the probe, before the Conn existed
	calls          map[jsonrpc2.RequestID]*roundTrip // by the Conn's id
	legacy         map[jsonrpc2.RequestID]string     // legacy-era requests awaiting a cacheable result
	retries        map[jsonrpc2.RequestID]jsonrpc2.RequestID
}

// roundTrip is one MRTR request as the Conn issued it.
type roundTrip struct {
	params  json.RawMessage
	method  string
	current jsonrpc2.RequestID // the id on the wire now
	// ctx ends when the Conn cancels the request or the round trip ends.
	// Only retries and input rounds use it, so it is made on first use
	// (context): a call answered at once costs no context (two allocations).
	ctxMu     sync.Mutex
	ctx       context.Context
	cancelCtx context.CancelFunc
	ended     bool // cancel was called; guarded by ctxMu
	rounds    int  // input rounds so far; guarded by clientTransport.mu
	// versionRetried is set once the request was sent again at a version
	// the server listed (at most once); guarded by clientTransport.mu.
	versionRetried bool
}

// context is the round trip's context, made on first use; it is done at
// once when the round trip has already ended.
func (rt *roundTrip) context() context.Context {
	rt.ctxMu.Lock()
	defer rt.ctxMu.Unlock()
	if rt.ctx == nil {
		rt.ctx, rt.cancelCtx = context.WithCancel(context.Background())
		if rt.ended {
			rt.cancelCtx()
		}
	}
	return rt.ctx
}

// cancel ends the round trip's context (now, or when it is made).
func (rt *roundTrip) cancel() {
	rt.ctxMu.Lock()
	defer rt.ctxMu.Unlock()
	rt.ended = true
	if rt.cancelCtx != nil {
		rt.cancelCtx()
	}
}

// maxInputRounds bounds MRTR for one call, so a server that keeps asking
// cannot hold a call forever.
const maxInputRounds = 32

// readResult is one read of the inner transport made on a goroutine of
// its own (readAsync).
type readResult struct {
	msg []byte
	err error
}

func newClientTransport(t jsonrpc2.Transport, base Revision, info Implementation, caps json.RawMessage) *clientTransport {
	mw, _ := t.(jsonrpc2.MessageWriter)
	return &clientTransport{inner: t, innerMW: mw, stripMeta: base.Modern, cacheable: base.CacheableResults, info: mustJSON(info), caps: caps,
		legacy:  map[jsonrpc2.RequestID]string{},
		pending: make(chan readResult, 1), stop: make(chan struct{}),
		calls: map[jsonrpc2.RequestID]*roundTrip{}, retries: map[jsonrpc2.RequestID]jsonrpc2.RequestID{}}
}

func (ct *clientTransport) setMode(modern bool, version string) {
	ct.mu.Lock()
	ct.modern, ct.version = modern, version
	ct.mu.Unlock()
}

// readAsync starts a read of the inner transport on a goroutine of its
// own, unless one is outstanding; its result arrives on pending. Only the
// probe reads this way: it must give up after its timeout, and not every
// transport's Read ends with its ctx (StdioTransport's does not).
func (ct *clientTransport) readAsync() {
	ct.mu.Lock()
	defer ct.mu.Unlock()
	if ct.reading {
		return
	}
	ct.reading = true
	go func() {
		msg, err := ct.inner.Read(context.Background())
		ct.pending <- readResult{msg, err}
	}()
}

// takePending marks the outstanding read's result as taken.
func (ct *clientTransport) takePending() {
	ct.mu.Lock()
	ct.reading = false
	ct.mu.Unlock()
}

var errProbeTimeout = errors.New("session: server/discover probe timed out")

// awaitProbe waits for the probe's answer, keeping every other message.
// A read still outstanding when it gives up is taken by Read.
func (ct *clientTransport) awaitProbe(ctx context.Context, timeout time.Duration) (*jsonrpc2.Message, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		ct.readAsync()
		select {
		case p := <-ct.pending:
			ct.takePending()
			if p.err != nil {
				return nil, p.err
			}
			m, derr := jsonrpc2.DecodeMessage(p.msg)
			if derr == nil && (m.Kind == jsonrpc2.KindResponse || m.Kind == jsonrpc2.KindErrorResponse) && m.ID == probeID {
				return m, nil
			}
			ct.keep(p.msg)
		case <-timer.C:
			return nil, errProbeTimeout
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// keep holds a message that arrived during the probe, for the Conn.
func (ct *clientTransport) keep(msg []byte) {
	ct.mu.Lock()
	ct.kept = append(ct.kept, msg)
	ct.mu.Unlock()
}

// ReadMessage implements jsonrpc2.MessageReader: each message this layer
// looks at is decoded once, here (or by the transport under it, when that
// is a MessageReader, as Streamable HTTP's client is), and handed to the
// Conn decoded. The message is one kept during the probe, the probe's
// outstanding read, or the inner transport's next, read on the caller's
// goroutine (the Conn's read loop), so an answer reaches the Conn with no
// hand-off of this layer's.
func (ct *clientTransport) ReadMessage(ctx context.Context) (*jsonrpc2.Message, error) {
	for {
		r, err := ct.receive(ctx)
		if err != nil {
			return nil, err
		}
		if r.Err != nil {
			return r.Msg, r.Err // the Conn answers or drops it
		}
		if m, _, deliver := ct.incoming(r.Msg); deliver {
			return m, nil
		}
	}
}

// Read implements jsonrpc2.Transport for a reader that wants bytes (the
// Conn reads through ReadMessage): ReadMessage's messages, as they came
// unless this layer changed them.
func (ct *clientTransport) Read(ctx context.Context) ([]byte, error) {
	for {
		raw, err := ct.readRaw(ctx)
		if err != nil {
			return nil, err
		}
		m, perr := jsonrpc2.DecodeMessage(raw)
		if perr != nil {
			return raw, nil
		}
		out, changed, deliver := ct.incoming(m)
		switch {
		case !deliver:
		case !changed:
			return raw, nil
		case out.Kind == jsonrpc2.KindResponse:
			return mustJSON(map[string]any{"jsonrpc": "2.0", "id": out.ID, "result": out.Result}), nil
		default:
			return mustJSON(map[string]any{"jsonrpc": "2.0", "id": out.ID, "error": out.Error}), nil
		}
	}
}

// receive is the next message for the Conn, decoded once, into ct.read:
// the one reader of this layer is its Conn's read loop, which routes a
// message before it reads the next and keeps nothing of the Message
// itself (it copies what it keeps: its own route decodes into a Message
// on its stack), so one Message serves every read, and handing the Conn
// decoded messages costs no allocation per message.
func (ct *clientTransport) receive(ctx context.Context) (jsonrpc2.Received, error) {
	raw, err := ct.readRaw(ctx)
	if err != nil {
		return jsonrpc2.Received{}, err
	}
	perr := jsonrpc2.DecodeMessageInto(raw, &ct.read)
	return jsonrpc2.Received{Msg: &ct.read, Err: perr}, nil
}

// readRaw is the next message's bytes: one kept during the probe, the
// probe's outstanding read, or the inner transport's next.
func (ct *clientTransport) readRaw(ctx context.Context) ([]byte, error) {
	ct.mu.Lock()
	if len(ct.kept) > 0 {
		msg := ct.kept[0]
		ct.kept = ct.kept[1:]
		ct.mu.Unlock()
		return msg, nil
	}
	reading := ct.reading
	ct.mu.Unlock()
	var p readResult
	if reading {
		select {
		case p = <-ct.pending:
			ct.takePending()
		case <-ct.stop:
			return nil, jsonrpc2.ErrTransportClosed
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	} else {
		p.msg, p.err = ct.inner.Read(ctx)
	}
	if p.err != nil {
		return nil, ct.readErr(p.err)
	}
	return p.msg, nil
}

// readErr is the error a failed read of the inner transport reports: the
// transport closed by Close reads as closed.
func (ct *clientTransport) readErr(err error) error {
	select {
	case <-ct.stop:
		return jsonrpc2.ErrTransportClosed
	default:
		return err
	}
}

// incoming maps a response to an MRTR retry back to the Conn's id, gives a
// cacheable legacy result what the newest types require, and takes
// input_required answers and version retries for itself (deliver false).
// m is this layer's to change: changed says it did.
func (ct *clientTransport) incoming(m *jsonrpc2.Message) (out *jsonrpc2.Message, changed, deliver bool) {
	if m.Kind != jsonrpc2.KindResponse && m.Kind != jsonrpc2.KindErrorResponse {
		return m, false, true
	}
	ct.mu.Lock()
	if _, ok := ct.legacy[m.ID]; ok {
		delete(ct.legacy, m.ID)
		ct.mu.Unlock()
		if m.Kind == jsonrpc2.KindResponse {
			// A legacy result read with the newest types: add what they
			// require and a legacy server never sends.
			if res, err := UnmapModernResult(m.Result, true); err == nil {
				m.Result = res
				return m, true, true
			}
		}
		return m, false, true
	}
	orig, isRetry := ct.retries[m.ID]
	if !isRetry {
		orig = m.ID
	}
	rt := ct.calls[orig]
	if rt == nil || rt.current != m.ID {
		ct.mu.Unlock()
		return m, false, true
	}
	delete(ct.retries, m.ID)
	if m.Kind == jsonrpc2.KindErrorResponse && m.Error != nil && m.Error.Code == CodeUnsupportedProtocolVersion && !rt.versionRetried {
		if v := ct.pickVersion(m.Error.Data); v != "" {
			// versioning.mdx: the client retries with a mutually supported
			// version; the session speaks it from now on.
			rt.versionRetried = true
			ct.version = v
			ct.mu.Unlock()
			go ct.retryAt(orig, rt, v)
			return nil, false, false
		}
	}
	if m.Kind == jsonrpc2.KindResponse {
		if resultTypeOf(m.Result) == "input_required" {
			ct.mu.Unlock()
			go ct.answerInputs(orig, rt, m.Result)
			return nil, false, false
		}
	}
	delete(ct.calls, orig)
	ct.mu.Unlock()
	rt.cancel()
	if !isRetry {
		return m, false, true
	}
	m.ID = orig
	return m, true, true
}

// pickVersion is the newest modern version the client speaks among those
// an UnsupportedProtocolVersionError's data lists; "" for none.
func (ct *clientTransport) pickVersion(data json.RawMessage) string {
	var d struct {
		Supported []string `json:"supported"`
	}
	if json.Unmarshal(data, &d) != nil {
		return ""
	}
	for _, v := range ct.modernVersions {
		for _, s := range d.Supported {
			if s == v {
				return v
			}
		}
	}
	return ""
}

// retryAt sends a request the server refused for its version again, at
// version v, under a new id on the wire (as an MRTR retry is).
func (ct *clientTransport) retryAt(orig jsonrpc2.RequestID, rt *roundTrip, v string) {
	fail := func(e *jsonrpc2.Error) {
		ct.mu.Lock()
		delete(ct.calls, orig)
		ct.mu.Unlock()
		rt.cancel()
		ct.conn.Receive(&jsonrpc2.Message{Kind: jsonrpc2.KindErrorResponse, ID: orig, Error: e})
	}
	params, err := jsonscan.EditObject(rt.params, "_meta", func(meta map[string]json.RawMessage) bool {
		meta[MetaProtocolVersion] = mustJSON(v)
		return true
	})
	if err != nil {
		fail(&jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: "retrying at " + v + ": " + err.Error()})
		return
	}
	ct.mu.Lock()
	if ct.calls[orig] != rt {
		ct.mu.Unlock()
		return
	}
	ct.nextTry++
	id := jsonrpc2.StringID("version-retry-" + strconv.Itoa(ct.nextTry))
	rt.current, rt.params = id, params
	ct.retries[id] = orig
	ct.mu.Unlock()
	msg := mustJSON(map[string]any{"jsonrpc": "2.0", "id": id, "method": rt.method, "params": params})
	if err := ct.inner.Write(rt.context(), msg); err != nil && rt.context().Err() == nil {
		fail(&jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: "retrying at " + v + ": " + err.Error()})
	}
}

// answerInputs fulfils an InputRequiredResult with the client's handlers
// and retries the request with inputResponses and requestState.
func (ct *clientTransport) answerInputs(orig jsonrpc2.RequestID, rt *roundTrip, result json.RawMessage) {
	fail := func(e *jsonrpc2.Error) {
		ct.mu.Lock()
		delete(ct.calls, orig)
		ct.mu.Unlock()
		rt.cancel()
		ct.conn.Receive(&jsonrpc2.Message{Kind: jsonrpc2.KindErrorResponse, ID: orig, Error: e})
	}
	var ir struct {
		InputRequests map[string]struct {
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		} `json:"inputRequests"`
		RequestState json.RawMessage `json:"requestState"`
	}
	if err := json.Unmarshal(result, &ir); err != nil {
		fail(&jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: "malformed InputRequiredResult: " + err.Error()})
		return
	}
	responses := map[string]json.RawMessage{}
	for key, req := range ir.InputRequests {
		// The client's handlers answer it, through its interceptors, as
		// they answer a legacy server's ordinary request.
		res, err := ct.conn.HandleEmbedded(rt.context(), &jsonrpc2.Request{Method: req.Method, Params: req.Params})
		if rt.context().Err() != nil {
			return // the caller gave up; the Conn already failed the call
		}
		if err != nil {
			var rpc *jsonrpc2.Error
			if !errors.As(err, &rpc) {
				rpc = &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: err.Error()}
			}
			if rpc.Code == jsonrpc2.CodeMethodNotFound {
				rpc = &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "the client cannot answer the input request " + req.Method}
			}
			fail(rpc)
			return
		}
		b, err := json.Marshal(res)
		if err != nil {
			fail(&jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: err.Error()})
			return
		}
		responses[key] = b
	}
	params, err := jsonscan.WithMember(rt.params, "inputResponses", mustJSON(responses))
	if err == nil {
		params, err = jsonscan.WithMember(params, "requestState", ir.RequestState)
	}
	if err != nil {
		fail(&jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: err.Error()})
		return
	}
	ct.mu.Lock()
	if ct.calls[orig] != rt {
		ct.mu.Unlock()
		return
	}
	if rt.rounds++; rt.rounds > maxInputRounds {
		ct.mu.Unlock()
		fail(&jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: "the server kept asking for input (MRTR rounds exceeded)"})
		return
	}
	ct.nextTry++
	id := jsonrpc2.StringID("mrtr-" + strconv.Itoa(ct.nextTry))
	rt.current = id
	ct.retries[id] = orig
	ct.mu.Unlock()
	msg := mustJSON(map[string]any{"jsonrpc": "2.0", "id": id, "method": rt.method, "params": params})
	if err := ct.inner.Write(rt.context(), msg); err != nil && rt.context().Err() == nil {
		fail(&jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: "retrying: " + err.Error()})
	}
}

// Write implements jsonrpc2.Transport for a caller that does not describe
// its messages. The session's Conn never calls it (it describes every
// message, see WriteMessage); msg is decoded into that description here.
func (ct *clientTransport) Write(ctx context.Context, msg []byte) error {
	m, ok := ct.describe(msg)
	if !ok {
		return ct.inner.Write(ctx, msg)
	}
	return ct.write(ctx, &m, false)
}

// describe decodes msg into the description WriteMessage takes; ok is
// false for what this layer passes on as it is (invalid JSON-RPC, a
// cancellation that names no request).
func (ct *clientTransport) describe(msg []byte) (m jsonrpc2.OutMessage, ok bool) {
	var decoded jsonrpc2.Message // on the stack: only looked at here
	if jsonrpc2.DecodeMessageInto(msg, &decoded) != nil {
		return m, false
	}
	m = jsonrpc2.OutMessage{Kind: decoded.Kind, ID: decoded.ID, Method: decoded.Method, Data: msg}
	switch {
	case m.Kind == jsonrpc2.KindRequest:
		m.Params = decoded.Params
	case ct.isCancellation(&m):
		// A cancellation's description names the request it cancels.
		var p struct {
			RequestID json.RawMessage `json:"requestId"`
		}
		if json.Unmarshal(decoded.Params, &p) != nil {
			return m, false
		}
		id, err := jsonrpc2.ParseRequestID(p.RequestID)
		if err != nil {
			return m, false
		}
		m.ID = id
	}
	return m, true
}

// isCancellation reports whether m is the revision's cancellation (its
// Policy's CancelledMethod); the Conn writing it holds that Policy.
func (ct *clientTransport) isCancellation(m *jsonrpc2.OutMessage) bool {
	return m.Kind == jsonrpc2.KindNotification && ct.conn != nil && m.Method != "" && m.Method == ct.conn.Policy().CancelledMethod
}

// WriteMessage implements jsonrpc2.MessageWriter: the Conn describes what
// it writes, so a request is rewritten for the wire (the modern era's
// per-request _meta, the legacy era's removal of it) from its params where
// the Conn encoded them, and a cancellation is known by the id it
// cancels, without decoding what the Conn just encoded. A call cancelled
// by closing its stream is closeStream's; over a transport without
// streams the Conn's Policy never asks for that (Connect clears
// DisconnectIsCancellation), and a CloseStream that comes anyway is sent
// as the notification it carries.
func (ct *clientTransport) WriteMessage(ctx context.Context, m *jsonrpc2.OutMessage) error {
	if m.CloseStream && ct.innerMW != nil {
		return ct.closeStream(ctx, m)
	}
	if m.Kind == jsonrpc2.KindRequest && m.Params == nil && jsonscan.Member(m.Data, "params") != nil {
		// Described without where its params are: read them.
		d, ok := ct.describe(m.Data)
		if !ok {
			return ct.inner.Write(ctx, m.Data)
		}
		return ct.write(ctx, &d, true)
	}
	return ct.write(ctx, m, true)
}

// write is WriteMessage; owned says m.Data is the writer's to edit in
// place (the Conn's message, not a caller's of Write).
func (ct *clientTransport) write(ctx context.Context, m *jsonrpc2.OutMessage, owned bool) error {
	msg := m.Data
	ct.mu.Lock()
	modern, version := ct.modern, ct.version
	ct.mu.Unlock()
	var paramsIn []byte // a rewritten request's params within msg, when known
	switch {
	case m.Kind == jsonrpc2.KindRequest && modern:
		spliced, params, ok := spliceModernRequest(m.ID, m.Method, m.Params, version, ct.info, ct.caps)
		if ok {
			msg, paramsIn = spliced, params
		} else {
			var err error
			if params, err = ct.modernParams(m.Params, version); err != nil {
				return err
			}
			msg = requestJSON(m.ID, m.Method, params)
		}
		ct.mu.Lock()
		ct.calls[m.ID] = &roundTrip{params: params, method: m.Method, current: m.ID}
		ct.mu.Unlock()
	case m.Kind == jsonrpc2.KindRequest && ct.stripMeta && m.Method != MethodInitialize:
		hadMeta := jsonscan.Member(m.Params, "_meta") != nil && !onlyModernMeta(m.Params)
		var ok bool
		if owned {
			// The Conn's message is ours: stripped where it lies.
			msg, paramsIn, ok = unmapLegacyInPlace(m.Data, m.Params, hadMeta)
		}
		if !ok {
			msg, paramsIn, ok = unmapLegacyRequestParams(m.ID, m.Method, m.Params, hadMeta)
		}
		if !ok {
			params, err := UnmapLegacyParams(m.Params, hadMeta)
			if err != nil {
				return err
			}
			msg, paramsIn = requestJSON(m.ID, m.Method, params), nil
		}
		if ct.cacheable[m.Method] {
			ct.mu.Lock()
			ct.legacy[m.ID] = m.Method
			ct.mu.Unlock()
		}
	case !ct.isCancellation(m):
	case !modern:
		ct.mu.Lock()
		delete(ct.legacy, m.ID)
		ct.mu.Unlock()
	default:
		// The Conn cancels its own id; on the wire the request may be a
		// retry by now, and an input round may be running locally.
		ct.mu.Lock()
		rt := ct.calls[m.ID]
		delete(ct.calls, m.ID)
		ct.mu.Unlock()
		if rt != nil {
			rt.cancel()
			if rt.current != m.ID {
				// The one message decoded here: the cancellation of a
				// request retried under an id of its own.
				var env struct {
					Params map[string]json.RawMessage `json:"params"`
				}
				if json.Unmarshal(msg, &env) == nil && env.Params != nil {
					env.Params["requestId"] = mustJSON(rt.current)
					msg = mustJSON(map[string]any{"jsonrpc": "2.0", "method": m.Method, "params": env.Params})
				}
			}
		}
	}
	if ct.innerMW != nil && paramsIn != nil {
		// Described onward too: the transport (Streamable HTTP's client)
		// routes the request and names it in headers without decoding it.
		return ct.innerMW.WriteMessage(ctx, &jsonrpc2.OutMessage{Kind: jsonrpc2.KindRequest, ID: m.ID, Method: m.Method, Data: msg, Params: paramsIn})
	}
	return ct.inner.Write(ctx, msg)
}

// emptyModernMeta reports whether params._meta holds nothing but modern
// members (what the newest types always write), i.e. the legacy message
// would have had no _meta.
func emptyModernMeta(params json.RawMessage) bool {
	meta, err := jsonscan.Members(jsonscan.Member(params, "_meta"))
	if err != nil {
		return false
	}
	for k := range meta {
		switch k {
		case MetaProtocolVersion, MetaClientInfo, MetaClientCapabilities, MetaLogLevel:
		default:
			return false
		}
	}
	return true
}

// modernParams puts the session's version, info and capabilities into
// _meta where the typed params left them empty.
func (ct *clientTransport) modernParams(params json.RawMessage, version string) (json.RawMessage, error) {
	return jsonscan.EditObject(params, "_meta", func(meta map[string]json.RawMessage) bool {
		meta[MetaProtocolVersion] = mustJSON(version)
		if v := meta[MetaClientInfo]; len(v) == 0 || string(v) == "null" {
			meta[MetaClientInfo] = ct.info
		}
		if v := meta[MetaClientCapabilities]; len(v) == 0 || string(v) == "{}" || string(v) == "null" {
			meta[MetaClientCapabilities] = ct.caps
		}
		return true
	})
}

// closeStream cancels a call by closing its stream (OutMessage.CloseStream)
// over a transport that has streams to close (Streamable HTTP, modern
// era): the Conn's id is mapped to the request on the wire now (an MRTR
// retry has its own), a running input round is stopped, and the inner
// transport closes that stream.
func (ct *clientTransport) closeStream(ctx context.Context, m *jsonrpc2.OutMessage) error {
	id := m.ID
	ct.mu.Lock()
	rt := ct.calls[id]
	delete(ct.calls, id)
	wireID := id
	if rt != nil {
		wireID = rt.current
		delete(ct.retries, wireID)
	}
	ct.mu.Unlock()
	if rt != nil {
		rt.cancel()
	}
	return ct.innerMW.WriteMessage(ctx, &jsonrpc2.OutMessage{Kind: m.Kind, ID: wireID, Method: m.Method, Data: m.Data, CloseStream: true})
}

func (ct *clientTransport) Close() error {
	ct.stopOnce.Do(func() { close(ct.stop) })
	ct.mu.Lock()
	for _, rt := range ct.calls {
		rt.cancel()
	}
	ct.mu.Unlock()
	return ct.inner.Close()
}
