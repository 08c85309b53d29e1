package session_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// giveUpAsker's tool "<method>" asks the client of a legacy session for
// input with the Ask helper that sends <method>, and gives up when that
// fails: the ask timed out (the server's Conns have a default call
// timeout) or the tools/call itself was cancelled. A timed-out ask is
// answered with a tool error.
type giveUpAsker struct{}

func (giveUpAsker) ListTools(context.Context, *mcp.PaginatedRequestParams) (*mcp.ListToolsResult, error) {
	return &mcp.ListToolsResult{Tools: []mcp.Tool{}}, nil
}

func (giveUpAsker) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	method := p.Name
	var err error
	switch method {
	case mcp.MethodElicit:
		_, err = mcp.AskElicit(ctx, &mcp.ElicitRequestFormParams{Message: "name?",
			RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{Properties: map[string]mcp.PrimitiveSchemaDefinition{}}})
	case mcp.MethodCreateMessage:
		_, err = mcp.AskCreateMessage(ctx, &mcp.CreateMessageRequestParams{MaxTokens: 1, Messages: []mcp.SamplingMessage{}})
	case mcp.MethodListRoots:
		_, err = mcp.AskListRoots(ctx, &mcp.ListRootsRequestParams{})
	default:
		return mcp.ToolError(fmt.Errorf("no tool %q", p.Name)), nil
	}
	if err == nil {
		return mcp.TextResult("answered"), nil
	}
	if ctx.Err() == nil {
		return mcp.ToolError(fmt.Errorf("no answer: %w", err)), nil
	}
	return nil, err
}

// askMethods are the server-to-client requests a handler sends with
// AskElicit, AskCreateMessage and AskListRoots.
var askMethods = []string{mcp.MethodElicit, mcp.MethodCreateMessage, mcp.MethodListRoots}

// stdioPeer is the client of a server on the stdio transport, over
// io.Pipes, reading and writing raw lines. An io.Pipe is no pipe the
// transport can write a cancellation to at once (as a busy or full OS pipe
// is not), so the server's cancellations go through its sender queue: the
// case where the order of a cancellation and a response is a race.
type stdioPeer struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan map[string]any
}

// serveStdioPipes serves giveUpAsker over the stdio transport; with
// askTimeout set, the server's calls to the client time out after it (the
// timer starts once the request is written).
func serveStdioPipes(t *testing.T, askTimeout time.Duration) *stdioPeer {
	srv := mcp.NewServer(session.Implementation{Name: "asker", Version: "1"}, giveUpAsker{},
		session.WithLegacy(mcp20251125.Revision()), session.WithLogger(slog.New(slog.DiscardHandler)),
		session.WithConnOptions(jsonrpc2.WithDefaultTimeout(askTimeout)))
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &stdioPeer{t: t, in: inW, lines: make(chan map[string]any, 64)}
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"unparsable": sc.Text()}
			}
			p.lines <- m
		}
	}()
	done := make(chan error, 1)
	go func() {
		done <- srv.Serve(context.Background(), jsonrpc2.NewStdioTransport(inR, outW, jsonrpc2.StdioOptions{}))
	}()
	t.Cleanup(func() {
		inW.Close()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		outW.Close()
		for range p.lines {
		}
	})
	return p
}

func (p *stdioPeer) send(format string, args ...any) {
	p.t.Helper()
	if _, err := fmt.Fprintf(p.in, format+"\n", args...); err != nil {
		p.t.Fatal(err)
	}
}

func (p *stdioPeer) recv() map[string]any {
	p.t.Helper()
	select {
	case m, ok := <-p.lines:
		if !ok {
			p.t.Fatal("the server closed its output")
		}
		return m
	case <-time.After(10 * time.Second):
		p.t.Fatal("timed out waiting for a line")
	}
	return nil
}

// isCancelOf reports whether m is notifications/cancelled naming id.
func isCancelOf(m map[string]any, id any) bool {
	params, _ := m["params"].(map[string]any)
	return m["method"] == "notifications/cancelled" && params != nil && str(params["requestId"]) == str(id)
}

// TestStdioAskCancelledBeforeResponse (issue 37): the cancellation of a
// server-to-client request that a tool gave up on reaches the client
// before the tool's response (ask timed out), or at all when the client
// cancels the tools/call (which gets no response), for each Ask helper.
// The timeout case is a race, so each runs many rounds.
func TestStdioAskCancelledBeforeResponse(t *testing.T) {
	for _, method := range askMethods {
		t.Run(method+"/timeout", func(t *testing.T) {
			p := serveStdioPipes(t, 5*time.Millisecond)
			p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{},"sampling":{},"roots":{}},"clientInfo":{"name":"raw","version":"0"}}}`)
			p.recv()
			p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			for i := 1; i <= 30; i++ {
				p.send(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q}}`, i, method)
				ask := p.recv()
				if ask["method"] != method {
					t.Fatalf("round %d: want %s, got %s", i, method, str(ask))
				}
				first, second := p.recv(), p.recv()
				if !isCancelOf(first, ask["id"]) {
					t.Fatalf("round %d: the tools/call response overtook the %s cancellation:\n first  %s\n second %s", i, method, str(first), str(second))
				}
				if second["id"] != float64(i) || second["result"] == nil {
					t.Fatalf("round %d: want the tools/call result after the cancellation, got %s", i, str(second))
				}
			}
		})
		t.Run(method+"/client-cancel", func(t *testing.T) {
			p := serveStdioPipes(t, 0)
			p.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{},"sampling":{},"roots":{}},"clientInfo":{"name":"raw","version":"0"}}}`)
			p.recv()
			p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			p.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":%q}}`, method)
			ask := p.recv()
			if ask["method"] != method {
				t.Fatalf("want %s, got %s", method, str(ask))
			}
			p.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"user stop"}}`)
			if got := p.recv(); !isCancelOf(got, ask["id"]) {
				t.Fatalf("want the %s cancelled, got %s", method, str(got))
			}
			// Nothing else: the cancelled tools/call gets no response.
			p.send(`{"jsonrpc":"2.0","id":"sync","method":"ping"}`)
			if got := p.recv(); got["id"] != "sync" {
				t.Fatalf("want only the ping's answer, got %s", str(got))
			}
		})
	}
}
