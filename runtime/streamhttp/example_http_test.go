package streamhttp_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http/httptest"

	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// hello is the server's one tool.
type hello struct{}

func (hello) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	return mcp.TextResult("hello over " + session.ProtocolVersion(ctx)), nil
}

// A server on Streamable HTTP for both eras, and a client of each era.
// NewHandler is the http.Handler of a *session.Server (a program
// calls streamhttp.ListenAndServe, which mounts it on /mcp and stops on
// SIGINT); Dial detects the server's era unless ClientOptions.Era says it,
// and the generated Connect makes the session over it.
func Example() {
	ctx := context.Background()
	quiet := slog.New(slog.DiscardHandler)
	srv := mcp.NewServer(session.Implementation{Name: "hello", Version: "1.0.0"}, hello{},
		session.WithLegacy(mcp20251125.Revision()), session.WithLogger(quiet))
	h := streamhttp.NewHandler(srv, streamhttp.Options{Logger: quiet})
	hs := httptest.NewServer(h)
	defer hs.Close()
	defer h.Close(ctx)

	info := session.Implementation{Name: "client", Version: "0"}
	// The client transport speaks the revisions Connect does.
	revisions := []session.Revision{mcp.Revision(), mcp20251125.Revision()}
	for _, era := range []streamhttp.Era{streamhttp.EraModern, streamhttp.EraLegacy} {
		tr, err := streamhttp.Dial(ctx, hs.URL, streamhttp.ClientOptions{Era: era, Revisions: revisions, ClientInfo: info, Logger: quiet})
		if err != nil {
			fmt.Println(err)
			return
		}
		cs, err := mcp.Connect(ctx, tr, info, nil,
			session.WithClientLegacy(mcp20251125.Revision()), session.WithClientLogger(quiet))
		if err != nil {
			fmt.Println(err)
			return
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "hello"})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(res.Content[0].(*mcp.TextContent).Text)
		cs.Close(ctx)
	}
	// Output:
	// hello over 2026-07-28
	// hello over 2025-11-25
}
