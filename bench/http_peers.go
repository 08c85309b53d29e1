package bench

import (
	"context"
	"net/http"
	"time"

	mcpclient "github.com/mark3labs/mcp-go/client"
	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpgenHTTP is the README's HTTP server: the same NewServer as stdio
// (2026-07-28 bindings with session.WithLegacy(2025-11-25), typed tools)
// behind streamhttp.NewHandler; the client is
// mcp.Connect over streamhttp's client transport, the version forced to
// the mode's revision.
var mcpgenHTTP = HTTPPeer{
	Name: "mcpgen",
	Handler: func(m HTTPMode, h *Hooks) (http.Handler, func(), error) {
		srv := mcpgenServer(h)
		handler := streamhttp.NewHandler(srv, streamhttp.Options{Logger: quiet(), SSEResponses: m.SSE})
		return handler, func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			handler.Close(ctx)
		}, nil
	},
	Connect: mcpgenHTTPConnect,
	Note: func(m HTTPMode) string {
		if m.SSE {
			return "Options.SSEResponses"
		}
		return "defaults"
	},
}

func mcpgenHTTPConnect(url string, m HTTPMode) (*Client, error) {
	era := streamhttp.EraLegacy
	if m.Era == Modern {
		era = streamhttp.EraModern
	}
	tr := streamhttp.NewClientTransport(url, streamhttp.ClientOptions{Era: era, Revisions: []session.Revision{mcp.Revision(), mcp20251125.Revision()}, Logger: quiet()})
	sess, c, err := mcpgenClient(context.Background(), tr, m.Revision())
	if err != nil {
		tr.Close()
		return nil, err
	}
	c.Close = closeOnce(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		sess.Close(ctx)
	})
	return c, nil
}

// gosdkHTTP is go-sdk's StreamableHTTPHandler and StreamableClientTransport:
// sessions for legacy, Stateless with PropagateRequestCancellation for
// modern (without it go-sdk never cancels a modern handler on a closed
// stream, go-sdk #1093), JSONResponse for JSON.
var gosdkHTTP = HTTPPeer{
	Name: "go-sdk v1.8.0",
	Handler: func(m HTTPMode, h *Hooks) (http.Handler, func(), error) {
		s := gosdkServer(h)
		return gosdk.NewStreamableHTTPHandler(func(*http.Request) *gosdk.Server { return s }, gosdkOptions(m)), func() {}, nil
	},
	Connect: func(url string, m HTTPMode) (*Client, error) {
		v := legacyVersion
		if m.Era == Modern {
			v = modernVersion
		}
		client := gosdk.NewClient(&gosdk.Implementation{Name: "bench", Version: "0"}, nil)
		cs, err := client.Connect(context.Background(), &gosdk.StreamableClientTransport{Endpoint: url}, &gosdk.ClientSessionOptions{ProtocolVersion: v})
		if err != nil {
			return nil, err
		}
		return gosdkCaller(cs, func() { cs.Close() }), nil
	},
	Note: func(m HTTPMode) string {
		o := gosdkOptions(m)
		s := "JSONResponse " + map[bool]string{true: "true", false: "false"}[o.JSONResponse]
		if o.Stateless {
			s += ", Stateless, PropagateRequestCancellation"
		}
		return s
	},
}

func gosdkOptions(m HTTPMode) *gosdk.StreamableHTTPOptions {
	return &gosdk.StreamableHTTPOptions{
		JSONResponse:                 !m.SSE,
		Stateless:                    m.Era == Modern,
		PropagateRequestCancellation: m.Era == Modern,
		Logger:                       quiet(),
	}
}

// mcpgoHTTP is mcp-go's StreamableHTTPServer and streamable HTTP client
// transport: WithStateful sessions for legacy, its default per-request
// handling for modern. mcp-go answers JSON unless something is sent before
// the response; SSE responses are asked for the documented way, a
// before-call-tool hook calling UpgradeToSSEWhenReceiveNotification, so the
// tool bodies stay the same.
var mcpgoHTTP = HTTPPeer{
	Name: "mcp-go v1.2.1",
	Handler: func(m HTTPMode, h *Hooks) (http.Handler, func(), error) {
		var opts []mcpgoserver.ServerOption
		if m.SSE {
			hooks := &mcpgoserver.Hooks{}
			hooks.AddBeforeCallTool(func(ctx context.Context, _ any, _ *mcpgo.CallToolRequest) {
				if s, ok := mcpgoserver.ClientSessionFromContext(ctx).(mcpgoserver.SessionWithStreamableHTTPConfig); ok {
					s.UpgradeToSSEWhenReceiveNotification()
				}
			})
			opts = append(opts, mcpgoserver.WithHooks(hooks))
		}
		s := mcpgoServer(h, opts...)
		hopts := []mcpgoserver.StreamableHTTPOption{mcpgoserver.WithStreamableHTTPLogger(quiet())}
		if m.Era == Legacy {
			hopts = append(hopts, mcpgoserver.WithStateful(true))
		}
		return mcpgoserver.NewStreamableHTTPServer(s, hopts...), func() {}, nil
	},
	Connect: func(url string, m HTTPMode) (*Client, error) {
		tr, err := mcptransport.NewStreamableHTTP(url, mcptransport.WithHTTPLogger(quiet()))
		if err != nil {
			return nil, err
		}
		v := legacyVersion
		if m.Era == Modern {
			v = modernVersion
		}
		c := mcpclient.NewClient(tr, mcpclient.WithProtocolVersion(v))
		ctx := context.Background()
		closeAll := closeOnce(func() { c.Close() })
		if err := c.Start(ctx); err != nil {
			closeAll()
			return nil, err
		}
		var init mcpgo.InitializeRequest
		init.Params.ProtocolVersion = v
		init.Params.ClientInfo = mcpgo.Implementation{Name: "bench", Version: "0"}
		res, err := c.Initialize(ctx, init)
		if err != nil {
			closeAll()
			return nil, err
		}
		return mcpgoCaller(c, res.ProtocolVersion, closeAll), nil
	},
	Note: func(m HTTPMode) string {
		s := "defaults"
		if m.Era == Legacy {
			s = "WithStateful(true)"
		}
		if m.SSE {
			s += ", UpgradeToSSEWhenReceiveNotification hook"
		}
		return s
	},
}
