package bench

import (
	"context"
	"encoding/json"
	"net/http"
	"time"

	mcpclient "github.com/mark3labs/mcp-go/client"
	mcptransport "github.com/mark3labs/mcp-go/client/transport"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpgoserver "github.com/mark3labs/mcp-go/server"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20251125"
	modern "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	gosdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpgenHTTP is runtime/streamhttp serving the generated 2025-11-25
// (legacy) and 2026-07-28 (modern) servers on one endpoint, and its client
// transport under a jsonrpc2.Conn with the generated callers.
var mcpgenHTTP = HTTPPeer{
	Name: "mcpgen",
	Handler: func(m HTTPMode, h *Hooks) (http.Handler, func(), error) {
		handler := streamhttp.NewHandler(func(t jsonrpc2.Transport, era streamhttp.Era) *jsonrpc2.Conn {
			if era == streamhttp.EraModern {
				c := jsonrpc2.NewConn(t, jsonrpc2.WithPolicy(modern.Policy(jsonrpc2.SideServer)), jsonrpc2.WithLogger(quiet()))
				modern.RegisterServer(c, &mcpgenModernServer{h: h})
				return c
			}
			c := jsonrpc2.NewConn(t, jsonrpc2.WithPolicy(mcp.Policy(jsonrpc2.SideServer)), jsonrpc2.WithLogger(quiet()))
			mcp.RegisterServer(c, &mcpgenServer{h: h})
			return c
		}, streamhttp.Options{Logger: quiet(), SSEResponses: m.SSE})
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

type mcpgenModernServer struct {
	h *Hooks
}

func (s *mcpgenModernServer) CallTool(ctx context.Context, p *modern.CallToolRequestParams) (*modern.CallToolResult, error) {
	switch p.Name {
	case "echo":
		var text string
		if raw, ok := p.Arguments["text"]; ok {
			text = unquote(raw)
		}
		return &modern.CallToolResult{Content: []modern.ContentBlock{&modern.TextContent{Text: echoText(text)}}}, nil
	case "block":
		return nil, blockBody(ctx, s.h)
	}
	return nil, jsonrpc2.ErrInvalidParams("unknown tool " + p.Name)
}

func mcpgenHTTPConnect(url string, m HTTPMode) (*Client, error) {
	era, pol := streamhttp.EraLegacy, mcp.Policy(jsonrpc2.SideClient)
	if m.Era == Modern {
		era, pol = streamhttp.EraModern, modern.Policy(jsonrpc2.SideClient)
	}
	tr := streamhttp.NewClientTransport(url, streamhttp.ClientOptions{Era: era, Logger: quiet()})
	conn := jsonrpc2.NewConn(tr, jsonrpc2.WithPolicy(pol), jsonrpc2.WithLogger(quiet()))
	if m.Era == Modern {
		modern.RegisterClient(conn, nil)
	} else {
		mcp.RegisterClient(conn, nil)
	}
	conn.Start()
	closeAll := closeOnce(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		conn.Close(ctx)
	})
	if m.Era == Legacy {
		s, err := mcpgenLegacyCaller(conn, closeAll)
		if err != nil {
			closeAll()
		}
		return s, err
	}
	caller := modern.NewServerCaller(conn)
	meta := modern.RequestMetaObject{ProtocolVersion: modernVersion, ClientInfo: &modern.Implementation{Name: "bench", Version: "0"}}
	return &Client{
		Echo: func(ctx context.Context, text string) (string, error) {
			res, err := caller.CallTool(ctx, &modern.CallToolRequestParams{Meta: meta, Name: "echo", Arguments: map[string]json.RawMessage{"text": quote(text)}})
			if err != nil {
				return "", err
			}
			if len(res.Content) == 0 {
				return "", errNoText
			}
			tc, ok := res.Content[0].(*modern.TextContent)
			if !ok {
				return "", errNoText
			}
			return tc.Text, nil
		},
		Block: func(ctx context.Context) error {
			_, err := caller.CallTool(ctx, &modern.CallToolRequestParams{Meta: meta, Name: "block"})
			return err
		},
		Close: closeAll,
	}, nil
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
		if _, err := c.Initialize(ctx, init); err != nil {
			closeAll()
			return nil, err
		}
		return mcpgoCaller(c, closeAll), nil
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
