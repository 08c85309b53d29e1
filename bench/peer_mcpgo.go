package bench

import (
	"context"
	"log"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

var mcpgoPeer = Peer{Name: "mcp-go v1.2.1", Connect: mcpgoConnect}

// mcpgoServer is an mcp-go server with the echo and block tools.
func mcpgoServer(h *Hooks, opts ...server.ServerOption) *server.MCPServer {
	s := server.NewMCPServer("bench", "0", append([]server.ServerOption{server.WithToolCapabilities(false)}, opts...)...)
	// Typed tools: schemas from the Go types, arguments bound by
	// NewStructuredToolHandler, structuredContent plus its JSON as text.
	s.AddTool(mcp.NewTool("echo", mcp.WithInputSchema[echoIn](), mcp.WithOutputSchema[echoOut]()),
		mcp.NewStructuredToolHandler(func(ctx context.Context, req mcp.CallToolRequest, in echoIn) (echoOut, error) {
			return echoOut{Text: echoText(in.Text)}, nil
		}))
	s.AddTool(mcp.NewTool("block", mcp.WithInputSchema[struct{}](), mcp.WithOutputSchema[struct{}]()),
		mcp.NewStructuredToolHandler(func(ctx context.Context, req mcp.CallToolRequest, in struct{}) (struct{}, error) {
			return struct{}{}, blockBody(ctx, h)
		}))
	return s
}

// mcpgoCaller is the Client of a started, initialized mcp-go client.
func mcpgoCaller(c *client.Client, rev string, closeAll func()) *Client {
	return &Client{
		Echo: func(ctx context.Context, text string) (string, error) {
			var req mcp.CallToolRequest
			req.Params.Name = "echo"
			req.Params.Arguments = echoIn{Text: text}
			res, err := c.CallTool(ctx, req)
			if err != nil {
				return "", err
			}
			return structuredText(res.StructuredContent)
		},
		Block: func(ctx context.Context) error {
			var req mcp.CallToolRequest
			req.Params.Name = "block"
			_, err := c.CallTool(ctx, req)
			return err
		},
		Close:    closeAll,
		Revision: rev,
	}
}

func mcpgoConnect(t TransportKind, rev string, h *Hooks) (*Client, error) {
	s := mcpgoServer(h)
	ctx, cancel := context.WithCancel(context.Background())
	var c *client.Client
	var p *pipes
	if t.isPipe() {
		var err error
		if p, err = newPipes(); err != nil {
			cancel()
			return nil, err
		}
		sw, cw := p.writers(t)
		ss := server.NewStdioServer(s)
		ss.SetErrorLogger(log.New(discard{}, "", 0))
		go ss.Listen(ctx, p.sr, sw)
		c = client.NewClient(transport.NewIO(p.cr, writeCloser(cw), nil), client.WithProtocolVersion(rev))
	} else {
		var err error
		if c, err = client.NewInProcessClientWithOptions(s, client.WithProtocolVersion(rev)); err != nil {
			cancel()
			return nil, err
		}
	}
	closeAll := closeOnce(func() {
		cancel()
		c.Close()
		if p != nil {
			p.close()
		}
	})
	if err := c.Start(ctx); err != nil {
		closeAll()
		return nil, err
	}
	var init mcp.InitializeRequest
	// client.WithProtocolVersion and the request's version pin the
	// revision (initialize for 2025-11-25, server/discover for 2026-07-28).
	init.Params.ProtocolVersion = rev
	init.Params.ClientInfo = mcp.Implementation{Name: "bench", Version: "0"}
	res, err := c.Initialize(ctx, init)
	if err != nil {
		closeAll()
		return nil, err
	}
	return mcpgoCaller(c, res.ProtocolVersion, closeAll), nil
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
