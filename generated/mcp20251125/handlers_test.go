package mcp20251125

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// pair connects a client Conn and a server Conn over an in-memory pipe, with
// this revision's Policy on each side, and closes both when the test ends.
func pair(t *testing.T, server, client any) (cc, sc *jsonrpc2.Conn) {
	t.Helper()
	ct, st := jsonrpc2.NewPipe()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	cc = jsonrpc2.NewConn(ct, jsonrpc2.WithPolicy(Policy(jsonrpc2.SideClient)), jsonrpc2.WithLogger(quiet))
	sc = jsonrpc2.NewConn(st, jsonrpc2.WithPolicy(Policy(jsonrpc2.SideServer)), jsonrpc2.WithLogger(quiet))
	if server != nil {
		RegisterServer(sc, server)
	}
	if client != nil {
		RegisterClient(cc, client)
	}
	cc.Start()
	sc.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = cc.Close(ctx)
		_ = sc.Close(ctx)
	})
	return cc, sc
}

// toolServer implements tools/call (echo and sleep) and notifications/initialized.
type toolServer struct {
	mu          sync.Mutex
	initialized int
	started     chan struct{}
	cause       chan error
}

func newToolServer() *toolServer {
	return &toolServer{started: make(chan struct{}, 1), cause: make(chan error, 1)}
}

func text(s string) *CallToolResult {
	return &CallToolResult{Content: []ContentBlock{&TextContent{Text: s}}}
}

func (s *toolServer) CallTool(ctx context.Context, p *CallToolRequestParams) (*CallToolResult, error) {
	switch p.Name {
	case "echo":
		var msg string
		_ = json.Unmarshal(p.Arguments["text"], &msg)
		return text(msg), nil
	case "sleep":
		s.started <- struct{}{}
		<-ctx.Done()
		s.cause <- context.Cause(ctx)
		return nil, ctx.Err()
	}
	return &CallToolResult{Content: []ContentBlock{}, IsError: ptr(true)}, nil
}

func (s *toolServer) CallToolAsTask(ctx context.Context, p *CallToolRequestParams) (*CreateTaskResult, error) {
	return &CreateTaskResult{Task: Task{TaskID: "t-" + p.Name, Status: "working", CreatedAt: "2025-11-25T00:00:00Z", LastUpdatedAt: "2025-11-25T00:00:00Z"}}, nil
}

func (s *toolServer) Initialized(ctx context.Context, p *NotificationParams) error {
	s.mu.Lock()
	s.initialized++
	s.mu.Unlock()
	return nil
}

func ptr[T any](v T) *T { return &v }

var _ CallToolTaskHandler = (*toolServer)(nil)

func TestHandlersCallTool(t *testing.T) {
	cc, _ := pair(t, newToolServer(), nil)
	srv := NewServerCaller(cc)
	res, err := srv.CallTool(context.Background(), &CallToolRequestParams{Name: "echo", Arguments: map[string]json.RawMessage{"text": json.RawMessage(`"hi"`)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("content: %#v", res.Content)
	}
	if tc, ok := res.Content[0].(*TextContent); !ok || tc.Text != "hi" {
		t.Fatalf("content[0]: %#v", res.Content[0])
	}
}

func TestHandlersNotImplemented(t *testing.T) {
	cc, _ := pair(t, newToolServer(), nil)
	srv := NewServerCaller(cc)
	_, err := srv.ListTools(context.Background(), nil)
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.CodeMethodNotFound {
		t.Fatalf("ListTools on a server without it: got %v, want -32601", err)
	}
	// The same with nothing registered.
	cc2, _ := pair(t, nil, nil)
	_, err = NewServerCaller(cc2).CallTool(context.Background(), &CallToolRequestParams{Name: "echo"})
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.CodeMethodNotFound {
		t.Fatalf("CallTool on a server without it: got %v, want -32601", err)
	}
}

func TestHandlersInvalidParams(t *testing.T) {
	cc, _ := pair(t, newToolServer(), nil)
	for _, params := range []string{`{"name":5}`, `[]`, `{"arguments":{}}`} {
		var raw json.RawMessage
		err := cc.Call(context.Background(), MethodCallTool, json.RawMessage(params), &raw)
		var rpcErr *jsonrpc2.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.CodeInvalidParams {
			t.Errorf("params %s: got %v, want -32602", params, err)
			continue
		}
		t.Logf("params %s: %s", params, rpcErr.Message)
	}
	err := cc.Call(context.Background(), MethodCallTool, nil, nil)
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.CodeInvalidParams {
		t.Errorf("no params: got %v, want -32602", err)
	}
}

// TestHandlersCancel: cancelling the caller's ctx is the MCP cancellation; the
// server handler's ctx ends with a *jsonrpc2.CancelError from the peer.
func TestHandlersCancel(t *testing.T) {
	s := newToolServer()
	cc, _ := pair(t, s, nil)
	srv := NewServerCaller(cc)
	ctx, cancel := context.WithCancelCause(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := srv.CallTool(ctx, &CallToolRequestParams{Name: "sleep"})
		errc <- err
	}()
	<-s.started
	cancel(errors.New("user pressed stop"))
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("call returned %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("call did not return after cancel")
	}
	select {
	case cause := <-s.cause:
		var ce *jsonrpc2.CancelError
		if !errors.As(cause, &ce) || ce.Source != jsonrpc2.SourcePeer || !errors.Is(cause, context.Canceled) {
			t.Fatalf("handler cause %v, want a peer *jsonrpc2.CancelError", cause)
		}
		if ce.Method != MethodCallTool || ce.Reason == "" {
			t.Errorf("cause %+v: want method tools/call and a reason", ce)
		}
		t.Logf("handler cause: %v", cause)
	case <-time.After(5 * time.Second):
		t.Fatal("handler ctx did not end")
	}
}

// TestHandlersTask: CallToolAsTask reaches the TaskHandler and returns the
// CreateTaskResult; the plain call still returns the plain result.
func TestHandlersTask(t *testing.T) {
	cc, _ := pair(t, newToolServer(), nil)
	srv := NewServerCaller(cc)
	ct, err := srv.CallToolAsTask(context.Background(), &CallToolRequestParams{Name: "echo", Task: &TaskMetadata{}})
	if err != nil {
		t.Fatal(err)
	}
	if ct.Task.TaskID != "t-echo" {
		t.Fatalf("task: %+v", ct.Task)
	}
}

func TestHandlersNotification(t *testing.T) {
	s := newToolServer()
	cc, _ := pair(t, s, nil)
	if err := NewServerCaller(cc).Initialized(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		s.mu.Lock()
		n := s.initialized
		s.mu.Unlock()
		if n == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("notifications/initialized was not handled")
		}
		time.Sleep(time.Millisecond)
	}
}

// rootsClient implements roots/list on the client side.
type rootsClient struct {
	cause chan error
}

func (c *rootsClient) ListRoots(ctx context.Context, p *RequestParams) (*ListRootsResult, error) {
	return &ListRootsResult{Roots: []Root{{URI: "file:///tmp"}}}, nil
}

func (c *rootsClient) CreateMessage(ctx context.Context, p *CreateMessageRequestParams) (*CreateMessageResult, error) {
	<-ctx.Done()
	c.cause <- context.Cause(ctx)
	return nil, ctx.Err()
}

// TestHandlersServerCallsClient: the server side calls its client the same
// way, with the same cancellation.
func TestHandlersServerCallsClient(t *testing.T) {
	c := &rootsClient{cause: make(chan error, 1)}
	_, sc := pair(t, nil, c)
	cl := NewClientCaller(sc)
	res, err := cl.ListRoots(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Roots) != 1 || res.Roots[0].URI != "file:///tmp" {
		t.Fatalf("roots: %+v", res.Roots)
	}
	_, err = cl.Elicit(context.Background(), &ElicitRequestFormParams{Message: "?"})
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.CodeMethodNotFound {
		t.Fatalf("Elicit on a client without it: got %v, want -32601", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err = cl.CreateMessage(ctx, &CreateMessageRequestParams{MaxTokens: 1, Messages: []SamplingMessage{}})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("CreateMessage: got %v, want the deadline", err)
	}
	select {
	case cause := <-c.cause:
		var ce *jsonrpc2.CancelError
		if !errors.As(cause, &ce) || ce.Source != jsonrpc2.SourcePeer {
			t.Fatalf("client handler cause %v, want a peer *jsonrpc2.CancelError", cause)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("client handler ctx did not end")
	}
}

// sleeper is a Server whose one tool waits until it is cancelled.
type sleeper struct {
	why chan error
}

func (s sleeper) CallTool(ctx context.Context, p *CallToolRequestParams) (*CallToolResult, error) {
	<-ctx.Done() // the client's cancellation ends ctx
	s.why <- context.Cause(ctx)
	return nil, ctx.Err()
}

// ExampleNewServerCaller shows both sides over an in-memory pipe: the server
// registers its implementation, the client calls it as a method, and
// cancelling the call's ctx is the MCP cancellation the handler observes.
func ExampleNewServerCaller() {
	ct, st := jsonrpc2.NewPipe()
	quiet := jsonrpc2.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	server := jsonrpc2.NewConn(st, jsonrpc2.WithPolicy(Policy(jsonrpc2.SideServer)), quiet)
	impl := sleeper{why: make(chan error, 1)}
	RegisterServer(server, impl)
	client := jsonrpc2.NewConn(ct, jsonrpc2.WithPolicy(Policy(jsonrpc2.SideClient)), quiet)
	server.Start()
	client.Start()

	srv := NewServerCaller(client)
	ctx, cancel := context.WithTimeoutCause(context.Background(), 50*time.Millisecond, errors.New("user gave up"))
	defer cancel()
	_, err := srv.CallTool(ctx, &CallToolRequestParams{Name: "sleep"})
	fmt.Println("caller:", err)
	fmt.Println("handler:", <-impl.why)

	_ = client.Close(context.Background())
	_ = server.Close(context.Background())
	// Output:
	// caller: context deadline exceeded
	// handler: request 1 (tools/call) cancelled by peer notification: user gave up
}
