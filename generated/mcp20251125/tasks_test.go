package mcp20251125

// Tasks end to end through the generated bindings and runtime/tasks: the
// typed Start methods, a Manager on either side, over both transports the
// runtime has (in-memory pipe and stdio framing).

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/tasks"
)

// taskTool is a Server whose "wait" tool ends when released or cancelled.
type taskTool struct {
	started chan struct{}
	release chan string
	cause   chan error
}

func (s *taskTool) CallTool(ctx context.Context, p *CallToolRequestParams) (*CallToolResult, error) {
	s.started <- struct{}{}
	select {
	case msg := <-s.release:
		return text(msg), nil
	case <-ctx.Done():
		s.cause <- context.Cause(ctx)
		return nil, context.Cause(ctx)
	}
}

// elicitClient is a Client that answers elicitations (here run as tasks).
type elicitClient struct{}

func (elicitClient) Elicit(ctx context.Context, p ElicitRequestParams) (*ElicitResult, error) {
	return &ElicitResult{Action: "decline"}, nil
}

type transportPair func(t *testing.T) (client, server jsonrpc2.Transport)

func pipePair(*testing.T) (jsonrpc2.Transport, jsonrpc2.Transport) { return jsonrpc2.NewPipe() }

// stdioPair joins two stdio transports with OS-free pipes: the same
// newline-delimited framing as a real stdio session.
func stdioPair(*testing.T) (jsonrpc2.Transport, jsonrpc2.Transport) {
	c2sR, c2sW := io.Pipe()
	s2cR, s2cW := io.Pipe()
	return jsonrpc2.NewStdioTransport(s2cR, c2sW, jsonrpc2.StdioOptions{}),
		jsonrpc2.NewStdioTransport(c2sR, s2cW, jsonrpc2.StdioOptions{})
}

func taskPair(t *testing.T, tp transportPair, server, client any, serverTasks, clientTasks []string) (cc, sc *jsonrpc2.Conn) {
	t.Helper()
	ct, st := tp(t)
	quiet := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelError}))
	cc = jsonrpc2.NewConn(ct, jsonrpc2.WithPolicy(Policy(jsonrpc2.SideClient)), jsonrpc2.WithLogger(quiet))
	sc = jsonrpc2.NewConn(st, jsonrpc2.WithPolicy(Policy(jsonrpc2.SideServer)), jsonrpc2.WithLogger(quiet))
	var managers []*tasks.Manager
	if server != nil {
		RegisterServer(sc, server)
	}
	if client != nil {
		RegisterClient(cc, client)
	}
	for _, side := range []struct {
		conn    *jsonrpc2.Conn
		methods []string
	}{{sc, serverTasks}, {cc, clientTasks}} {
		if len(side.methods) == 0 {
			continue
		}
		m := tasks.NewManager(tasks.Config{Methods: side.methods, Logger: quiet, PollInterval: time.Millisecond})
		if err := m.Serve(side.conn); err != nil {
			t.Fatal(err)
		}
		managers = append(managers, m)
	}
	cc.Start()
	sc.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = cc.Close(ctx)
		_ = sc.Close(ctx)
		for _, m := range managers {
			_ = m.Close(ctx)
		}
	})
	return cc, sc
}

// TestTasksToolCallBothTransports: a client starts tools/call as a task
// with the typed StartCallTool, reads the typed result; another is
// cancelled with Cancel, and the tool's ctx says tasks/cancel.
func TestTasksToolCallBothTransports(t *testing.T) {
	for name, tp := range map[string]transportPair{"pipe": pipePair, "stdio": stdioPair} {
		t.Run(name, func(t *testing.T) {
			srv := &taskTool{started: make(chan struct{}, 2), release: make(chan string, 1), cause: make(chan error, 1)}
			cc, _ := taskPair(t, tp, srv, nil, ServerTaskMethods, nil)
			caller := NewServerCaller(cc)
			ctx := context.Background()

			h, err := caller.StartCallTool(ctx, &CallToolRequestParams{Name: "wait"})
			if err != nil {
				t.Fatal(err)
			}
			<-srv.started
			srv.release <- "finished"
			res, err := h.Result(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if tc, ok := res.Content[0].(*TextContent); !ok || tc.Text != "finished" || h.Task().Status != tasks.Completed {
				t.Fatalf("result %+v, status %s", res, h.Task().Status)
			}

			h2, err := caller.StartCallTool(ctx, &CallToolRequestParams{Name: "wait"})
			if err != nil {
				t.Fatal(err)
			}
			<-srv.started
			if st, err := h2.Cancel(ctx); err != nil || st.Status != tasks.Cancelled {
				t.Fatalf("cancel: %v %v", st.Status, err)
			}
			var ce *jsonrpc2.CancelError
			if cause := <-srv.cause; !errors.As(cause, &ce) || ce.Source != jsonrpc2.SourceTaskCancel {
				t.Fatalf("tool cause %v", cause)
			}
		})
	}
}

// TestTasksElicitationOnClient: the server is the requestor, the client runs
// elicitation/create as a task (client-side tasks, both transports).
func TestTasksElicitationOnClient(t *testing.T) {
	for name, tp := range map[string]transportPair{"pipe": pipePair, "stdio": stdioPair} {
		t.Run(name, func(t *testing.T) {
			_, sc := taskPair(t, tp, nil, elicitClient{}, nil, ClientTaskMethods)
			h, err := NewClientCaller(sc).StartElicit(context.Background(), &ElicitRequestFormParams{Message: "ok?"})
			if err != nil {
				t.Fatal(err)
			}
			res, err := h.Result(context.Background())
			if err != nil || res.Action != "decline" {
				t.Fatalf("%v %+v", err, res)
			}
		})
	}
}
