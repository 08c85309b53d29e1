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
	s.AddTool(mcp.NewTool("echo", mcp.WithString("text")), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return mcp.NewToolResultText(echoText(req.GetString("text", ""))), nil
	})
	s.AddTool(mcp.NewTool("block"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return nil, blockBody(ctx, h)
	})
	return s
}

// mcpgoCaller is the Client of a started, initialized mcp-go client.
func mcpgoCaller(c *client.Client, closeAll func()) *Client {
	return &Client{
		Echo: func(ctx context.Context, text string) (string, error) {
			var req mcp.CallToolRequest
			req.Params.Name = "echo"
			req.Params.Arguments = map[string]any{"text": text}
			res, err := c.CallTool(ctx, req)
			if err != nil {
				return "", err
			}
			if len(res.Content) == 0 {
				return "", errNoText
			}
			tc, ok := res.Content[0].(mcp.TextContent)
			if !ok {
				return "", errNoText
			}
			return tc.Text, nil
		},
		Block: func(ctx context.Context) error {
			var req mcp.CallToolRequest
			req.Params.Name = "block"
			_, err := c.CallTool(ctx, req)
			return err
		},
		Close: closeAll,
	}
}

func mcpgoConnect(t TransportKind, h *Hooks) (*Client, error) {
	s := mcpgoServer(h)
	ctx, cancel := context.WithCancel(context.Background())
	var c *client.Client
	var p *pipes
	if t == Pipe {
		var err error
		if p, err = newPipes(); err != nil {
			cancel()
			return nil, err
		}
		ss := server.NewStdioServer(s)
		ss.SetErrorLogger(log.New(discard{}, "", 0))
		go ss.Listen(ctx, p.sr, p.sw)
		c = client.NewClient(transport.NewIO(p.cr, p.cw, nil))
	} else {
		var err error
		if c, err = client.NewInProcessClient(s); err != nil {
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
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "bench", Version: "0"}
	if _, err := c.Initialize(ctx, init); err != nil {
		closeAll()
		return nil, err
	}
	return mcpgoCaller(c, closeAll), nil
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
