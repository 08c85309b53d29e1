package quickstart_test

// The README's code fragments that are not quoted from a program live here,
// verbatim, so they compile; cmd/mcpgen's TestReadmeCodeBlocks checks that
// each README block annotated with this file's name is in it.

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp20241105"
	"github.com/mcpgen/mcpgen/generated/mcp20250326"
	"github.com/mcpgen/mcpgen/generated/mcp20250618"
	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// server is the README's server type: it serves the sleep tool.
type server struct{ log *slog.Logger }

// CallTool answers every call with the tool's name.
func (s *server) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	return mcp.TextResult("called " + p.Name), nil
}

// readmeServe is step 4 of "From go generate to a cancelled handler".
func readmeServe(ctx context.Context, log *slog.Logger) error {
	srv := mcp.NewServer(session.Implementation{Name: "mcpgen-stdio-server", Version: "0.1.0"}, &server{log: log},
		session.WithLegacy(mcp20251125.Revision(), mcp20250618.Revision(), mcp20250326.Revision(), mcp20241105.Revision()),
		session.WithConnOptions(jsonrpc2.WithObserver(jsonrpc2.LogCancellations(log)))) // one "cancellation" record per event
	err := srv.ServeStdio(ctx, 2*time.Second)
	// until stdin's EOF (what was already read is still answered, within WithEOFGrace), SIGINT or
	// SIGTERM; running handlers are then cancelled and get at most 2 s to return
	return err
}

// ServeStdio serves the process's own stdin, which a test cannot give it.
var _ = readmeServe

// readmeInterceptor is the README's interceptor.
func readmeInterceptor(log *slog.Logger, info session.Implementation) *session.Server {
	timing := jsonrpc2.Interceptor{Request: func(ctx context.Context, req *jsonrpc2.Request, next jsonrpc2.Handler) (any, error) {
		start := time.Now()
		res, err := next(ctx, req)
		log.Info("served", "method", req.Method, "took", time.Since(start), "error", err)
		return res, err
	}}
	srv := mcp.NewServer(info, &server{}, session.WithInterceptors(timing))
	return srv
}

// readmeConnect is step 5: connect, call.
func readmeConnect(ctx, callCtx context.Context, transport jsonrpc2.Transport, args map[string]json.RawMessage, gotSess **mcp.ClientSession, gotRes **mcp.CallToolResult) error {
	sess, err := mcp.Connect(ctx, transport, session.Implementation{Name: "mcpgen-stdio-client", Version: "0.1.0"}, nil,
		session.WithClientLegacy(mcp20251125.Revision(), mcp20250618.Revision(), mcp20250326.Revision(), mcp20241105.Revision()))
	if err != nil {
		return err
	}
	res, err := sess.CallTool(callCtx, &mcp.CallToolRequestParams{Name: "sleep", Arguments: args})
	*gotSess, *gotRes = sess, res
	return err
}

// TestReadmeFragments runs the interceptor's server and the client of the
// README against each other over a pipe.
func TestReadmeFragments(t *testing.T) {
	a, b := jsonrpc2.NewPipe()
	srv := readmeInterceptor(slog.New(slog.DiscardHandler), session.Implementation{Name: "readme", Version: "0"})
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), a) }()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var sess *mcp.ClientSession
	var res *mcp.CallToolResult
	if err := readmeConnect(ctx, ctx, b, map[string]json.RawMessage{"ms": json.RawMessage("1")}, &sess, &res); err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "called sleep" {
		t.Errorf("result %q", got)
	}
	if err := sess.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
