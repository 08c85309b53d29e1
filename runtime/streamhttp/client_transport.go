package streamhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/mcpgen/mcpgen/runtime/internal/jsonscan"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// ClientOptions configures a ClientTransport.
type ClientOptions struct {
	// HTTPClient sends the requests (default: a client of its own without an
	// overall timeout, since response streams are long-lived; per-call
	// timeouts belong to the runtime's CallOptions).
	HTTPClient *http.Client
	// Era is the server's era. Zero means: detect it with Detect in Dial.
	Era Era
	// Revisions are the data of the revisions the client speaks (the
	// generated mcpYYYYMMDD.Revision() of each): the default ModernVersion,
	// the legacy versions Detect falls back to, and which headers each
	// revision sends. Required (ErrNoRevisions): streamhttp has no revision
	// facts of its own; a client built on mcp20260728 with
	// session.WithClientLegacy(mcp20251125.Revision()) passes
	// []session.Revision{mcp20260728.Revision(), mcp20251125.Revision()}.
	Revisions []session.Revision
	// ModernVersion is the version sent to a modern server (default: the
	// newest modern revision of Revisions).
	ModernVersion string
	// ClientInfo and Capabilities fill params._meta of modern requests that
	// do not carry them yet (defaults: {"name":"mcpgen","version":"0"}
	// and {}).
	ClientInfo   any
	Capabilities any
	// Header is added to every request (e.g. Authorization).
	Header http.Header
	// MaxMessageBytes bounds one incoming message (default 16 MiB).
	MaxMessageBytes int
	// NoGetStream stops a legacy client from opening the GET stream for
	// server-initiated messages after initialization.
	NoGetStream bool
	// ParamHeaders returns the x-mcp-header annotations of a tool (see
	// ParamHeadersFromSchema, fed from tools/list), so a modern tools/call
	// carries the Mcp-Param-* headers the server validates. Nil uses those
	// of the tools/list results the transport has carried.
	ParamHeaders func(tool string) []ParamHeader
	// Logger receives transport-level logs (default slog.Default()).
	Logger *slog.Logger

	autoEra   bool     // set by Dial: Era was detected, not chosen
	supported []string // set by Dial: the server's versions, if learned
	modern    []string // Versions(Revisions, EraModern), once (withDefaults)
}

func (o ClientOptions) withDefaults() ClientOptions {
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{}
	}
	o.modern = Versions(o.Revisions, EraModern)
	if v := o.modern; o.ModernVersion == "" && len(v) > 0 {
		o.ModernVersion = v[0]
	}
	if o.ClientInfo == nil {
		o.ClientInfo = map[string]string{"name": "mcpgen", "version": "0"}
	}
	if o.Capabilities == nil {
		o.Capabilities = map[string]any{}
	}
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = 16 << 20
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	return o
}

// ClientTransport is the client side of Streamable HTTP as a
// jsonrpc2.Transport. Each outgoing request is its own POST whose response
// (JSON or SSE) feeds Read.
// It is a jsonrpc2.MessageWriter, so in the modern era a cancelled call
// closes its own stream and sends nothing (OutMessage.CloseStream); in the
// legacy era the Conn POSTs notifications/cancelled instead and the stream
// stays open.
type ClientTransport struct {
	endpoint string
	opts     ClientOptions
	log      *slog.Logger
	// auto is true when the caller did not fix the era (Dial's detection or
	// none): the lifecycle the client then runs decides it, so that a
	// client whose bindings are legacy speaks legacy whatever the probe
	// found (an initialize request switches to the legacy era, a request
	// carrying modern _meta before any legacy session to the modern one).
	auto bool

	base       context.Context
	cancelBase context.CancelFunc
	in         chan clientInbound
	closed     chan struct{}
	closeOnce  sync.Once
	wg         sync.WaitGroup

	mu           sync.Mutex
	learned      map[string][]ParamHeader // x-mcp-header annotations seen in tools/list
	era          Era
	modernVer    string // the modern version of the latest modern request
	isClosed     bool
	session      string
	version      string // legacy: negotiated, sent once known
	initID       jsonrpc2.RequestID
	streams      map[jsonrpc2.RequestID]context.CancelFunc
	getOpened    bool
	headerValues map[string][]string // headerValueLocked's, under mu
}

// NewClientTransport returns a ClientTransport for the given era (EraModern
// when opts.Era is zero; use Dial to detect it). It panics with
// ErrNoRevisions when opts.Revisions is empty, a programming error (the
// revisions are the generated Revision() values the program is built
// with) that no request could succeed despite; Dial returns it instead.
func NewClientTransport(endpoint string, opts ClientOptions) *ClientTransport {
	if len(opts.Revisions) == 0 {
		panic(ErrNoRevisions)
	}
	opts = opts.withDefaults()
	era, auto := opts.Era, opts.autoEra
	if era == 0 {
		era, auto = EraModern, true
	}
	base, cancel := context.WithCancel(context.Background())
	return &ClientTransport{
		endpoint: endpoint, opts: opts, era: era, auto: auto, log: opts.Logger, modernVer: opts.ModernVersion,
		base: base, cancelBase: cancel,
		in: make(chan clientInbound, 64), closed: make(chan struct{}),
		streams: map[jsonrpc2.RequestID]context.CancelFunc{},
	}
}

// revision returns the data of the revision the transport speaks: the
// modern version's, or the negotiated legacy version's (the newest legacy
// revision's until initialize is answered).
func (c *ClientTransport) revision() session.Revision {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.revisionLocked()
}

func (c *ClientTransport) revisionLocked() session.Revision {
	if c.era == EraModern {
		return revisionFor(c.opts.Revisions, c.modernVer, true)
	}
	if c.version == "" {
		return newestRevision(c.opts.Revisions, false) // not negotiated yet
	}
	return revisionFor(c.opts.Revisions, c.version, false)
}

// Dial detects the server's era (unless opts.Era is set) and returns a
// ClientTransport for it. Build the Conn with the Policy of Era(), or give
// the transport to the generated Connect, whose lifecycle then decides the
// era: with a detected era the transport follows what the client sends (an
// initialize makes it legacy, a request with modern _meta modern), so that
// bindings of any revision speak the era they have.
func Dial(ctx context.Context, endpoint string, opts ClientOptions) (*ClientTransport, error) {
	if len(opts.Revisions) == 0 {
		return nil, ErrNoRevisions
	}
	if opts.Era == 0 {
		d, err := Detect(ctx, endpoint, opts)
		if err != nil {
			return nil, err
		}
		opts.Era, opts.autoEra = d.Era, true
		if d.Era == EraModern && d.Version != "" {
			opts.ModernVersion = d.Version
		}
		opts.supported = d.Supported
	}
	return NewClientTransport(endpoint, opts), nil
}

// Era returns the era this client speaks (with a detected era, the one the
// latest lifecycle request chose).
func (c *ClientTransport) Era() Era {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.era
}

// LegacyVersions lists the legacy versions the transport speaks, newest
// first. session.Connect reads it to let bindings of a modern revision fall
// back to initialize against a server that speaks no modern version.
func (c *ClientTransport) LegacyVersions() []string { return Versions(c.opts.Revisions, EraLegacy) }

// ServerVersions is what Dial's detection learned of the versions the
// server speaks (server/discover's supportedVersions, or the supported list
// of its UnsupportedProtocolVersionError); nil when it learned none.
func (c *ClientTransport) ServerVersions() []string { return slices.Clone(c.opts.supported) }

// follow lets an era the caller did not fix follow the lifecycle: the
// client's initialize selects the legacy era; a request whose _meta names a
// modern version selects the modern era and that version, unless a legacy
// session is under way.
func (c *ClientTransport) follow(m *jsonrpc2.Message) {
	if m.Kind != jsonrpc2.KindRequest {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if m.Method == session.MethodInitialize {
		if c.auto {
			c.era = EraLegacy
		}
		return
	}
	v := requestVersion(m.Params, c.opts.modern)
	if v == "" || !slices.Contains(c.opts.modern, v) {
		return
	}
	if c.era == EraLegacy && (!c.auto || c.session != "" || c.version != "") {
		return
	}
	c.era, c.modernVer = EraModern, v
}

// requestVersion is params._meta's protocol version, "" when absent; one
// of known is returned as it is in known.
func requestVersion(params json.RawMessage, known []string) string {
	if v, ok := requestVersionPlain(params, known); ok {
		return v
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if len(params) == 0 || json.Unmarshal(params, &p) != nil {
		return ""
	}
	var v string
	_ = json.Unmarshal(p.Meta[session.MetaProtocolVersion], &v)
	return v
}

// requestVersionPlain is requestVersion without encoding/json for the
// plain case (every request, so it matters): ok is false for what only
// encoding/json reads exactly (a key that matches "_meta" only without
// regard to case or through escapes, an escaped version, invalid JSON).
func requestVersionPlain(params []byte, known []string) (v string, ok bool) {
	p := jsonscan.Trim(params)
	if len(p) == 0 {
		return "", true
	}
	if p[0] != '{' || !jsonscan.Valid(p) {
		return "", false
	}
	var meta []byte
	ok = true
	jsonscan.EachMember(p, func(k, val []byte) bool {
		switch {
		case string(k) == "_meta":
			meta = val // the last one counts, as for encoding/json
		case bytes.IndexByte(k, '\\') >= 0 || bytes.EqualFold(k, []byte("_meta")):
			ok = false // a struct field matches such keys too
		}
		return ok
	})
	if !ok || meta == nil || string(meta) == "null" {
		return "", ok
	}
	if meta[0] != '{' {
		return "", false // encoding/json fails on it: the slow path says ""
	}
	raw := jsonscan.Member(meta, session.MetaProtocolVersion) // a map key: matched exactly, escapes decoded
	if raw == nil || raw[0] != '"' {
		return "", true // encoding/json leaves the string empty
	}
	return jsonscan.UnquoteKnown(raw, known)
}

// SessionID returns the legacy session id, empty before initialize.
func (c *ClientTransport) SessionID() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.session
}

// ReadMessage implements jsonrpc2.MessageReader: the server's messages as
// the transport decoded them to find the answer of each request, so the
// Conn does not decode them again.
func (c *ClientTransport) ReadMessage(ctx context.Context) (*jsonrpc2.Message, error) {
	in, err := c.next(ctx)
	if err != nil {
		return nil, err
	}
	// Decoded here, once, for the reader that wants it decoded: a reader
	// of bytes (a session's client layer) does not pay for it.
	m, perr := jsonrpc2.DecodeMessage(in.data)
	if perr != nil {
		return m, perr
	}
	return m, nil
}

// Read implements jsonrpc2.Transport, for a reader that wants the bytes
// (the Conn reads through ReadMessage).
func (c *ClientTransport) Read(ctx context.Context) ([]byte, error) {
	in, err := c.next(ctx)
	return in.data, err
}

func (c *ClientTransport) next(ctx context.Context) (clientInbound, error) {
	select {
	case in := <-c.in:
		return in, nil
	case <-c.closed:
		return clientInbound{}, io.EOF
	case <-ctx.Done():
		return clientInbound{}, ctx.Err()
	}
}

// clientInbound is a server message on its way to the Conn: its bytes and
// what DecodeMessage made of them.
type clientInbound struct {
	data []byte
}

// Write implements jsonrpc2.Transport. A request returns once its POST is
// under way; its answer (or an error response made from an HTTP failure)
// arrives through Read. Notifications and responses are POSTed before Write
// returns, so a notifications/cancelled written before Close is delivered.
func (c *ClientTransport) Write(ctx context.Context, msg []byte) error {
	var decoded jsonrpc2.Message // on the stack: only looked at here
	m := &decoded
	if derr := jsonrpc2.DecodeMessageInto(msg, m); derr != nil {
		return derr
	}
	return c.send(ctx, msg, m)
}

// send is Write of msg, which m describes (decoded, or as its writer
// described it).
func (c *ClientTransport) send(ctx context.Context, msg []byte, m *jsonrpc2.Message) error {
	body := msg
	c.follow(m)
	if c.Era() == EraModern && m.Kind == jsonrpc2.KindRequest {
		var err error
		if body, err = c.withMeta(msg, m); err != nil {
			return err
		}
	}
	c.mu.Lock()
	if c.isClosed {
		c.mu.Unlock()
		return jsonrpc2.ErrTransportClosed
	}
	if m.Kind != jsonrpc2.KindRequest {
		c.mu.Unlock()
		err := c.postSync(ctx, m, body)
		if err == nil && m.Kind == jsonrpc2.KindNotification && m.Method == cancelledMethod {
			c.dropCancelled(m.Params)
		}
		return err
	}
	if m.Method == session.MethodInitialize {
		c.initID = m.ID
	}
	rctx, cancel := context.WithCancel(c.base)
	c.streams[m.ID] = cancel
	c.wg.Add(1)
	c.mu.Unlock()
	req, err := c.newPost(rctx, m, body)
	if err != nil {
		c.dropStream(m.ID)
		cancel()
		c.wg.Done()
		return err
	}
	go c.roundTrip(rctx, cancel, req, m.ID, m.Method)
	return nil
}

// WriteMessage implements jsonrpc2.MessageWriter: a message goes as Write
// sends it (a request described with its params without decoding it),
// except the modern cancellation (OutMessage.CloseStream): the
// context of the request's POST is cancelled, which closes the
// connection's stream, and nothing else is sent.
func (c *ClientTransport) WriteMessage(ctx context.Context, m *jsonrpc2.OutMessage) error {
	if !m.CloseStream {
		if m.Kind == jsonrpc2.KindRequest && m.Params != nil {
			// A request described with its params (the session's client
			// describes what it rewrites) needs no decoding.
			d := jsonrpc2.Message{Kind: m.Kind, ID: m.ID, Method: m.Method, Params: m.Params}
			return c.send(ctx, m.Data, &d)
		}
		return c.Write(ctx, m.Data)
	}
	id := m.ID
	if c.Era() != EraModern {
		return errors.New("streamhttp: legacy streams are not closed to cancel")
	}
	c.mu.Lock()
	cancel := c.streams[id]
	delete(c.streams, id)
	c.mu.Unlock()
	if cancel == nil {
		return fmt.Errorf("streamhttp: no open stream for request %s", id)
	}
	cancel()
	return nil
}

// Close ends every stream and, in a legacy session, DELETEs it.
func (c *ClientTransport) Close() error {
	var err error
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.isClosed = true
		sid, era := c.session, c.era
		c.mu.Unlock()
		if sid != "" && era == EraLegacy {
			ctx, cancel := context.WithTimeout(c.base, 5*time.Second)
			req, _ := http.NewRequestWithContext(ctx, http.MethodDelete, c.endpoint, nil)
			c.setCommon(req.Header)
			if resp, derr := c.opts.HTTPClient.Do(req); derr == nil {
				_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
				resp.Body.Close()
			} else {
				err = derr
			}
			cancel()
		}
		c.cancelBase()
		close(c.closed)
		c.wg.Wait()
	})
	return err
}

// cancelledMethod is the legacy cancellation notification.
const cancelledMethod = "notifications/cancelled"

// dropCancelled closes the response stream of a request the client has
// just cancelled with notifications/cancelled (legacy era), once the
// server accepted the notification: the Conn drops a late answer anyway,
// and a server that runs each legacy request on its own instance (go-sdk's
// and the TypeScript SDK's stateless handlers), where the notification
// reaches no handler, learns from the closed stream that nobody waits. The
// notification stays the cancellation; the disconnect only follows it.
func (c *ClientTransport) dropCancelled(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	id, err := jsonrpc2.ParseRequestID(p.RequestID)
	if err != nil {
		return
	}
	c.mu.Lock()
	cancel := c.streams[id]
	delete(c.streams, id)
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

func (c *ClientTransport) dropStream(id jsonrpc2.RequestID) {
	c.mu.Lock()
	delete(c.streams, id)
	c.mu.Unlock()
}

func (c *ClientTransport) setCommon(h http.Header) {
	for k, v := range c.opts.Header {
		h[k] = v
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.era == EraModern {
		h[HeaderProtocolVersion] = c.headerValueLocked(c.modernVer)
		return
	}
	if c.session != "" && c.revisionLocked().HasHTTPHeader(HeaderSessionID) {
		h[HeaderSessionID] = c.headerValueLocked(c.session)
	}
	if c.version != "" {
		h[HeaderProtocolVersion] = c.headerValueLocked(c.version)
	}
}

// Header values every request of a transport repeats are one shared
// slice each, not one per request: net/http only reads a request's
// values, and Set or Add on them replaces or grows that request's own
// slice (cap == len, so append copies).
var (
	jsonContentType = []string{"application/json"}
	acceptBoth      = []string{"application/json, text/event-stream"}
)

// headerValueLocked returns the shared one-value slice of v (the
// negotiated version, the session id). Called with mu held.
func (c *ClientTransport) headerValueLocked(v string) []string {
	if s, ok := c.headerValues[v]; ok {
		return s
	}
	if c.headerValues == nil || len(c.headerValues) >= 32 {
		c.headerValues = map[string][]string{} // a few dozen at most: versions, one session id, the methods
	}
	s := []string{v}
	c.headerValues[v] = s
	return s
}

func (c *ClientTransport) newPost(ctx context.Context, m *jsonrpc2.Message, body []byte) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	h := req.Header
	c.setCommon(h)
	h["Content-Type"] = jsonContentType
	h["Accept"] = acceptBoth
	rev := c.revision()
	if m.Kind == jsonrpc2.KindRequest && rev.HasHTTPHeader(HeaderMethod) {
		c.mu.Lock()
		h[HeaderMethod] = c.headerValueLocked(m.Method)
		c.mu.Unlock()
		if p, ok := peekParams(m.Params); ok {
			if member, named := nameMember(rev, m.Method); named {
				if v, ok := p.stringMember(m.Params, member); ok {
					h[HeaderName] = []string{EncodeHeaderValue(v)}
				}
			}
			if name, ok := p.nameOf(); ok && m.Method == "tools/call" && rev.HasHTTPHeader(HeaderParamPrefix) {
				phs := c.paramHeaders(name)
				var args map[string]json.RawMessage
				if len(phs) > 0 { // the arguments are read only for a tool that has some
					_ = json.Unmarshal(p.Arguments, &args)
				}
				for _, ph := range phs {
					if v, ok := paramHeaderValue(lookupPath(args, ph.Path)); ok {
						h.Set(HeaderParamPrefix+ph.Name, v)
					}
				}
			}
		}
	}
	return req, nil
}

// paramHeaders is the x-mcp-header annotations of a tool: ParamHeaders'
// answer when set, else what the tools/list results that passed through
// the transport declared.
func (c *ClientTransport) paramHeaders(tool string) []ParamHeader {
	if c.opts.ParamHeaders != nil {
		return c.opts.ParamHeaders(tool)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.learned[tool]
}

// learnParamHeaders records the x-mcp-header annotations of the tools in a
// tools/list result, so that a modern tools/call carries its Mcp-Param-*
// headers without the caller's help. A tool whose annotations are invalid
// gets none (a client must not call it; leaving it out of the list is the
// caller's part, see ParamHeadersFromSchema).
func (c *ClientTransport) learnParamHeaders(result json.RawMessage) {
	var r struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if json.Unmarshal(result, &r) != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.learned == nil {
		c.learned = map[string][]ParamHeader{}
	}
	for _, t := range r.Tools {
		phs, err := ParamHeadersFromSchema(t.InputSchema)
		if err != nil || len(phs) == 0 {
			delete(c.learned, t.Name)
			continue
		}
		c.learned[t.Name] = phs
	}
}

// withMeta adds the modern per-request metadata to a request that lacks it.
func (c *ClientTransport) withMeta(msg []byte, m *jsonrpc2.Message) ([]byte, error) {
	// Under mcp.Connect the session's client transport has put all three
	// members into _meta already, so there is nothing to add: the request
	// goes as written rather than decoded into maps and encoded again (48
	// allocations, a third of the client's part of a modern HTTP round
	// trip). A member counts as present as the maps below would see it.
	if p := jsonscan.Trim(m.Params); len(p) > 0 && p[0] == '{' {
		if meta := jsonscan.Member(p, "_meta"); len(meta) > 0 && meta[0] == '{' &&
			jsonscan.Member(meta, session.MetaProtocolVersion) != nil &&
			jsonscan.Member(meta, session.MetaClientInfo) != nil &&
			jsonscan.Member(meta, session.MetaClientCapabilities) != nil {
			return msg, nil
		}
	}
	params := map[string]json.RawMessage{}
	if len(m.Params) > 0 {
		if err := json.Unmarshal(m.Params, &params); err != nil {
			return nil, fmt.Errorf("streamhttp: modern request params must be an object: %w", err)
		}
	}
	meta := map[string]json.RawMessage{}
	if raw, ok := params["_meta"]; ok {
		if err := json.Unmarshal(raw, &meta); err != nil {
			return nil, fmt.Errorf("streamhttp: params._meta must be an object: %w", err)
		}
	}
	set := func(k string, v any) {
		if _, ok := meta[k]; !ok {
			b, _ := json.Marshal(v)
			meta[k] = b
		}
	}
	c.mu.Lock()
	version := c.modernVer
	c.mu.Unlock()
	set(session.MetaProtocolVersion, version)
	set(session.MetaClientInfo, c.opts.ClientInfo)
	set(session.MetaClientCapabilities, c.opts.Capabilities)
	params["_meta"], _ = json.Marshal(meta)
	return json.Marshal(struct {
		JSONRPC string                     `json:"jsonrpc"`
		ID      jsonrpc2.RequestID         `json:"id"`
		Method  string                     `json:"method"`
		Params  map[string]json.RawMessage `json:"params"`
	}{"2.0", m.ID, m.Method, params})
}

// postSync POSTs a notification or response and expects 202 (or 200).
func (c *ClientTransport) postSync(ctx context.Context, m *jsonrpc2.Message, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := c.newPost(ctx, m, body)
	if err != nil {
		return err
	}
	resp, err := c.opts.HTTPClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("streamhttp: POST %s: HTTP %d", m.Method, resp.StatusCode)
	}
	if c.Era() == EraLegacy && m.Method == session.MethodInitialized && !c.opts.NoGetStream {
		// Wait (briefly) for the GET stream to be open before the caller
		// goes on: a server that sends a request on it as soon as the
		// next tools/call arrives would otherwise find no stream and drop
		// the message (the TypeScript SDK's server does), which made the
		// conformance suite's elicitation scenario fail 4 runs in 6.
		ready := c.openGet()
		t := time.NewTimer(getStreamWait)
		defer t.Stop()
		select {
		case <-ready:
		case <-t.C:
			c.log.Debug("GET stream not open yet; going on without waiting")
		case <-ctx.Done():
		}
	}
	return nil
}

// getStreamWait bounds how long notifications/initialized waits for the GET
// stream's response headers.
const getStreamWait = 5 * time.Second

// roundTrip runs one request's POST and feeds its answer to Read.
func (c *ClientTransport) roundTrip(ctx context.Context, cancel context.CancelFunc, req *http.Request, id jsonrpc2.RequestID, method string) {
	defer c.wg.Done()
	defer cancel()
	defer c.dropStream(id)
	answered := false
	// deliver decodes each message once, for the answer check here and for
	// the Conn. fillID is for a JSON body: an HTTP-level rejection a server
	// sent with id null is given the request's id, so the Conn can match it.
	deliver := func(data []byte, fillID bool) error {
		var decoded jsonrpc2.Message // on the stack: the reader decodes its own
		m := &decoded
		perr := jsonrpc2.DecodeMessageInto(data, m)
		if perr == nil && fillID && m.Kind == jsonrpc2.KindErrorResponse && m.ID.IsZero() {
			m.ID = id
			data = withID(m)
		}
		if perr == nil && (m.Kind == jsonrpc2.KindResponse || m.Kind == jsonrpc2.KindErrorResponse) && m.ID == id {
			answered = true
			c.noteResult(m)
			if method == "tools/list" && m.Kind == jsonrpc2.KindResponse {
				c.learnParamHeaders(m.Result)
			}
		}
		return c.push(clientInbound{data: data})
	}
	resp, err := c.opts.HTTPClient.Do(req)
	if err != nil {
		if ctx.Err() == nil {
			c.fail(id, "POST failed: "+err.Error())
		}
		return
	}
	defer resp.Body.Close()
	if sid := resp.Header.Get(HeaderSessionID); sid != "" {
		c.mu.Lock()
		if c.era == EraLegacy && c.session == "" && c.revisionLocked().HasHTTPHeader(HeaderSessionID) {
			c.session = sid
		}
		c.mu.Unlock()
	}
	ct := mediaType(resp.Header.Get("Content-Type"))
	switch {
	case resp.StatusCode/100 == 2 && ct == "text/event-stream":
		var cur sseCursor
		sse := func(data []byte) error { return deliver(data, false) }
		err = readEventsResumable(resp.Body, c.opts.MaxMessageBytes, &cur, sse)
		if !answered && ctx.Err() == nil && cur.lastID != "" && c.Era() == EraLegacy {
			// The stream ended before the answer, and the server gave it
			// event ids: resume it (legacy streams only; 2026-07-28 has no
			// resumption, a closed stream there is the end of the request).
			if c.resume(ctx, &cur, func() bool { return answered }, sse) {
				return
			}
		}
	case ct == "application/json":
		var data []byte
		data, err = io.ReadAll(io.LimitReader(resp.Body, int64(c.opts.MaxMessageBytes)+1))
		if err == nil && len(data) > c.opts.MaxMessageBytes {
			err = &jsonrpc2.MessageTooLargeError{Size: len(data), Limit: c.opts.MaxMessageBytes}
		}
		if err == nil {
			err = deliver(data, true)
		}
	case resp.StatusCode == http.StatusAccepted:
	}
	if answered || ctx.Err() != nil {
		return
	}
	why := fmt.Sprintf("HTTP %d without a response", resp.StatusCode)
	if err != nil {
		why = fmt.Sprintf("HTTP %d: reading the response: %v", resp.StatusCode, err)
	}
	c.fail(id, why)
}

// withID encodes m, an error response whose id the transport filled in.
func withID(m *jsonrpc2.Message) []byte {
	b, _ := json.Marshal(struct {
		JSONRPC string             `json:"jsonrpc"`
		ID      jsonrpc2.RequestID `json:"id"`
		Error   *jsonrpc2.Error    `json:"error"`
	}{"2.0", m.ID, m.Error})
	return b
}

// noteResult learns the negotiated version from initialize's result.
func (c *ClientTransport) noteResult(m *jsonrpc2.Message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.initID.IsZero() || m.ID != c.initID || m.Kind != jsonrpc2.KindResponse {
		return
	}
	var r struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if json.Unmarshal(m.Result, &r) == nil {
		c.version = r.ProtocolVersion
	}
}

// fail answers a request locally with an error, so its Call returns rather
// than waiting for a response that will not come.
func (c *ClientTransport) fail(id jsonrpc2.RequestID, why string) {
	c.log.Debug("request failed at the transport", "id", id.String(), "why", why)
	_ = c.deliver(errorBody(id, jsonrpc2.CodeInternalError, "streamhttp: "+why, nil))
}

// deliver hands a server message to the Conn.
func (c *ClientTransport) deliver(data []byte) error {
	return c.push(clientInbound{data: data})
}

func (c *ClientTransport) push(in clientInbound) error {
	select {
	case c.in <- in:
		return nil
	case <-c.closed:
		return jsonrpc2.ErrTransportClosed
	case <-c.base.Done():
		return jsonrpc2.ErrTransportClosed
	}
}

// openGet opens the legacy GET stream once, for server-initiated requests
// and notifications; a 405 means the server offers none. The channel it
// returns is closed once the stream's response headers are in, or opening
// it failed (or it was already opened).
func (c *ClientTransport) openGet() <-chan struct{} {
	ready := make(chan struct{})
	c.mu.Lock()
	if c.getOpened || c.isClosed {
		c.mu.Unlock()
		close(ready)
		return ready
	}
	c.getOpened = true
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		markReady := sync.OnceFunc(func() { close(ready) })
		defer markReady()
		req, err := http.NewRequestWithContext(c.base, http.MethodGet, c.endpoint, nil)
		if err != nil {
			return
		}
		c.setCommon(req.Header)
		req.Header.Set("Accept", "text/event-stream")
		resp, err := c.opts.HTTPClient.Do(req)
		if err != nil {
			return
		}
		defer resp.Body.Close()
		ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		if resp.StatusCode != http.StatusOK || ct != "text/event-stream" {
			c.log.Debug("no GET stream", "status", resp.StatusCode)
			return
		}
		markReady()
		_ = readEvents(resp.Body, c.opts.MaxMessageBytes, c.deliver)
	}()
	return ready
}

// Detection is what Detect learned about a server.
type Detection struct {
	Era Era
	// Version is the modern version to speak when Era is EraModern: the
	// newest one both sides list (the client's ModernVersion when the server
	// listed none).
	Version string
	// Supported lists the versions the server named: server/discover's
	// supportedVersions, or the supported list of its
	// UnsupportedProtocolVersionError; nil when it named none.
	Supported []string
	// Status is the HTTP status of the probe.
	Status int
}

// probeID is the id of Detect's server/discover.
var probeID = jsonrpc2.StringID("mcpgen-era-probe")

// Detect finds a server's era as versioning.mdx and streamable-http.mdx
// ("Backward Compatibility") describe: a modern request (server/discover)
// first. A DiscoverResult or a recognised modern error (-32020, -32021,
// -32022) means a modern server, and the versions it lists decide the
// version: a server that lists none of the client's modern versions but
// one of its legacy ones is served in the legacy era (go-sdk v1.8's
// sessionful handler answers server/discover so, listing only legacy
// versions). Anything else, including -32601 (server/discover, which every
// modern server implements, is unknown), means legacy.
func Detect(ctx context.Context, endpoint string, opts ClientOptions) (Detection, error) {
	if len(opts.Revisions) == 0 {
		return Detection{}, ErrNoRevisions
	}
	c := NewClientTransport(endpoint, ClientOptions{HTTPClient: opts.HTTPClient, Era: EraModern, ModernVersion: opts.ModernVersion,
		Revisions: opts.Revisions, ClientInfo: opts.ClientInfo, Capabilities: opts.Capabilities, Header: opts.Header, Logger: opts.Logger})
	defer c.Close()
	probe := &jsonrpc2.Message{Kind: jsonrpc2.KindRequest, ID: probeID, Method: session.MethodDiscover, Params: json.RawMessage(`{}`)}
	body, err := c.withMeta(nil, probe) // params {}: never the as-written case
	if err != nil {
		return Detection{}, err
	}
	req, err := c.newPost(ctx, probe, body)
	if err != nil {
		return Detection{}, err
	}
	resp, err := c.opts.HTTPClient.Do(req)
	if err != nil {
		return Detection{}, fmt.Errorf("streamhttp: probing %s: %w", endpoint, err)
	}
	defer resp.Body.Close()
	d := Detection{Era: EraLegacy, Status: resp.StatusCode}
	var answer *jsonrpc2.Message
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case resp.StatusCode/100 == 2 && ct == "text/event-stream":
		errFound := errors.New("found")
		_ = readEvents(io.LimitReader(resp.Body, 1<<20), c.opts.MaxMessageBytes, func(data []byte) error {
			if m, err := jsonrpc2.DecodeMessage(data); err == nil && m.ID == probeID &&
				(m.Kind == jsonrpc2.KindResponse || m.Kind == jsonrpc2.KindErrorResponse) {
				answer = m
				return errFound
			}
			return nil
		})
	default:
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if m, err := jsonrpc2.DecodeMessage(data); err == nil && (m.Kind == jsonrpc2.KindResponse || m.Kind == jsonrpc2.KindErrorResponse) {
			answer = m
		}
	}
	if answer == nil {
		return d, nil
	}
	switch {
	case answer.Kind == jsonrpc2.KindResponse:
		var r struct {
			SupportedVersions []string `json:"supportedVersions"`
		}
		_ = json.Unmarshal(answer.Result, &r)
		if len(r.SupportedVersions) == 0 {
			// Not a DiscoverResult (a legacy server answering any method
			// with an empty result, as the conformance suite's 0.1.16 mock
			// servers do): legacy.
			return d, nil
		}
		d.Supported = r.SupportedVersions
	case answer.Error.Code == session.CodeUnsupportedProtocolVersion:
		var e struct {
			Supported []string `json:"supported"`
		}
		_ = json.Unmarshal(answer.Error.Data, &e)
		d.Supported = e.Supported
	case isModernCode(answer.Error.Code):
		d.Era, d.Version = EraModern, c.opts.ModernVersion
		return d, nil
	default:
		return d, nil
	}
	d.Era, d.Version = chooseEra(d.Supported, c.opts)
	return d, nil
}

// chooseEra picks, from the versions a modern server listed, the newest
// modern one the client speaks; failing that, the legacy era if the server
// lists a legacy version the client speaks; failing both (or with no list),
// the modern era at the client's own version, whose requests then fail
// with the server's UnsupportedProtocolVersionError for the caller to see.
func chooseEra(supported []string, opts ClientOptions) (Era, string) {
	for _, v := range Versions(opts.Revisions, EraModern) {
		if slices.Contains(supported, v) {
			return EraModern, v
		}
	}
	for _, v := range Versions(opts.Revisions, EraLegacy) {
		if slices.Contains(supported, v) {
			return EraLegacy, ""
		}
	}
	return EraModern, opts.ModernVersion
}

// mediaType is the media type of a Content-Type value: what servers send
// is recognised without parsing (mime.ParseMediaType allocates).
func mediaType(v string) string {
	switch v {
	case "application/json", "text/event-stream":
		return v
	}
	mt, _, _ := mime.ParseMediaType(v)
	return mt
}
