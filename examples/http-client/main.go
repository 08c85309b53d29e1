// Command http-client connects to an MCP server over Streamable HTTP with
// the documented path (streamhttp.Dial, which detects the server's era, and
// the generated mcp.Connect), calls one tool and cancels the call after a
// while, and reports what happened: in 2026-07-28 closing the response
// stream is the cancellation, in earlier revisions notifications/cancelled.
// It works against any server: --tool and --args say what to call.
//
// By default it calls sleep {"ms": 10000} (examples/http-server has it),
// cancels after 200 ms, then calls echo if the server offers it. It exits 0
// when the call was answered or cancelled as asked.
//
//	go run ./examples/http-client http://127.0.0.1:8080/mcp
//	go run ./examples/http-client --tool add --args '{"a":2,"b":3}' --cancel-after 0 http://127.0.0.1:8080/mcp
//
// For a server that requires OAuth (examples/http-server --auth), use
// auth/oauthclient/examples/http-client-auth: the same client with
// auth/oauthclient's transport, which signs the user in. It lives in that
// module because it needs golang.org/x/oauth2, and this module stays
// standard-library only.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	flag "github.com/spf13/pflag"

	"github.com/mcpgen/mcpgen/generated/mcp20241105"
	"github.com/mcpgen/mcpgen/generated/mcp20250326"
	"github.com/mcpgen/mcpgen/generated/mcp20250618"
	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

func main() {
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: http-client [--era auto|legacy|modern] [--tool NAME] [--args JSON] [--cancel-after D] URL")
		flag.PrintDefaults()
	}
	eraFlag := flag.String("era", "auto", "protocol era: auto (detect, as versioning.mdx describes), legacy or modern")
	tool := flag.String("tool", "sleep", "the tool to call")
	args := flag.String("args", "", `the tool's arguments, a JSON object (default {"ms":10000} for sleep, {} for any other tool)`)
	cancelAfter := flag.Duration("cancel-after", 200*time.Millisecond, "cancel the call after this long (0: never)")
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	var opts []session.ClientOption
	var era streamhttp.Era
	switch *eraFlag {
	case "legacy":
		era = streamhttp.EraLegacy
		opts = append(opts, session.WithVersion(mcp20251125.Revision().Version))
	case "modern":
		era = streamhttp.EraModern
	case "auto":
	default:
		fmt.Fprintf(os.Stderr, "http-client: --era %q: want auto, legacy or modern\n", *eraFlag)
		os.Exit(2)
	}
	arguments, err := toolArguments(*tool, *args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "http-client: --args:", err)
		os.Exit(2)
	}
	if err := run(flag.Arg(0), era, opts, *tool, arguments, *cancelAfter, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "http-client:", err)
		os.Exit(1)
	}
}

// toolArguments decodes --args, a JSON object, with sleep's default.
func toolArguments(tool, args string) (map[string]json.RawMessage, error) {
	if args == "" {
		if tool == "sleep" {
			return map[string]json.RawMessage{"ms": json.RawMessage("10000")}, nil
		}
		return map[string]json.RawMessage{}, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(args), &m); err != nil || m == nil {
		return nil, fmt.Errorf("%q is not a JSON object", args)
	}
	return m, nil
}

func run(url string, era streamhttp.Era, opts []session.ClientOption, tool string, args map[string]json.RawMessage, cancelAfter time.Duration, out io.Writer) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	quiet := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	info := session.Implementation{Name: "mcpgen-http-client", Version: "0.1.0"}
	// Dial detects the server's era unless --era says it.
	// The transport speaks the revisions the session does: the bindings'
	// and the legacy ones it falls back to.
	legacy := []session.Revision{mcp20251125.Revision(), mcp20250618.Revision(), mcp20250326.Revision(), mcp20241105.Revision()}
	revisions := append([]session.Revision{mcp.Revision()}, legacy...)
	tr, err := streamhttp.Dial(ctx, url, streamhttp.ClientOptions{Era: era, Revisions: revisions, ClientInfo: info, Logger: quiet})
	if err != nil {
		return err
	}
	sess, err := mcp.Connect(ctx, tr, info, nil, append([]session.ClientOption{
		session.WithClientLegacy(legacy...),
		session.WithClientLogger(quiet),
	}, opts...)...)
	if err != nil {
		_ = tr.Close()
		return fmt.Errorf("connect: %w", err)
	}
	defer func() {
		cctx, ccancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer ccancel()
		sess.Close(cctx) // flushes a pending cancellation, then DELETEs a legacy session
	}()
	srv := sess.ServerInfo()
	eraName := "legacy"
	if sess.Modern() {
		eraName = "modern"
	}
	fmt.Fprintf(out, "connected (%s era): %s %s, protocol %s\n", eraName, srv.Name, srv.Version, sess.ProtocolVersion())

	callCtx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	if cancelAfter > 0 {
		timer := time.AfterFunc(cancelAfter, func() { stop(fmt.Errorf("http-client gave up after %v", cancelAfter)) })
		defer timer.Stop()
	}
	start := time.Now()
	res, err := sess.WithCallOptions(session.PrintProgress(out)).CallTool(callCtx, &mcp.CallToolRequestParams{Name: tool, Arguments: args})
	took := time.Since(start).Round(time.Millisecond)
	switch {
	case errors.Is(err, context.Canceled) && callCtx.Err() != nil:
		how := "notifications/cancelled sent"
		if sess.Modern() {
			how = "response stream closed"
		}
		fmt.Fprintf(out, "%s cancelled after %s (%s): %v\n", tool, took, how, context.Cause(callCtx))
	case err != nil:
		return fmt.Errorf("%s: %w", tool, err)
	case res.IsError != nil && *res.IsError:
		return fmt.Errorf("%s failed: %s", tool, text(res))
	default:
		fmt.Fprintf(out, "%s answered after %s: %s\n", tool, took, text(res))
	}
	if tool != "sleep" || sess.ServerCapabilities().Tools == nil {
		return nil
	}
	// The demo conversation goes on with echo, when the server has it.
	list, err := sess.ListTools(ctx, &mcp.PaginatedRequestParams{})
	if err != nil {
		return fmt.Errorf("tools/list: %w", err)
	}
	for _, t := range list.Tools {
		if t.Name == "echo" {
			res, err := sess.CallTool(ctx, &mcp.CallToolRequestParams{Name: "echo", Arguments: map[string]json.RawMessage{"text": json.RawMessage(`"hello from http-client"`)}})
			if err != nil {
				return fmt.Errorf("echo: %w", err)
			}
			fmt.Fprintln(out, "echo:", text(res))
		}
	}
	return nil
}

// text is the text of a result's text blocks.
func text(res *mcp.CallToolResult) string {
	var s string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			s += t.Text
		}
	}
	return s
}
