package mcp20260728

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
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

// meta is the request _meta every 2026-07-28 request carries.
func meta() RequestMetaObject {
	return RequestMetaObject{ProtocolVersion: "2026-07-28"}
}

// toolServer implements tools/call: echo, sleep (until cancelled) and
// confirm (asks the client for input first), and server/discover.
type toolServer struct {
	started chan struct{}
	cause   chan error
}

func newToolServer() *toolServer {
	return &toolServer{started: make(chan struct{}, 1), cause: make(chan error, 1)}
}

func (s *toolServer) CallTool(ctx context.Context, p *CallToolRequestParams) (*CallToolResult, error) {
	switch p.Name {
	case "echo":
		var msg string
		_ = json.Unmarshal(p.Arguments["text"], &msg)
		return &CallToolResult{Content: []ContentBlock{&TextContent{Text: msg}}}, nil
	case "sleep":
		s.started <- struct{}{}
		<-ctx.Done()
		s.cause <- context.Cause(ctx)
		return nil, ctx.Err()
	case "confirm":
		if len(p.InputResponses) == 0 {
			state := "asked"
			return nil, &InputRequiredError{Result: &InputRequiredResult{
				InputRequests: InputRequests{"roots": &ListRootsRequest{}},
				RequestState:  &state,
			}}
		}
		return &CallToolResult{Content: []ContentBlock{&TextContent{Text: "confirmed"}}}, nil
	}
	return nil, jsonrpc2.NewInvalidParamsError("unknown tool " + p.Name)
}

func (s *toolServer) Discover(ctx context.Context, p *RequestParams) (*DiscoverResult, error) {
	return &DiscoverResult{CacheScope: "session", SupportedVersions: []string{"2026-07-28"}}, nil
}

func TestHandlersCallTool(t *testing.T) {
	cc, _ := pair(t, newToolServer(), nil)
	srv := NewServerCaller(cc)
	res, err := srv.CallTool(context.Background(), &CallToolRequestParams{Meta: meta(), Name: "echo", Arguments: map[string]json.RawMessage{"text": json.RawMessage(`"hi"`)}})
	if err != nil {
		t.Fatal(err)
	}
	if tc, ok := res.Content[0].(*TextContent); len(res.Content) != 1 || !ok || tc.Text != "hi" {
		t.Fatalf("content: %#v", res.Content)
	}
	if res.ResultType != "complete" {
		t.Errorf("resultType %q, want complete (filled in by RegisterServer)", res.ResultType)
	}
	d, err := srv.Discover(context.Background(), &RequestParams{Meta: meta()})
	if err != nil || d.CacheScope != "session" || d.ResultType != "complete" {
		t.Fatalf("Discover: %+v, %v", d, err)
	}
}

// TestHandlersInputRequired: a handler answers with an InputRequiredResult by
// returning *InputRequiredError; the caller gets it back the same way, and the
// retry with inputResponses completes.
func TestHandlersInputRequired(t *testing.T) {
	cc, _ := pair(t, newToolServer(), nil)
	srv := NewServerCaller(cc)
	res, err := srv.CallTool(context.Background(), &CallToolRequestParams{Meta: meta(), Name: "confirm"})
	var ire *InputRequiredError
	if !errors.As(err, &ire) || res != nil {
		t.Fatalf("got %v, %v; want an *InputRequiredError", res, err)
	}
	if ire.Result.ResultType != "input_required" || ire.Result.RequestState == nil || *ire.Result.RequestState != "asked" {
		t.Fatalf("InputRequiredResult: %+v", ire.Result)
	}
	if _, ok := ire.Result.InputRequests["roots"].(*ListRootsRequest); !ok {
		t.Fatalf("inputRequests: %#v", ire.Result.InputRequests)
	}
	res, err = srv.CallTool(context.Background(), &CallToolRequestParams{
		Meta: meta(), Name: "confirm", RequestState: ire.Result.RequestState,
		InputResponses: InputResponses{"roots": &ListRootsResult{Roots: []Root{{URI: "file:///"}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if tc, ok := res.Content[0].(*TextContent); !ok || tc.Text != "confirmed" {
		t.Fatalf("content: %#v", res.Content)
	}
}

// TestHandlersResultTypeAbsent: a result without resultType (a server of an
// earlier revision) is taken as complete.
func TestHandlersResultTypeAbsent(t *testing.T) {
	ct, st := jsonrpc2.NewPipe()
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	client := jsonrpc2.NewConn(ct, jsonrpc2.WithPolicy(Policy(jsonrpc2.SideClient)), jsonrpc2.WithLogger(quiet))
	server := jsonrpc2.NewConn(st, jsonrpc2.WithPolicy(Policy(jsonrpc2.SideServer)), jsonrpc2.WithLogger(quiet))
	server.Handle(MethodCallTool, func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		return json.RawMessage(`{"content":[{"type":"text","text":"old"}]}`), nil
	})
	client.Start()
	server.Start()
	defer func() {
		_ = client.Close(context.Background())
		_ = server.Close(context.Background())
	}()
	res, err := NewServerCaller(client).CallTool(context.Background(), &CallToolRequestParams{Meta: meta(), Name: "x"})
	if err != nil {
		t.Fatal(err)
	}
	if res.ResultType != "complete" || len(res.Content) != 1 {
		t.Fatalf("result: %+v", res)
	}
}

func TestHandlersNotImplemented(t *testing.T) {
	cc, _ := pair(t, newToolServer(), nil)
	_, err := NewServerCaller(cc).ListTools(context.Background(), &PaginatedRequestParams{Meta: meta()})
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.CodeMethodNotFound {
		t.Fatalf("ListTools on a server without it: got %v, want -32601", err)
	}
}

func TestHandlersInvalidParams(t *testing.T) {
	cc, _ := pair(t, newToolServer(), nil)
	for _, params := range []string{`{"name":"echo"}`, `{"_meta":{},"name":"echo"}`, `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}},"name":1}`} {
		err := cc.Call(context.Background(), MethodCallTool, json.RawMessage(params), nil)
		var rpcErr *jsonrpc2.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.CodeInvalidParams {
			t.Errorf("params %s: got %v, want -32602", params, err)
			continue
		}
		t.Logf("params %s: %s", params, rpcErr.Message)
	}
}

// TestHandlersCancel: cancelling the caller's ctx is the MCP cancellation; the
// server handler's ctx ends with a *jsonrpc2.CancelError from the peer.
func TestHandlersCancel(t *testing.T) {
	s := newToolServer()
	cc, _ := pair(t, s, nil)
	ctx, cancel := context.WithCancelCause(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := NewServerCaller(cc).CallTool(ctx, &CallToolRequestParams{Meta: meta(), Name: "sleep"})
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
		t.Logf("handler cause: %v", cause)
	case <-time.After(5 * time.Second):
		t.Fatal("handler ctx did not end")
	}
}

// logClient receives the server's notifications (2026-07-28 has no
// server-to-client requests: the client interface is notifications only).
type logClient struct {
	got chan string
}

func (c *logClient) LoggingMessage(ctx context.Context, p *LoggingMessageNotificationParams) error {
	c.got <- string(p.Level)
	return nil
}

func TestHandlersClientNotification(t *testing.T) {
	c := &logClient{got: make(chan string, 1)}
	_, sc := pair(t, nil, c)
	if err := NewClientCaller(sc).LoggingMessage(context.Background(), &LoggingMessageNotificationParams{Level: "info", Data: json.RawMessage(`"x"`)}); err != nil {
		t.Fatal(err)
	}
	select {
	case lvl := <-c.got:
		if lvl != "info" {
			t.Fatalf("level %q", lvl)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("notifications/message was not handled")
	}
}
