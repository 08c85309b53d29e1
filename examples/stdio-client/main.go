// Command stdio-client is a dual-era MCP client on the stdio transport, built
// on the newest generated bindings (generated/mcp20260728) and
// runtime/session. It shows what cancelling a call looks like from the
// client side:
//
//  1. it starts the server command given as its arguments, with the server's
//     stdin and stdout as the transport (its stderr is passed through);
//  2. connects with one call: it probes server/discover (modern servers
//     answer it) and falls back to initialize for legacy ones, as
//     transports/stdio.mdx says; --version forces a version instead;
//  3. calls a tool (--tool and --args; by default sleep with ms=10000) and
//     cancels the call after 200 ms (--cancel-after) by cancelling its
//     context: the call returns at once and the runtime sends
//     notifications/cancelled with the cancellation cause as the reason;
//  4. after sleep, calls echo once if the server offers it, to show the
//     session carries on;
//  5. shuts down as basic/lifecycle.mdx says for stdio: closes the server's
//     stdin, waits for it to exit, and only then resorts to SIGTERM and
//     SIGKILL.
//
// Usage:
//
//	stdio-client [flags] -- server-command [args...]
//	go run ./examples/stdio-client -- go run ./examples/stdio-server
//	go run ./examples/stdio-client --tool add --args '{"a":2,"b":3}' -- go run ./examples/quickstart/stdio-server
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp20241105"
	"github.com/mcpgen/mcpgen/generated/mcp20250326"
	"github.com/mcpgen/mcpgen/generated/mcp20250618"
	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/logsink"
	"github.com/mcpgen/mcpgen/runtime/session"
)

func main() {
	tool := flag.String("tool", "sleep", "the tool to call")
	toolArgs := flag.String("args", "", `the tool's arguments, a JSON object (default {"ms":MS} for sleep, {} for any other tool)`)
	sleepMS := flag.Int("ms", 10000, "how long to ask the sleep tool to sleep, in milliseconds (without --args)")
	cancelAfter := flag.Duration("cancel-after", 200*time.Millisecond, "cancel the call after this long (0: never)")
	timeout := flag.Duration("timeout", 30*time.Second, "timeout for every request (the spec says senders SHOULD have one)")
	logFormat := flag.String("log-format", "text", "stderr log format: text or json (one slog JSON record per line)")
	version := flag.String("version", "", "force this protocol version instead of detecting the server's era")
	probeTimeout := flag.Duration("probe-timeout", 2*time.Second, "how long a silent server/discover probe means a legacy server")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: stdio-client [flags] -- server-command [args...]\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	opts := []session.ClientOption{
		session.WithClientLegacy(mcp20251125.Revision(), mcp20250618.Revision(), mcp20250326.Revision(), mcp20241105.Revision()),
		session.WithProbeTimeout(*probeTimeout),
	}
	if *version != "" {
		opts = append(opts, session.WithVersion(*version))
	}
	call := toolCall{name: *tool, args: map[string]json.RawMessage{}, cancelAfter: *cancelAfter}
	if *toolArgs != "" {
		if err := json.Unmarshal([]byte(*toolArgs), &call.args); err != nil || call.args == nil {
			fmt.Fprintf(os.Stderr, "stdio-client: --args %q: not a JSON object\n", *toolArgs)
			os.Exit(2)
		}
	} else if *tool == "sleep" {
		call.args["ms"] = json.RawMessage(fmt.Sprint(*sleepMS))
	}
	sink, err := logsink.NewFormatHandler(os.Stderr, *logFormat, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "stdio-client:", err)
		os.Exit(2)
	}
	err = run(flag.Args(), call, *timeout, opts, slog.New(sink).With("component", "stdio-client"))
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	sink.Close(ctx) // best effort: a stuck stderr must not keep us alive
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "stdio-client:", err)
		os.Exit(1)
	}
}

// toolCall is the call the flags ask for.
type toolCall struct {
	name        string
	args        map[string]json.RawMessage
	cancelAfter time.Duration // 0: never
}

func run(command []string, call toolCall, timeout time.Duration, opts []session.ClientOption, log *slog.Logger) error {
	// 1. Start the server. Its stdout is our input, its stdin our output.
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Stderr = os.Stderr // the server's logs; stderr is not an error channel
	toServer, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	fromServer, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting the server: %w", err)
	}

	// The transport closes what it is given when the Conn closes. Hiding
	// Close on the server's stdout means closing the Conn closes only the
	// server's stdin and then waits for the server to close its stdout by
	// exiting, which is the shutdown the spec asks for (and spares the
	// server a SIGPIPE for writing to a pipe we closed).
	transport := jsonrpc2.NewStdioTransport(struct{ io.Reader }{fromServer}, toServer, jsonrpc2.StdioOptions{})
	// One call performs the lifecycle of the server's era. The session's
	// Conn gets the era's cancellation policy; the options below log the
	// cancellations we send (with their reasons) and bound every request.
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	sess, err := mcp.Connect(ctx, transport, session.Implementation{Name: "mcpgen-stdio-client", Version: "0.1.0"}, nil,
		append(opts, session.WithClientLogger(log), session.WithClientConnOptions(
			// The runtime's own lines at Warn and above; every cancellation
			// (the ones we send, with their reasons) is one "cancellation" record.
			jsonrpc2.WithLogger(slog.New(logsink.AtLeast(log.Handler(), slog.LevelWarn))),
			jsonrpc2.WithObserver(jsonrpc2.LogCancellations(log)),
			jsonrpc2.WithDefaultTimeout(timeout)))...)
	if err != nil {
		_ = transport.Close()
		_ = cmd.Wait()
		return fmt.Errorf("connect: %w", err)
	}
	info := sess.ServerInfo()
	fmt.Printf("initialized: %s %s, protocol %s\n", info.Name, info.Version, sess.ProtocolVersion())

	err = converse(sess, call)
	if serr := shutdown(sess.RuntimeConn(), cmd); err == nil {
		err = serr
	}
	return err
}

// converse is the conversation with the server once connected. sess
// implements mcp.ServerHandler whatever the era: a legacy server's answers are
// mapped onto the newest types.
func converse(sess *mcp.ClientSession, call toolCall) error {
	ctx := context.Background()

	// 3. Call the tool and give up after cancelAfter. Cancelling the call's
	// context is all it takes: CallTool returns context.Canceled at once,
	// and the runtime sends notifications/cancelled with the cause as its
	// reason, then drops the response if the server sends one anyway.
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	if call.cancelAfter > 0 {
		stopTimer := time.AfterFunc(call.cancelAfter, func() {
			cancel(fmt.Errorf("stdio-client gave up after %v", call.cancelAfter))
		})
		defer stopTimer.Stop()
	}
	start := time.Now()
	res, err := sess.CallTool(callCtx, &mcp.CallToolRequestParams{Name: call.name, Arguments: call.args})
	elapsed := time.Since(start).Round(time.Millisecond)
	switch {
	case errors.Is(err, context.Canceled) && callCtx.Err() != nil:
		fmt.Printf("%s cancelled after %v: %v\n", call.name, elapsed, context.Cause(callCtx))
	case err != nil:
		return fmt.Errorf("%s: %w", call.name, err)
	case isToolError(res):
		return fmt.Errorf("%s: %s", call.name, text(res))
	case call.cancelAfter == 0:
		fmt.Printf("%s answered after %v: %s\n", call.name, elapsed, text(res))
	default:
		fmt.Printf("%s finished after %v, before the cancel: %s\n", call.name, elapsed, text(res))
	}
	if call.name != "sleep" {
		return nil
	}

	// 4. The session goes on after a cancellation, with echo if the server
	// has it: this client works with any server that offers sleep.
	tools, err := listTools(ctx, sess)
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	if !tools["echo"] {
		fmt.Println("echo: not offered by the server; skipped")
		return nil
	}
	res, err = sess.CallTool(ctx, &mcp.CallToolRequestParams{
		Name:      "echo",
		Arguments: map[string]json.RawMessage{"text": json.RawMessage(`"hello from stdio-client"`)},
	})
	if err != nil {
		return fmt.Errorf("echo: %w", err)
	}
	if isToolError(res) {
		return fmt.Errorf("echo: %s", text(res))
	}
	fmt.Printf("echo: %s\n", text(res))
	return nil
}

// listTools returns the names of every tool the server offers, following
// pagination (bounded, in case a server's cursors never end).
func listTools(ctx context.Context, srv mcp.ServerHandler) (map[string]bool, error) {
	names := map[string]bool{}
	var cursor *string
	for page := 0; page < 100; page++ {
		res, err := srv.ListTools(ctx, &mcp.PaginatedRequestParams{Cursor: cursor})
		if err != nil {
			return nil, err
		}
		for _, t := range res.Tools {
			names[t.Name] = true
		}
		if res.NextCursor == nil || *res.NextCursor == "" {
			break
		}
		cursor = res.NextCursor
	}
	return names, nil
}

// isToolError reports a tool result with isError set: the tool ran and
// failed. Every tool call treats it the same way, as a failure of the run.
func isToolError(res *mcp.CallToolResult) bool { return res.IsError != nil && *res.IsError }

// shutdown ends the session the way basic/lifecycle.mdx describes for stdio.
func shutdown(conn *jsonrpc2.Conn, cmd *exec.Cmd) error {
	// Close sends anything still queued (a cancellation issued just before
	// is not lost), closes the server's stdin, and waits for the server to
	// close its stdout, i.e. to exit.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := conn.Close(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "stdio-client: server still running after stdin was closed; sending SIGTERM")
		_ = cmd.Process.Signal(syscall.SIGTERM)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var err error
	select {
	case err = <-exited:
	case <-time.After(5 * time.Second):
		fmt.Fprintln(os.Stderr, "stdio-client: server ignored SIGTERM; killing it")
		_ = cmd.Process.Kill()
		err = <-exited
	}
	if err != nil {
		return fmt.Errorf("server exited: %w", err)
	}
	fmt.Println("server exited cleanly")
	return nil
}

// text joins the text blocks of a tool result.
func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	s := strings.Join(parts, " ")
	if isToolError(res) {
		s = "tool error: " + s
	}
	return s
}
