package bench

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var gosdkPeer = Peer{Name: "go-sdk v1.8.0", Connect: gosdkConnect, CancelsUnderLoad: true}

type echoIn struct {
	Text string `json:"text"`
}

// gosdkServer is a go-sdk server with the echo and block tools.
func gosdkServer(h *Hooks) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "echo"}, func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: echoText(in.Text)}}}, nil, nil
	})
	mcp.AddTool(server, &mcp.Tool{Name: "block"}, func(ctx context.Context, req *mcp.CallToolRequest, in struct{}) (*mcp.CallToolResult, any, error) {
		return nil, nil, blockBody(ctx, h)
	})
	return server
}

// gosdkCaller is the Client of a connected go-sdk client session.
func gosdkCaller(cs *mcp.ClientSession, closeAll func()) *Client {
	return &Client{
		Echo: func(ctx context.Context, text string) (string, error) {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": text}})
			if err != nil {
				return "", err
			}
			if len(res.Content) == 0 {
				return "", errNoText
			}
			tc, ok := res.Content[0].(*mcp.TextContent)
			if !ok {
				return "", errNoText
			}
			return tc.Text, nil
		},
		Block: func(ctx context.Context) error {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "block", Arguments: map[string]any{}})
			return err
		},
		Close: closeOnce(closeAll),
	}
}

func gosdkConnect(t TransportKind, h *Hooks) (*Client, error) {
	server := gosdkServer(h)
	var st, ct mcp.Transport
	var p *pipes
	if t == Pipe {
		var err error
		if p, err = newPipes(); err != nil {
			return nil, err
		}
		st = &mcp.IOTransport{Reader: p.sr, Writer: p.sw}
		ct = &mcp.IOTransport{Reader: p.cr, Writer: p.cw}
	} else {
		ct, st = mcp.NewInMemoryTransports()
	}
	ctx := context.Background()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		return nil, err
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
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
