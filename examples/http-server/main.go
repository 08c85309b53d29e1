// Command http-server is a small MCP server on Streamable HTTP, serving both
// protocol eras on one endpoint (/mcp): legacy sessions (2025-03-26 …
// 2025-11-25, initialize first) and modern stateless requests (2026-07-28).
//
// It offers the same two tools as examples/stdio-server:
//
//   - sleep {"ms": integer}: waits that many milliseconds, or until the
//     request is cancelled;
//   - echo {"text": string}: returns the text.
//
// Cancellation follows each era's rule: a legacy client cancels by POSTing
// notifications/cancelled (dropping the stream is not a cancellation), a
// modern client by closing the request's response stream. Every
// cancellation is logged on stderr (--log-format text|json).
//
//	go run ./examples/http-server --addr 127.0.0.1:8080
//	go run ./examples/http-client http://127.0.0.1:8080/mcp
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	flag "github.com/spf13/pflag"

	mcp20251125 "github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp20260728 "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/logsink"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8080", "address to listen on (loopback by default: DNS-rebinding safety)")
	format := flag.String("log-format", "text", "log format on stderr: text or json")
	flag.Parse()
	log, err := newLogger(*format)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err := run(*addr, log); err != nil {
		log.Error("http-server stopped", "error", err)
		os.Exit(1)
	}
}

// runtimeLog passes only warnings and errors of the runtime through.
func runtimeLog(log *slog.Logger) *slog.Logger {
	return slog.New(logsink.AtLeast(log.Handler(), slog.LevelWarn))
}

func newLogger(format string) (*slog.Logger, error) {
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(os.Stderr, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(os.Stderr, nil)), nil
	}
	return nil, fmt.Errorf("--log-format must be text or json, not %q", format)
}

func run(addr string, log *slog.Logger) error {
	h := streamhttp.NewHandler(newConnFactory(log), streamhttp.Options{Logger: log})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := streamhttp.NewServer(addr, mux)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	// The bound address, so --addr 127.0.0.1:0 is usable (tests do that).
	log.Info("listening", "url", "http://"+ln.Addr().String()+"/mcp")
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = h.Close(shutdown) // ends sessions and streams, so Shutdown does not wait on SSE
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// newConnFactory builds the Conn of each legacy session and each modern
// request, with the revision's cancellation Policy.
//
// The handlers below are minimal lifecycle glue (initialize negotiation,
// server/discover): TO BE REPLACED by the lifecycle layer (Serve/Connect)
// when it lands. The tools are the point of the example.
func newConnFactory(log *slog.Logger) streamhttp.ConnFactory {
	return func(t runtime.Transport, era streamhttp.Era) *runtime.Conn {
		pol := mcp20251125.Policy(runtime.SideServer)
		if era == streamhttp.EraModern {
			pol = mcp20260728.Policy(runtime.SideServer)
		}
		conn := runtime.NewConn(t, runtime.WithPolicy(pol),
			// The runtime's own log at warning level: cancellations are
			// logged once each by the observer.
			runtime.WithLogger(runtimeLog(log).With("era", era.String())),
			runtime.WithObserver(logCancellations(log.With("era", era.String()))))
		tools := &tools{log: log}
		if era == streamhttp.EraModern {
			conn.Handle("server/discover", func(ctx context.Context, _ *runtime.Request) (any, error) {
				return map[string]any{
					"supportedVersions": []string{"2026-07-28"},
					"capabilities":      map[string]any{"tools": map[string]any{}},
					"serverInfo":        serverInfo,
					"cacheScope":        "public",
				}, nil
			})
		} else {
			conn.Handle("initialize", initialize)
			conn.HandleNotification("notifications/initialized", func(context.Context, *runtime.Notification) {})
		}
		conn.Handle("ping", func(context.Context, *runtime.Request) (any, error) { return struct{}{}, nil })
		conn.Handle("tools/list", func(context.Context, *runtime.Request) (any, error) { return toolList, nil })
		conn.Handle("tools/call", tools.call)
		return conn
	}
}

var serverInfo = map[string]string{"name": "mcpgen-http-server", "version": "0.1.0"}

var legacyVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26"}

func initialize(ctx context.Context, r *runtime.Request) (any, error) {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	_ = json.Unmarshal(r.Params, &p)
	v := legacyVersions[0]
	if slices.Contains(legacyVersions, p.ProtocolVersion) {
		v = p.ProtocolVersion
	}
	return map[string]any{
		"protocolVersion": v,
		"capabilities":    map[string]any{"tools": map[string]any{}},
		"serverInfo":      serverInfo,
	}, nil
}

var toolList = map[string]any{"tools": []any{
	map[string]any{
		"name": "sleep", "description": "Waits ms milliseconds (or until cancelled), then says so.",
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"ms": map[string]any{"type": "integer", "minimum": 0}}, "required": []string{"ms"}},
	},
	map[string]any{
		"name": "echo", "description": "Returns its text.",
		"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}, "required": []string{"text"}},
	},
}}

type tools struct{ log *slog.Logger }

const maxSleep = 24 * time.Hour

// call runs a tool. ctx ends when the request is cancelled, by the era's
// rule; context.Cause(ctx) says how, and the result is then dropped.
func (s *tools) call(ctx context.Context, r *runtime.Request) (any, error) {
	var p struct {
		Name      string                     `json:"name"`
		Arguments map[string]json.RawMessage `json:"arguments"`
	}
	if err := json.Unmarshal(r.Params, &p); err != nil {
		return nil, runtime.ErrInvalidParams(err.Error())
	}
	switch p.Name {
	case "sleep":
		var ms int64
		if err := json.Unmarshal(p.Arguments["ms"], &ms); err != nil || ms < 0 || time.Duration(ms) > maxSleep/time.Millisecond {
			return toolError(`sleep needs {"ms": integer} between 0 and 86400000`), nil
		}
		d := time.Duration(ms) * time.Millisecond
		start := time.Now()
		timer := time.NewTimer(d)
		defer timer.Stop()
		select {
		case <-timer.C:
			return text(fmt.Sprintf("slept %d ms", ms)), nil
		case <-ctx.Done():
			cause := context.Cause(ctx)
			attrs := []any{"ms", ms, "after", time.Since(start).Round(time.Millisecond).String(), "cause", cause.Error()}
			var ce *runtime.CancelError
			if errors.As(cause, &ce) {
				attrs = append(attrs, "id", ce.ID.String(), "source", ce.Source.String(), "reason", ce.Reason)
			}
			s.log.Info("sleep interrupted", attrs...)
			return nil, cause
		}
	case "echo":
		var t string
		if err := json.Unmarshal(p.Arguments["text"], &t); err != nil {
			return toolError(`echo needs {"text": string}`), nil
		}
		return text(t), nil
	}
	return nil, runtime.ErrInvalidParams("unknown tool " + p.Name)
}

func text(s string) map[string]any {
	return map[string]any{"content": []any{map[string]string{"type": "text", "text": s}}}
}

func toolError(s string) map[string]any {
	r := text(s)
	r["isError"] = true
	return r
}

// logCancellations logs each cancellation the runtime applies, ignores or
// sends, like examples/stdio-server.
func logCancellations(log *slog.Logger) runtime.Observer {
	return func(e runtime.Event) {
		if e.Kind == runtime.EventReceived || e.Kind == runtime.EventRequested {
			return
		}
		attrs := []slog.Attr{
			slog.String("event", e.Kind.String()),
			slog.String("direction", e.Direction.String()),
			slog.String("id", e.ID.String()),
			slog.String("source", e.Source.String()),
			slog.String("reason", e.Reason),
		}
		if e.Method != "" {
			attrs = append(attrs, slog.String("method", e.Method))
		}
		if e.Kind == runtime.EventIgnored {
			attrs = append(attrs, slog.String("why", e.Why.String()))
		}
		log.LogAttrs(context.Background(), slog.LevelInfo, "cancellation", attrs...)
	}
}
