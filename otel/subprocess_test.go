package mcpotel_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	mcpotel "github.com/mcpgen/mcpgen/otel"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// spansEnv, when set, makes the test binary the stdio server of
// TestStdioSubprocess: it serves on stdin and stdout with the
// instrumentation and an in-memory exporter, and at exit (EOF on stdin)
// writes the spans it recorded, as JSON, to the file the variable names.
const spansEnv = "MCPOTEL_TEST_STDIO_SERVER_SPANS"

func TestMain(m *testing.M) {
	if path := os.Getenv(spansEnv); path != "" {
		if err := stdioServer(path); err != nil {
			fmt.Fprintln(os.Stderr, "stdio server:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// exportedSpan is what the server process reports of one span.
type exportedSpan struct {
	Name, Kind                string
	TraceID, SpanID, ParentID string
	ParentRemote              bool
	Attributes                map[string]string
	Events                    []exportedEvent
}

type exportedEvent struct {
	Name       string
	Attributes map[string]string
}

// stdioServer is the server process: the documented stdio path
// (NewServer, Accept on a stdio transport, Run until EOF) with mcpotel's
// ServerOptions.
func stdioServer(path string) error {
	tel := newTelemetry()
	srv := mcp.NewServer(session.Implementation{Name: "otel-stdio", Version: "0"}, &tools{},
		append(mcpotel.ServerOptions(tel.opts()...), session.WithLegacy(mcp20251125.Revision()), session.WithLogger(quiet()))...)
	ctx := context.Background()
	conn, err := srv.Accept(ctx, jsonrpc2.NewStdioTransport(os.Stdin, os.Stdout, jsonrpc2.StdioOptions{}))
	if err != nil {
		return err
	}
	_ = conn.Run(ctx) // until the client closes stdin
	closeCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_ = conn.Close(closeCtx)
	if err := tel.tp.ForceFlush(closeCtx); err != nil {
		return err
	}
	var out []exportedSpan
	for _, s := range tel.spans.Ended() {
		e := exportedSpan{Name: s.Name(), Kind: s.SpanKind().String(), TraceID: s.SpanContext().TraceID().String(),
			SpanID: s.SpanContext().SpanID().String(), ParentID: s.Parent().SpanID().String(), ParentRemote: s.Parent().IsRemote(),
			Attributes: map[string]string{}}
		for _, a := range s.Attributes() {
			e.Attributes[string(a.Key)] = a.Value.String()
		}
		for _, ev := range s.Events() {
			x := exportedEvent{Name: ev.Name, Attributes: map[string]string{}}
			for _, a := range ev.Attributes {
				x.Attributes[string(a.Key)] = a.Value.String()
			}
			e.Events = append(e.Events, x)
		}
		out = append(out, e)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o600)
}

// TestStdioSubprocess: a client and a server in two processes over stdio
// (the server is this test binary re-executed, started by
// session.CommandTransport), each with its own in-memory exporter, in both
// eras. An answered call, a failing one and one the client cancels each
// form one trace across the processes: the server's span is the remote
// child of the client's, through _meta; the cancelled call's server span
// has the cancellation event with the peer's reason.
func TestStdioSubprocess(t *testing.T) {
	for _, tc := range []struct {
		era, version string
		copts        []session.ClientOption
	}{
		{"modern", "2026-07-28", nil},
		{"legacy", "2025-11-25", []session.ClientOption{session.WithClientLegacy(mcp20251125.Revision()), session.WithVersion("2025-11-25")}},
	} {
		t.Run(tc.era, func(t *testing.T) {
			spansFile := filepath.Join(t.TempDir(), "spans.json")
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), spansEnv+"="+spansFile)
			client := newTelemetry()
			inst := mcpotel.NewClient(client.opts()...)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			cs, err := mcp.Connect(ctx, &session.CommandTransport{Command: cmd}, session.Implementation{Name: "otel-client", Version: "0"}, nil,
				append(append(inst.Options(), session.WithClientLogger(quiet())), tc.copts...)...)
			if err != nil {
				t.Fatal(err)
			}
			inst.Bind(cs.ClientSession)

			if _, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "echo"}); err != nil {
				t.Fatalf("echo: %v", err)
			}
			if _, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: "fail"}); err == nil {
				t.Fatal("fail answered")
			}
			callCtx, stop := context.WithCancelCause(ctx)
			started := make(chan struct{}, 1)
			done := make(chan error, 1)
			go func() {
				_, err := cs.WithCallOptions(jsonrpc2.WithProgress(func(jsonrpc2.ProgressParams) {
					select {
					case started <- struct{}{}:
					default:
					}
				})).CallTool(callCtx, &mcp.CallToolRequestParams{Name: "block"})
				done <- err
			}()
			select {
			case <-started:
			case <-ctx.Done():
				t.Fatal("block never started")
			}
			stop(errors.New("the user pressed stop"))
			if err := <-done; !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled call returned %v", err)
			}
			// Closing the session closes the server's stdin: it exits and
			// writes its spans.
			if err := cs.Close(context.Background()); err != nil {
				t.Fatalf("close: %v", err)
			}
			b, err := os.ReadFile(spansFile)
			if err != nil {
				t.Fatalf("the server process wrote no spans: %v", err)
			}
			var server []exportedSpan
			if err := json.Unmarshal(b, &server); err != nil {
				t.Fatal(err)
			}
			find := func(name string) *exportedSpan {
				for i := range server {
					if server[i].Name == name && server[i].Kind == trace.SpanKindServer.String() {
						return &server[i]
					}
				}
				t.Fatalf("the server process has no server span %q", name)
				return nil
			}
			for _, tc2 := range []struct{ name, outcome string }{
				{"tools/call echo", mcpotel.OutcomeOK}, {"tools/call fail", mcpotel.OutcomeError}, {"tools/call block", mcpotel.OutcomeCancelled},
			} {
				c, s := client.waitSpan(t, tc2.name), find(tc2.name)
				if s.TraceID != c.SpanContext().TraceID().String() || s.ParentID != c.SpanContext().SpanID().String() || !s.ParentRemote {
					t.Errorf("%s: server span in trace %s under %s (remote %v); client span %s in trace %s: not one trace",
						tc2.name, s.TraceID, s.ParentID, s.ParentRemote, c.SpanContext().SpanID(), c.SpanContext().TraceID())
				}
				want := map[string]string{string(mcpotel.AttrOutcome): tc2.outcome, string(mcpotel.AttrVersion): tc.version, string(mcpotel.AttrEra): tc.era}
				for k, v := range want {
					if s.Attributes[k] != v {
						t.Errorf("%s: server span %s = %q, want %q", tc2.name, k, s.Attributes[k], v)
					}
				}
				wantAttr(t, c, mcpotel.AttrOutcome, tc2.outcome)
				if tc2.outcome == mcpotel.OutcomeCancelled {
					cancelEvent(t, c, jsonrpc2.SourceCaller.String(), "the user pressed stop")
					ok := false
					for _, e := range s.Events {
						ok = ok || e.Name == mcpotel.EventCancelled && e.Attributes[string(mcpotel.AttrCancelSource)] == jsonrpc2.SourcePeer.String() &&
							e.Attributes[string(mcpotel.AttrCancelReason)] == "the user pressed stop"
					}
					if !ok {
						t.Errorf("server span of the cancelled call: events %+v, want %s from the peer with the user's reason", s.Events, mcpotel.EventCancelled)
					}
				}
			}
			t.Logf("%d spans from the server process, trace of the cancelled call %s", len(server), client.waitSpan(t, "tools/call block").SpanContext().TraceID())
		})
	}
}
