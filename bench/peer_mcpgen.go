package bench

import (
	"context"
	"io"
	"log/slog"

	"github.com/mcpgen/mcpgen/bench/tools"
	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

var mcpgenPeer = Peer{Name: "mcpgen", Connect: mcpgenConnect, CancelsUnderLoad: true}

// benchTools implements the generated tools.Tools: the bodies every peer
// shares.
type benchTools struct{ h *Hooks }

func (t benchTools) Echo(_ context.Context, a *tools.EchoArgs) (*tools.EchoResult, error) {
	return &tools.EchoResult{Text: echoText(a.Text)}, nil
}

func (t benchTools) Block(ctx context.Context, _ *tools.BlockArgs) (*tools.BlockResult, error) {
	return nil, blockBody(ctx, t.h)
}

// quiet is the logger every peer gets: disabled at every level, so no peer
// formats records nobody reads (mcpgen's own default passes only warnings
// on, go-sdk's and mcp-go's log little per request).
func quiet() *slog.Logger {
	return slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelError + 1}))
}

// maxInFlight admits the largest cancel-under-load run. The default
// admission bound (jsonrpc2.DefaultMaxInFlight, 1024) answers requests
// beyond it CodeServerBusy at once; the 10,000 in-flight figure needs them
// all admitted, as go-sdk and mcp-go (which have no bound) do.
const maxInFlight = 1 << 15

var benchInfo = session.Implementation{Name: "bench", Version: "0"}

// mcpgenServer is the README's server: the newest bindings' NewServer with
// the generated typed tools' Handler, serving 2025-11-25 clients too
// (session.WithLegacy), with the runtime's logs off like every peer's.
func mcpgenServer(h *Hooks) *session.Server {
	return mcp.NewServer(benchInfo, tools.NewHandler(benchTools{h: h}),
		session.WithLegacy(mcp20251125.Revision()),
		session.WithLogger(quiet()),
		session.WithConnOptions(jsonrpc2.WithLogger(quiet()), jsonrpc2.WithMaxInFlight(maxInFlight)))
}

// mcpgenClient is the README's client: mcp.Connect with the version forced
// to rev, and the generated typed tools' Caller over the session.
func mcpgenClient(ctx context.Context, t jsonrpc2.Transport, rev string) (*mcp.ClientSession, *Client, error) {
	sess, err := mcp.Connect(ctx, t, benchInfo, nil,
		session.WithClientLegacy(mcp20251125.Revision()),
		session.WithVersion(rev),
		session.WithClientLogger(quiet()))
	if err != nil {
		return nil, nil, err
	}
	caller := tools.NewCaller(sess)
	return sess, &Client{
		Revision: sess.ProtocolVersion(),
		Echo: func(ctx context.Context, text string) (string, error) {
			res, err := caller.Echo(ctx, &tools.EchoArgs{Text: text})
			if err != nil {
				return "", err
			}
			return res.Text, nil
		},
		Block: func(ctx context.Context) error {
			_, err := caller.Block(ctx, &tools.BlockArgs{})
			return err
		},
	}, nil
}

func mcpgenConnect(t TransportKind, rev string, h *Hooks) (*Client, error) {
	var st, ct jsonrpc2.Transport
	var p *pipes
	if t.isPipe() {
		var err error
		if p, err = newPipes(); err != nil {
			return nil, err
		}
		sw, cw := p.writers(t)
		st = jsonrpc2.NewStdioTransport(p.sr, sw, jsonrpc2.StdioOptions{})
		ct = jsonrpc2.NewStdioTransport(p.cr, cw, jsonrpc2.StdioOptions{})
	} else {
		st, ct = jsonrpc2.NewPipe()
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	srv := mcpgenServer(h)
	go func() { served <- srv.Serve(ctx, st) }()
	sess, c, err := mcpgenClient(ctx, ct, rev)
	stop := func() {
		cancel()
		if p != nil {
			p.close()
		}
		<-served
	}
	if err != nil {
		ct.Close()
		stop()
		return nil, err
	}
	c.Close = closeOnce(func() {
		sess.Close(context.Background())
		stop()
	})
	return c, nil
}
