package session_test

import (
	"context"
	"fmt"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// greeter implements only its tool; the session answers the lifecycle.
type greeter struct{}

func (greeter) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	_ = mcp.Progress(ctx, 1, 1, "greeting") // sent only if the client asked for progress
	return mcp.TextResult("hello, " + session.ProtocolVersion(ctx)), nil
}

// Example_dualEra serves one implementation, written against the newest
// package, to a modern and a legacy client. In a program the transport is
// jsonrpc2.NewStdioTransport(os.Stdin, os.Stdout, jsonrpc2.StdioOptions{}).
func Example_dualEra() {
	srv := mcp.NewServer(session.Implementation{Name: "greeter", Version: "1.0.0"}, greeter{},
		session.WithLegacy(mcp20251125.Revision()))

	for _, version := range []string{"", "2025-11-25"} { // "": detect the era
		a, b := jsonrpc2.NewPipe()
		done := make(chan error, 1)
		go func() { done <- srv.Serve(context.Background(), a) }()

		opts := []session.ClientOption{session.WithClientLegacy(mcp20251125.Revision())}
		if version != "" {
			opts = append(opts, session.WithVersion(version))
		}
		s, err := mcp.Connect(context.Background(), b, session.Implementation{Name: "example", Version: "0"}, nil, opts...)
		if err != nil {
			fmt.Println(err)
			return
		}
		res, err := s.CallTool(context.Background(), &mcp.CallToolRequestParams{Name: "greet"})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s (modern %v): %s, capabilities %s\n", s.ProtocolVersion(), s.Modern(),
			res.Content[0].(*mcp.TextContent).Text, s.ClientSession.ServerCapabilities())
		s.Close(context.Background())
		<-done
	}
	// Output:
	// 2026-07-28 (modern true): hello, 2026-07-28, capabilities {"logging":{},"tools":{}}
	// 2025-11-25 (modern false): hello, 2025-11-25, capabilities {"logging":{},"tools":{}}
}

// asker needs a root from the client before it can answer.
type asker struct{}

func (asker) CallTool(ctx context.Context, _ *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	roots, err := mcp.AskListRoots(ctx, &mcp.ListRootsRequestParams{})
	if err != nil {
		return nil, err // session.ErrInputRequired becomes an InputRequiredResult
	}
	return mcp.TextResult("working in " + roots.Roots[0].URI), nil
}

// rootsClient answers the input requests of MRTR.
type rootsClient struct {
}

func (rootsClient) ListRoots(context.Context, *mcp.ListRootsRequestParams) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: []mcp.Root{{URI: "file:///src"}}}, nil
}

// ExampleInput: a handler asks the client for input. A modern client gets
// an InputRequiredResult, answers it and retries, all inside one CallTool.
func ExampleInput() {
	srv := mcp.NewServer(session.Implementation{Name: "asker", Version: "1"}, asker{})
	a, b := jsonrpc2.NewPipe()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), a) }()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	s, err := mcp.Connect(ctx, b, session.Implementation{Name: "client", Version: "0"}, rootsClient{})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := s.CallTool(ctx, &mcp.CallToolRequestParams{Name: "work"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	s.Close(context.Background())
	<-done
	// Output: working in file:///src
}

// ExampleServer_Accept is the transport seam: Accept reads until the era
// is known and returns the started Conn with the lifecycle and the era's
// Policy installed. An HTTP handler calls it per legacy session or per
// modern request, with a Transport of its own; here a raw client speaks
// legacy over a pipe.
func ExampleServer_Accept() {
	srv := mcp.NewServer(session.Implementation{Name: "greeter", Version: "1.0.0"}, greeter{},
		session.WithLegacy(mcp20251125.Revision()))
	a, b := jsonrpc2.NewPipe()
	ctx := context.Background()
	go func() {
		_ = b.Write(ctx, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`))
		msg, _ := b.Read(ctx)
		fmt.Println(string(msg))
		b.Close()
	}()
	conn, err := srv.Accept(ctx, a)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("policy side:", conn.Policy().Side)
	<-conn.Done()
	conn.Close(ctx)
	// Unordered output:
	// policy side: server
	// {"jsonrpc":"2.0","id":1,"result":{"capabilities":{"logging":{},"tools":{}},"protocolVersion":"2025-11-25","serverInfo":{"name":"greeter","version":"1.0.0"}}}
}
