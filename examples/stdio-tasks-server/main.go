// Command stdio-tasks-server is the 2025-11-25 stdio server whose sleep tool
// can run as a task (runtime/tasks): a hand-written lifecycle on the
// generated bindings of revision 2025-11-25 (generated/mcp20251125). The
// dual-era examples/stdio-server does not offer tasks yet.
//
// It offers two tools:
//
//   - sleep {"ms": integer}: waits that many milliseconds, or until the
//     request is cancelled, then returns a text result; in 2025-11-25 it can
//     also run as a task (tasks.go), ended only by tasks/cancel;
//   - echo {"text": string}: returns the text.
//
// It negotiates any protocol revision from 2024-11-05 to 2025-11-25, answers
// ping, and logs every cancellation and its reason to stderr (stdout carries
// only MCP messages, as the stdio transport requires). It exits when stdin
// reaches EOF, which cancels whatever is still running.
//
// Run it under a client, for example:
//
//	go run ./examples/stdio-client -- go run ./examples/stdio-server
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	mcp "github.com/mcpgen/mcpgen/generated/mcp20251125"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// supportedVersions are the protocol revisions this server speaks, latest
// first. The messages it uses (initialize, ping, tools/list, tools/call,
// notifications/cancelled) have the same shape in all of them.
var supportedVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

func main() {
	// stdout is the protocol stream; every log line goes to stderr.
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	if err := run(log); err != nil {
		log.Error("stdio-server stopped", "error", err)
		os.Exit(1)
	}
}

func run(log *slog.Logger) error {

	// The revision's cancellation rules: initialize is never cancelled,
	// either side may cancel its own requests, and so on.
	// A task-augmented tools/call is exempt from notifications/cancelled in
	// 2025-11-25 sessions (serveTasks declares it); tasks/cancel ends it.
	policy := mcp.Policy(jsonrpc2.SideServer)

	conn := jsonrpc2.NewConn(
		jsonrpc2.NewStdioTransport(os.Stdin, os.Stdout, jsonrpc2.StdioOptions{}),
		jsonrpc2.WithPolicy(policy),
		// The runtime's own log, warnings only (protocol errors from the
		// peer): cancellations are logged once each by the observer below.
		jsonrpc2.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))),
		jsonrpc2.WithObserver(logCancellations(log)),
	)
	srv := &server{log: log}
	mcp.RegisterServer(conn, srv)
	stopTasks, err := srv.serveTasks(conn, log)
	if err != nil {
		return err
	}
	defer stopTasks()

	// Run until stdin reaches EOF (the client's way of saying goodbye on
	// stdio) or a signal arrives. Either way every in-flight handler's ctx
	// is cancelled with a cause saying why.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	runErr := conn.Run(ctx)

	// Give cancelled handlers a moment to return, then exit.
	closeCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := conn.Close(closeCtx); err != nil {
		log.Warn("handlers still running at exit", "error", err)
	}
	if runErr != nil && !errors.Is(runErr, context.Canceled) {
		return runErr // the transport failed
	}
	// conn.Err() says why the connection ended: EOF, a signal, ...
	var why *jsonrpc2.CancelError
	if errors.As(conn.Err(), &why) {
		log.Info("stdio-server exiting", "source", why.Source.String(), "reason", why.Reason)
	}
	return nil
}

// logCancellations returns a jsonrpc2.Observer that logs each cancellation
// the runtime applies, ignores or sends, with its reason. The spec says both
// parties SHOULD log cancellation reasons; the observer sees every one,
// including those that never reach a handler (unknown ids, malformed
// notifications, a cancel naming initialize).
func logCancellations(log *slog.Logger) jsonrpc2.Observer {
	return func(e jsonrpc2.Event) {
		if e.Kind == jsonrpc2.EventReceived || e.Kind == jsonrpc2.EventRequested {
			return // an applied, ignored or sent event follows
		}
		attrs := []slog.Attr{
			slog.String("event", e.Kind.String()),
			slog.String("direction", e.Direction.String()),
			slog.String("id", e.ID.String()), // strings quoted: "7" is not 7
			slog.String("source", e.Source.String()),
			slog.String("reason", e.Reason),
		}
		if e.Method != "" {
			attrs = append(attrs, slog.String("method", e.Method))
		}
		if e.Kind == jsonrpc2.EventIgnored {
			attrs = append(attrs, slog.String("why", e.Why.String()))
			if e.Detail != "" {
				attrs = append(attrs, slog.String("detail", e.Detail))
			}
		}
		log.LogAttrs(context.Background(), slog.LevelInfo, "cancellation", attrs...)
	}
}

// server implements the MCP methods this example serves, on a bare
// jsonrpc2.Conn, so the lifecycle too: mcp.RegisterServer registers the
// handler interfaces it implements, and everything else is answered -32601.
type server struct {
	taskState
	log *slog.Logger
}

// Initialize negotiates the protocol version (basic/lifecycle.mdx): answer the
// client's version if we support it, otherwise the latest one we support, and
// let the client decide whether it can live with that.
func (s *server) Initialize(ctx context.Context, p *mcp.InitializeRequestParams) (*mcp.InitializeResult, error) {
	version := supportedVersions[0]
	if slices.Contains(supportedVersions, p.ProtocolVersion) {
		version = p.ProtocolVersion
	}
	s.log.Info("initialize", "client", p.ClientInfo.Name, "requested", p.ProtocolVersion, "negotiated", version)
	return &mcp.InitializeResult{
		ProtocolVersion: version,
		Capabilities:    mcp.ServerCapabilities{Tools: &mcp.ServerCapabilitiesTools{}, Tasks: s.taskCapability(version)},
		ServerInfo:      mcp.Implementation{Name: "mcpgen-stdio-server", Version: "0.1.0"},
	}, nil
}

// Initialized is the client's notifications/initialized; nothing to do.
func (s *server) Initialized(ctx context.Context, _ *mcp.NotificationParams) error { return nil }

// Ping answers with an empty result, as the spec requires.
func (s *server) Ping(ctx context.Context, _ *mcp.RequestParams) (*mcp.EmptyResult, error) {
	return &mcp.EmptyResult{}, nil
}

// ListTools describes the two tools, with JSON Schemas for their input.
func (s *server) ListTools(ctx context.Context, _ *mcp.PaginatedRequestParams) (*mcp.ListToolsResult, error) {
	return &mcp.ListToolsResult{Tools: []mcp.Tool{
		{
			Name:        "sleep",
			Description: ptr("Waits ms milliseconds (or until cancelled), then says so."),
			InputSchema: mcp.ToolInputSchema{
				Properties: map[string]map[string]json.RawMessage{
					"ms": {"type": json.RawMessage(`"integer"`), "minimum": json.RawMessage(`0`)},
				},
				Required: []string{"ms"},
			},
			Execution: &mcp.ToolExecution{TaskSupport: ptr(taskSupport["sleep"])},
		},
		{
			Name:        "echo",
			Description: ptr("Returns its text."),
			InputSchema: mcp.ToolInputSchema{
				Properties: map[string]map[string]json.RawMessage{
					"text": {"type": json.RawMessage(`"string"`)},
				},
				Required: []string{"text"},
			},
		},
	}}, nil
}

// maxSleep bounds the sleep tool, so a huge ms cannot overflow a Duration.
const maxSleep = 24 * time.Hour

// CallTool runs a tool. ctx ends when the client cancels the request (or the
// connection goes away); context.Cause(ctx) then says who cancelled and why,
// and whatever we return is dropped rather than sent.
func (s *server) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	switch p.Name {
	case "sleep":
		var ms int64 // encoding/json refuses 1.5 and "10" here
		if err := json.Unmarshal(p.Arguments["ms"], &ms); err != nil || ms < 0 || time.Duration(ms) > maxSleep/time.Millisecond {
			return toolError(`sleep needs {"ms": integer} between 0 and 86400000`), nil
		}
		return s.sleep(ctx, time.Duration(ms)*time.Millisecond)
	case "echo":
		var text string
		if err := json.Unmarshal(p.Arguments["text"], &text); err != nil {
			return toolError(`echo needs {"text": string}`), nil
		}
		return textResult(text), nil
	}
	// An unknown tool is a protocol error (server/tools.mdx), not a tool result.
	return nil, jsonrpc2.ErrInvalidParams("unknown tool " + p.Name)
}

// sleep waits for d or for the request to be cancelled, whichever is first.
// This is the pattern every long-running handler should follow: select on
// ctx.Done() next to the real work.
func (s *server) sleep(ctx context.Context, d time.Duration) (*mcp.CallToolResult, error) {
	s.log.Info("sleep started", "ms", d.Milliseconds())
	start := time.Now()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		s.log.Info("sleep finished", "ms", d.Milliseconds())
		return textResult(fmt.Sprintf("slept %d ms", d.Milliseconds())), nil
	case <-ctx.Done():
		// The cause is a *jsonrpc2.CancelError: the request id, the source
		// (peer notification, EOF, ...) and the peer's reason.
		cause := context.Cause(ctx)
		attrs := []any{"ms", d.Milliseconds(), "after", time.Since(start).Round(time.Millisecond), "cause", cause.Error()}
		var ce *jsonrpc2.CancelError
		if errors.As(cause, &ce) {
			attrs = append(attrs, "id", ce.ID.String(), "source", ce.Source.String(), "reason", ce.Reason)
		}
		s.log.Info("sleep interrupted", attrs...)
		return nil, cause // dropped by the runtime: a cancelled request gets no response
	}
}

func textResult(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.ContentBlock{&mcp.TextContent{Text: s}}}
}

// toolError reports a failure the model can see and correct (isError: true),
// rather than a JSON-RPC error.
func toolError(s string) *mcp.CallToolResult {
	r := textResult(s)
	r.IsError = ptr(true)
	return r
}

func ptr[T any](v T) *T { return &v }
