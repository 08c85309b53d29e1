package bench

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"

	mcp "github.com/mcpgen/mcpgen/generated/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

var mcpgenPeer = Peer{Name: "mcpgen", Connect: mcpgenConnect, CancelsUnderLoad: true}

type mcpgenServer struct {
	h *Hooks
}

func (s *mcpgenServer) Initialize(ctx context.Context, p *mcp.InitializeRequestParams) (*mcp.InitializeResult, error) {
	return &mcp.InitializeResult{
		ProtocolVersion: "2025-11-25",
		Capabilities:    mcp.ServerCapabilities{Tools: &mcp.ServerCapabilitiesTools{}},
		ServerInfo:      mcp.Implementation{Name: "bench", Version: "0"},
	}, nil
}

func (s *mcpgenServer) Initialized(ctx context.Context, _ *mcp.NotificationParams) error { return nil }

func (s *mcpgenServer) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	switch p.Name {
	case "echo":
		var text string
		if raw, ok := p.Arguments["text"]; ok {
			text = unquote(raw)
		}
		return &mcp.CallToolResult{Content: []mcp.ContentBlock{&mcp.TextContent{Text: echoText(text)}}}, nil
	case "block":
		return nil, blockBody(ctx, s.h)
	}
	return nil, jsonrpc2.ErrInvalidParams("unknown tool " + p.Name)
}

// quiet is the logger every peer gets: disabled at every level, so no peer
// formats records nobody reads (mcpgen's own default passes only warnings
// on, go-sdk's and mcp-go's log little per request).
// maxInFlight admits the largest cancel-under-load run.
const maxInFlight = 1 << 15

func quiet() *slog.Logger {
	return slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelError + 1}))
}

func mcpgenConnect(t TransportKind, h *Hooks) (*Client, error) {
	var st, ct jsonrpc2.Transport
	var p *pipes
	if t == Pipe {
		var err error
		if p, err = newPipes(); err != nil {
			return nil, err
		}
		st = jsonrpc2.NewStdioTransport(p.sr, p.sw, jsonrpc2.StdioOptions{})
		ct = jsonrpc2.NewStdioTransport(p.cr, p.cw, jsonrpc2.StdioOptions{})
	} else {
		st, ct = jsonrpc2.NewPipe()
	}
	// The default admission bound (jsonrpc2.DefaultMaxInFlight, 1024)
	// answers requests beyond it CodeServerBusy at once; the 10,000
	// in-flight figure needs them all admitted, as go-sdk and mcp-go
	// (which have no bound) do.
	server := jsonrpc2.NewConn(st, jsonrpc2.WithPolicy(mcp.Policy(jsonrpc2.SideServer)), jsonrpc2.WithLogger(quiet()), jsonrpc2.WithMaxInFlight(maxInFlight))
	client := jsonrpc2.NewConn(ct, jsonrpc2.WithPolicy(mcp.Policy(jsonrpc2.SideClient)), jsonrpc2.WithLogger(quiet()))
	mcp.RegisterServer(server, &mcpgenServer{h: h})
	mcp.RegisterClient(client, nil)
	server.Start()
	client.Start()
	closeAll := closeOnce(func() {
		client.Close(context.Background())
		server.Close(context.Background())
		if p != nil {
			p.close()
		}
	})
	s, err := mcpgenLegacyCaller(client, closeAll)
	if err != nil {
		closeAll()
	}
	return s, err
}

// mcpgenLegacyCaller initializes a 2025-11-25 client Conn and returns it as
// a Client.
func mcpgenLegacyCaller(client *jsonrpc2.Conn, closeAll func()) (*Client, error) {
	caller := mcp.NewServerCaller(client)
	ctx := context.Background()
	if _, err := caller.Initialize(ctx, &mcp.InitializeRequestParams{
		ProtocolVersion: "2025-11-25",
		ClientInfo:      mcp.Implementation{Name: "bench", Version: "0"},
	}); err != nil {
		return nil, err
	}
	if err := caller.Initialized(ctx, nil); err != nil {
		return nil, err
	}
	return &Client{
		Echo: func(ctx context.Context, text string) (string, error) {
			res, err := caller.CallTool(ctx, &mcp.CallToolRequestParams{Name: "echo", Arguments: map[string]json.RawMessage{"text": quote(text)}})
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
			_, err := caller.CallTool(ctx, &mcp.CallToolRequestParams{Name: "block"})
			return err
		},
		Close: closeAll,
	}, nil
}
