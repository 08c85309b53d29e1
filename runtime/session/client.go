package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// ClientSession is a connected MCP session as the client sees it: the era
// and version in use, the server's info and capabilities, and the Conn.
// The generated package's ClientSession (what its Connect returns) embeds
// it with a ServerCaller, so the session also implements the generated
// ServerHandler interface.
type ClientSession struct {
	conn         *jsonrpc2.Conn
	rev          Revision
	modern       bool
	serverInfo   Implementation
	infoJSON     json.RawMessage // serverInfo as sent, for the generated types
	capabilities json.RawMessage
	instructions string
}

// ProtocolVersion is the version the session speaks.
func (c *ClientSession) ProtocolVersion() string { return c.rev.Version }

// Modern reports whether the server was found to be modern.
func (c *ClientSession) Modern() bool { return c.modern }

// ServerInfo is the server's self-description (initialize's serverInfo or
// server/discover's _meta serverInfo).
func (c *ClientSession) ServerInfo() Implementation { return c.serverInfo }

// ServerInfoJSON is the server's self-description as sent (the generated
// ClientSession decodes it into the revision's Implementation).
func (c *ClientSession) ServerInfoJSON() json.RawMessage { return c.infoJSON }

// ServerCapabilities are the server's capabilities, as sent.
func (c *ClientSession) ServerCapabilities() json.RawMessage { return c.capabilities }

// Instructions are the server's instructions, if any.
func (c *ClientSession) Instructions() string { return c.instructions }

// RuntimeConn returns the connection (for Notify, Done, Err).
func (c *ClientSession) RuntimeConn() *jsonrpc2.Conn { return c.conn }

// Close ends the session: in-flight calls are cancelled and the
// transport closed (for stdio, the server sees EOF).
func (c *ClientSession) Close(ctx context.Context) error { return c.conn.Close(ctx) }

// ClientConfig is what Connect needs: the revisions the client speaks
// (the first is the one its typed calls use), how to register its
// handlers, and which of them it provides.
type ClientConfig struct {
	Info      Implementation
	Revisions []Revision
	// Register installs the client's handlers (sampling, elicitation,
	// roots); nil for none.
	Register func(*jsonrpc2.Conn)
	// Capabilities is the client's capabilities object; nil derives it
	// from Provided.
	Capabilities json.RawMessage
	// Provided lists the client requests the handlers answer (what the
	// generated RegisterClient returns): the client's capabilities
	// (sampling, elicitation, roots) are theirs.
	Provided []string
}

// ClientOption configures Connect.
type ClientOption func(*clientOptions)

type clientOptions struct {
	noFallback   bool
	version      string
	probeTimeout time.Duration
	connOpts     []jsonrpc2.Option
	logger       *slog.Logger
	legacy       []Revision
	interceptors []jsonrpc2.Interceptor
}

// WithClientInterceptors adds interceptors around every request and
// notification the client receives (ping and the input requests of MRTR
// included) and every call and notification it sends, the lifecycle's
// initialize and server/discover made through the Conn included (see
// jsonrpc2.Interceptor; the first given is the outermost). They sit outside
// the session's answer to ping, then the interceptors of
// WithClientConnOptions, then the handlers. The server/discover probe that
// decides the era is written before the Conn exists and is not seen.
func WithClientInterceptors(ics ...jsonrpc2.Interceptor) ClientOption {
	return func(o *clientOptions) { o.interceptors = append(o.interceptors, ics...) }
}

// WithClientLegacy adds legacy revisions the client also speaks, so that
// Connect detects the server's era and falls back to initialize.
func WithClientLegacy(revs ...Revision) ClientOption {
	return func(o *clientOptions) { o.legacy = append(o.legacy, revs...) }
}

// WithoutLegacyFallback stops bindings of a modern revision from falling
// back to the legacy versions their transport speaks (see Connect): the
// client then speaks its modern revision or fails.
func WithoutLegacyFallback() ClientOption { return func(o *clientOptions) { o.noFallback = true } }

// legacyVersioner is implemented by transports that speak legacy versions
// too (streamhttp.ClientTransport).
type legacyVersioner interface{ LegacyVersions() []string }

// LegacyFallback is the Revision a client with the bindings of the modern
// revision modern uses to speak the legacy version to a legacy server: the
// modern revision's method tables with the legacy lifecycle (initialize,
// ping, logging/setLevel) and cancellation (notifications/cancelled in
// both directions, a dropped stream is no cancellation). The session maps
// params and results between the eras.
func LegacyFallback(modern Revision, version string) Revision {
	pol := modern.Policy
	legacyScope := jsonrpc2.CancelScope{OwnRequests: jsonrpc2.MethodSet{All: true}}
	return Revision{
		Version: version,
		Policy: func(side jsonrpc2.Side) jsonrpc2.Policy {
			p := jsonrpc2.Policy{Side: side, CancelledMethod: "notifications/cancelled", ProgressMethod: "notifications/progress"}
			if pol != nil {
				p = pol(side)
			}
			p.DisconnectIsCancellation = false
			p.LivenessMethod = MethodPing
			p.NeverCancellable = []string{MethodInitialize}
			p.ClientCancels, p.ServerCancels = legacyScope, legacyScope
			return p
		},
		ServerMethods: modern.ServerMethods,
		ClientMethods: modern.ClientMethods,
		Capabilities:  modern.Capabilities,
		Lifecycle:     []string{MethodInitialize, MethodInitialized, MethodPing, MethodSetLevel},
	}
}

// WithVersion forces a protocol version instead of detecting the era: a
// legacy version sends initialize with it, the modern one skips the probe.
func WithVersion(v string) ClientOption { return func(o *clientOptions) { o.version = v } }

// WithProbeTimeout bounds how long the server/discover probe waits before
// the server is taken for legacy (default 5s).
func WithProbeTimeout(d time.Duration) ClientOption {
	return func(o *clientOptions) { o.probeTimeout = d }
}

// WithClientConnOptions adds runtime options to the client's Conn.
func WithClientConnOptions(opts ...jsonrpc2.Option) ClientOption {
	return func(o *clientOptions) { o.connOpts = append(o.connOpts, opts...) }
}

// WithClientLogger sets the client Conn's logger (filtered at Warn).
func WithClientLogger(l *slog.Logger) ClientOption { return func(o *clientOptions) { o.logger = l } }

// probeID is the id of the server/discover probe, a string so that it
// never collides with the Conn's integer ids.
var probeID = jsonrpc2.StringID("mcpgen-discover-probe")

// Connect performs the lifecycle over t and returns the session. With a
// modern revision among cfg.Revisions and no WithVersion, it probes
// server/discover and falls back to initialize on any answer that is not
// a DiscoverResult or UnsupportedProtocolVersionError, or on silence
// (transports/stdio.mdx); a DiscoverResult or -32022 that does not list the
// client's version selects the newest version both list. When cfg's first
// revision is modern and t speaks legacy versions too (it has a
// LegacyVersions method, as streamhttp.ClientTransport does), those are
// added as LegacyFallback revisions unless WithoutLegacyFallback is given.
// Later, a modern request refused with -32022 is sent again once at a
// version the error lists. ctx bounds the lifecycle only.
func Connect(ctx context.Context, t jsonrpc2.Transport, cfg ClientConfig, opts ...ClientOption) (*ClientSession, error) {
	o := clientOptions{probeTimeout: 5 * time.Second, logger: slog.Default()}
	for _, f := range opts {
		f(&o)
	}
	if len(cfg.Revisions) == 0 {
		return nil, errors.New("session: Connect needs at least one revision")
	}
	revs := append(slices.Clone(cfg.Revisions), o.legacy...)
	if lv, ok := t.(legacyVersioner); ok && !o.noFallback && cfg.Revisions[0].Modern {
		// Bindings of a modern revision over a transport that also speaks
		// legacy versions (Streamable HTTP): without WithClientLegacy, the
		// client still falls back to them, under its own types (the
		// transport maps the messages), rather than fail against a server
		// of the legacy era.
		for _, v := range lv.LegacyVersions() {
			if _, have := find(revs, v); !have {
				revs = append(revs, LegacyFallback(cfg.Revisions[0], v))
			}
		}
	}
	slices.SortStableFunc(revs, func(a, b Revision) int { return -compareVersion(a.Version, b.Version) })
	rememberVersions(revs...)
	base := cfg.Revisions[0]
	caps := cfg.Capabilities
	if caps == nil {
		m := map[string]json.RawMessage{}
		for _, method := range cfg.Provided {
			if c, ok := inputCapabilities[method]; ok {
				m[c] = json.RawMessage(`{}`)
			}
		}
		caps = mustJSON(m)
	}
	ct := newClientTransport(t, base, cfg.Info, caps)
	c := &ClientSession{}

	var modern *Revision
	var legacyVersion string
	switch {
	case o.version != "":
		r, ok := find(revs, o.version)
		if !ok {
			return nil, fmt.Errorf("session: version %s is not among the client's revisions", o.version)
		}
		if r.Modern {
			modern = &r
		} else {
			legacyVersion = r.Version
		}
	case revs[0].Modern:
		r, dr, err := probe(ctx, ct, revs, cfg.Info, caps, o.probeTimeout)
		if err != nil {
			// As after a failed initialize: the transport is closed, and
			// the goroutine reading it ends.
			ct.Close()
			return nil, err
		}
		if r.Modern {
			modern = &r
			c.fromDiscover(dr)
		} else {
			legacyVersion = r.Version
		}
	default:
		legacyVersion = revs[0].Version
	}

	rev := Revision{}
	if modern != nil {
		rev = *modern
	} else {
		rev, _ = find(revs, legacyVersion)
	}
	ct.setMode(modern != nil, rev.Version)
	for _, r := range revs {
		if r.Modern {
			ct.modernVersions = append(ct.modernVersions, r.Version)
		}
	}
	// The session answers ping in an interceptor, before the handlers: a
	// handler for ping never shadows it.
	ics := append(slices.Clip(o.interceptors), jsonrpc2.Interceptor{Request: answerPing})
	connOpts := append([]jsonrpc2.Option{jsonrpc2.WithInterceptors(ics...), jsonrpc2.WithLogger(atLeast(o.logger, slog.LevelWarn))}, o.connOpts...)
	pol := answersPing(rev.Policy(jsonrpc2.SideClient))
	if ct.innerMW == nil {
		// ct takes the Conn's messages described (a MessageWriter), but
		// the transport under it has no streams to close: the Conn
		// cancels by notification, as over any plain transport. Over
		// one that has them (Streamable HTTP) ct closes the call's
		// stream (closeStream).
		pol.DisconnectIsCancellation = false
	}
	connOpts = append(connOpts, jsonrpc2.WithPolicy(pol))
	conn := jsonrpc2.NewConn(ct, connOpts...)
	ct.conn = conn
	if cfg.Register != nil {
		cfg.Register(conn)
	}
	conn.Start()
	c.conn, c.rev, c.modern = conn, rev, modern != nil
	if c.modern {
		if c.capabilities == nil && rev.HasLifecycle(MethodDiscover) {
			// Forced modern: discover now, through the Conn.
			var dr json.RawMessage
			if err := conn.Call(ctx, MethodDiscover, json.RawMessage(`{}`), &dr); err != nil {
				conn.Close(context.WithoutCancel(ctx))
				return nil, fmt.Errorf("session: server/discover: %w", err)
			}
			c.fromDiscover(dr)
		}
		return c, nil
	}
	if err := c.initialize(ctx, revs, legacyVersion, cfg.Info, caps); err != nil {
		conn.Close(context.WithoutCancel(ctx))
		return nil, err
	}
	return c, nil
}

// answerPing is the client's lifecycle: ping is answered by the session.
func answerPing(ctx context.Context, req *jsonrpc2.Request, next jsonrpc2.Handler) (any, error) {
	if req.Method == MethodPing {
		return json.RawMessage(`{}`), nil
	}
	return next(ctx, req)
}

func find(revs []Revision, v string) (Revision, bool) {
	for _, r := range revs {
		if r.Version == v {
			return r, true
		}
	}
	return Revision{}, false
}

func (c *ClientSession) fromDiscover(dr json.RawMessage) {
	var d struct {
		Meta struct {
			ServerInfo json.RawMessage `json:"io.modelcontextprotocol/serverInfo"`
		} `json:"_meta"`
		Capabilities json.RawMessage `json:"capabilities"`
		Instructions string          `json:"instructions"`
	}
	_ = json.Unmarshal(dr, &d)
	c.infoJSON, c.capabilities, c.instructions = d.Meta.ServerInfo, d.Capabilities, d.Instructions
	_ = json.Unmarshal(c.infoJSON, &c.serverInfo)
}

// initialize is the legacy handshake: initialize, a version check, then
// notifications/initialized.
func (c *ClientSession) initialize(ctx context.Context, revs []Revision, version string, info Implementation, caps json.RawMessage) error {
	var res struct {
		ProtocolVersion string          `json:"protocolVersion"`
		Capabilities    json.RawMessage `json:"capabilities"`
		ServerInfo      json.RawMessage `json:"serverInfo"`
		Instructions    string          `json:"instructions"`
	}
	params := map[string]any{"protocolVersion": version, "capabilities": caps, "clientInfo": info}
	if err := c.conn.Call(ctx, MethodInitialize, params, &res); err != nil {
		return fmt.Errorf("session: initialize: %w", err)
	}
	r, ok := find(revs, res.ProtocolVersion)
	if !ok || r.Modern {
		return fmt.Errorf("session: the server answered initialize with protocol version %q, which this client does not speak", res.ProtocolVersion)
	}
	if r.Version != c.rev.Version {
		// The server chose another legacy version; the policies of the
		// legacy revisions agree on everything a stdio client does, so
		// the Conn keeps the one it was built with.
		c.rev = r
	}
	c.infoJSON, c.capabilities, c.instructions = res.ServerInfo, res.Capabilities, res.Instructions
	_ = json.Unmarshal(c.infoJSON, &c.serverInfo)
	return c.conn.Notify(ctx, MethodInitialized, nil)
}

// probe sends server/discover on the raw transport, before any Conn
// exists, so the Conn can be built with the era's Policy. Messages other
// than the answer are kept for the Conn.
func probe(ctx context.Context, ct *clientTransport, revs []Revision, info Implementation, caps json.RawMessage, timeout time.Duration) (Revision, json.RawMessage, error) {
	newestLegacy := func() (Revision, json.RawMessage, error) {
		for _, r := range revs {
			if !r.Modern {
				return r, nil, nil
			}
		}
		return Revision{}, nil, errors.New("session: the server is legacy and this client speaks no legacy version")
	}
	modern := revs[0]
	for attempt := 0; attempt < 2; attempt++ {
		params := mustJSON(map[string]any{"_meta": map[string]any{
			MetaProtocolVersion: modern.Version, MetaClientInfo: info, MetaClientCapabilities: caps}})
		msg := mustJSON(map[string]any{"jsonrpc": "2.0", "id": probeID, "method": MethodDiscover, "params": params})
		if err := ct.inner.Write(ctx, msg); err != nil {
			return Revision{}, nil, err
		}
		m, err := ct.awaitProbe(ctx, timeout)
		if errors.Is(err, errProbeTimeout) {
			return newestLegacy()
		}
		if err != nil {
			return Revision{}, nil, err
		}
		if m.Kind == jsonrpc2.KindResponse {
			var d struct {
				SupportedVersions []string `json:"supportedVersions"`
			}
			if json.Unmarshal(m.Result, &d) != nil || len(d.SupportedVersions) == 0 {
				// Not a DiscoverResult: a legacy server that answers
				// anything (stdio.mdx: fall back on any answer that is not
				// a DiscoverResult).
				return newestLegacy()
			}
			if slices.Contains(d.SupportedVersions, modern.Version) {
				return modern, m.Result, nil
			}
			// The server lists other versions (go-sdk v1.8's sessionful
			// handler answers server/discover listing only legacy ones):
			// the newest both speak.
			for _, r := range revs {
				if slices.Contains(d.SupportedVersions, r.Version) {
					if r.Modern {
						return r, m.Result, nil
					}
					return r, nil, nil
				}
			}
			return Revision{}, nil, fmt.Errorf("session: no mutually supported version: the server speaks %v", d.SupportedVersions)
		}
		if m.Error == nil || m.Error.Code != CodeUnsupportedProtocolVersion {
			return newestLegacy()
		}
		// A modern server that does not speak our modern version: use one
		// it lists (versioning.mdx), never falling back on guesswork.
		var d struct {
			Supported []string `json:"supported"`
		}
		_ = json.Unmarshal(m.Error.Data, &d)
		var pick *Revision
		for _, r := range revs {
			if slices.Contains(d.Supported, r.Version) {
				pick = &r
				break
			}
		}
		if pick == nil {
			return Revision{}, nil, fmt.Errorf("session: no mutually supported version: the server speaks %v", d.Supported)
		}
		if !pick.Modern {
			return *pick, nil, nil
		}
		modern = *pick
	}
	return Revision{}, nil, errors.New("session: server/discover kept refusing the version it listed")
}
