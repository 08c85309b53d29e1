package bench

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var gosdkPeer = Peer{Name: "go-sdk v1.8.0", Connect: gosdkConnect, CancelsUnderLoad: true}

// echoIn and echoOut are the echo tool's typed arguments and result, the
// shapes of bench/tools/tools.json, for go-sdk's and mcp-go's typed tools.
type echoIn struct {
	Text string `json:"text"`
}

type echoOut struct {
	Text string `json:"text"`
}

// gosdkServer is a go-sdk server with the echo and block tools.
func gosdkServer(h *Hooks) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
	// Typed tools (mcp.AddTool with In and Out types): go-sdk infers both
	// schemas, validates the arguments, and answers structuredContent plus
	// its JSON as text, as mcpgen's generated tools and mcp-go's
	// NewStructuredToolHandler do.
	mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, echoOut, error) {
		return nil, echoOut{Text: echoText(in.Text)}, nil
	})
	mcp.AddTool(server, &mcp.Tool{Name: "block"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, struct{}, error) {
		return nil, struct{}{}, blockBody(ctx, h)
	})
	return server
}

// gosdkCaller is the Client of a connected go-sdk client session.
func gosdkCaller(cs *mcp.ClientSession, closeAll func()) *Client {
	return &Client{
		Echo: func(ctx context.Context, text string) (string, error) {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: echoIn{Text: text}})
			if err != nil {
				return "", err
			}
			return structuredText(res.StructuredContent)
		},
		Block: func(ctx context.Context) error {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "block", Arguments: struct{}{}})
			return err
		},
		Close:    closeOnce(closeAll),
		Revision: cs.InitializeResult().ProtocolVersion,
	}
}

func gosdkConnect(t TransportKind, rev string, h *Hooks) (*Client, error) {
	server := gosdkServer(h)
	var st, ct mcp.Transport
	var p *pipes
	if t.isPipe() {
		var err error
		if p, err = newPipes(); err != nil {
			return nil, err
		}
		sw, cw := p.writers(t)
		st = &mcp.IOTransport{Reader: p.sr, Writer: writeCloser(sw)}
		ct = &mcp.IOTransport{Reader: p.cr, Writer: writeCloser(cw)}
	} else {
		ct, st = mcp.NewInMemoryTransports()
	}
	ctx := context.Background()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		return nil, err
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
	// ClientSessionOptions.ProtocolVersion is go-sdk's documented way to
	// pin the version (initialize's, or server/discover's for 2026-07-28).
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: rev})
	if err != nil {
		ss.Close()
		return nil, err
	}
	return gosdkCaller(cs, func() {
		cs.Close()
		ss.Close()
		if p != nil {
			p.close()
		}
	}), nil
}
