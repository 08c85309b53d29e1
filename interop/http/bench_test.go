package interophttp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	mcpgen "github.com/mcpgen/mcpgen/runtime"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Side-by-side benchmarks of mcpgen's streamhttp.Handler and go-sdk's
// StreamableHTTPHandler, driven by the same raw HTTP client over loopback
// TCP, in the same run:
//
//	cd interop/http && go test -run '^$' -bench . -benchmem
//
// RoundTrip: one tools/call per iteration in an initialized legacy
// session, answered as JSON or as SSE. CancelLatency: ns from the client
// closing a modern request's stream to the handler's ctx ending (go-sdk
// needs PropagateRequestCancellation for this at all). StreamMemory: heap
// bytes per open GET stream.

const echoCall = `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{}}}`

type target struct {
	name string
	h    http.Handler
	stop func()
}

func mcpgenTarget(sse bool) target {
	o := newOurs()
	h := streamhttp.NewHandler(o.factory, streamhttp.Options{Logger: quiet(), SSEResponses: sse})
	return target{"mcpgen", h, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.Close(ctx)
	}}
}

func gosdkServer(started chan struct{}, ended chan error) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "go-sdk", Version: "1.8"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "echo"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "echo"}}}, nil, nil
	})
	mcp.AddTool(s, &mcp.Tool{Name: "sleep"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		started <- struct{}{}
		<-ctx.Done()
		ended <- ctx.Err()
		return nil, nil, ctx.Err()
	})
	return s
}

func gosdkTarget(sse bool) target {
	s := gosdkServer(make(chan struct{}, 1), make(chan error, 1))
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{JSONResponse: !sse, Logger: quiet()})
	return target{"go-sdk", h, func() {}}
}

func do(b *testing.B, c *http.Client, url, sid, body string) (*http.Response, string) {
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		b.Fatal(err)
	}
	return resp, string(data)
}

func session(b *testing.B, c *http.Client, url string) string {
	resp, body := do(b, c, url, "", `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	if sid == "" {
		b.Fatalf("no session: %d %s", resp.StatusCode, body)
	}
	do(b, c, url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return sid
}

func BenchmarkRoundTrip(b *testing.B) {
	for _, sse := range []bool{false, true} {
		mode := "json"
		if sse {
			mode = "sse"
		}
		for i, mk := range []func(bool) target{mcpgenTarget, gosdkTarget} {
			b.Run([]string{"mcpgen", "go-sdk"}[i]+"/"+mode, func(b *testing.B) {
				tg := mk(sse)
				srv := httptest.NewServer(tg.h)
				defer srv.Close()
				defer tg.stop()
				c := srv.Client()
				sid := session(b, c, srv.URL)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					resp, body := do(b, c, srv.URL, sid, fmt.Sprintf(echoCall, i+1))
					if resp.StatusCode != 200 || !strings.Contains(body, `"result"`) {
						b.Fatalf("%d %s", resp.StatusCode, body)
					}
				}
			})
		}
	}
}

// BenchmarkCancelLatency measures, per iteration, the time from the client
// dropping a running modern request to the server handler's ctx ending.
func BenchmarkCancelLatency(b *testing.B) {
	type srv struct {
		name    string
		h       http.Handler
		started chan struct{}
		ended   chan error
		stop    func()
	}
	mk := []func() srv{
		func() srv {
			o := newOurs()
			oh := streamhttp.NewHandler(o.factory, streamhttp.Options{Logger: quiet()})
			return srv{"mcpgen", oh, o.started, o.ended, func() {
				ctx, c := context.WithTimeout(context.Background(), 5*time.Second)
				defer c()
				oh.Close(ctx)
			}}
		},
		func() srv {
			gs, ge := make(chan struct{}, 1), make(chan error, 1)
			gh := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return gosdkServer(gs, ge) },
				&mcp.StreamableHTTPOptions{Stateless: true, PropagateRequestCancellation: true, Logger: quiet()})
			return srv{"go-sdk", gh, gs, ge, func() {}}
		},
	}
	for i, name := range []string{"mcpgen", "go-sdk"} {
		b.Run(name, func(b *testing.B) {
			s := mk[i]()
			ts := httptest.NewServer(s.h)
			defer ts.Close()
			defer s.stop()
			var total time.Duration
			for i := 0; i < b.N; i++ {
				ctx, cancel := context.WithCancel(context.Background())
				body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"sleep","arguments":{},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"b","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}}}`, i+1)
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, ts.URL, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
				req.Header.Set("Mcp-Method", "tools/call")
				req.Header.Set("Mcp-Name", "sleep")
				done := make(chan struct{})
				go func() {
					defer close(done)
					if resp, err := ts.Client().Do(req); err == nil {
						io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
					}
				}()
				select {
				case <-s.started:
				case <-time.After(10 * time.Second):
					b.Fatal("handler did not start")
				}
				t0 := time.Now()
				cancel()
				select {
				case <-s.ended:
				case <-time.After(10 * time.Second):
					b.Fatal("handler was not cancelled")
				}
				total += time.Since(t0)
				<-done
			}
			b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns/cancel")
		})
	}
}

// BenchmarkStreamMemory opens b.N GET streams in one legacy session each
// and reports the heap growth per stream.
func BenchmarkStreamMemory(b *testing.B) {
	for i, mk := range []func(bool) target{mcpgenTarget, gosdkTarget} {
		b.Run([]string{"mcpgen", "go-sdk"}[i], func(b *testing.B) {
			tg := mk(false)
			srv := httptest.NewServer(tg.h)
			defer srv.Close()
			defer tg.stop()
			c := srv.Client()
			n := b.N
			if n > 500 {
				n = 500
			}
			sids := make([]string, n)
			for i := range sids {
				sids[i] = session(b, c, srv.URL)
			}
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			var bodies []io.Closer
			for _, sid := range sids {
				req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
				req.Header.Set("Accept", "text/event-stream")
				req.Header.Set("Mcp-Session-Id", sid)
				req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
				resp, err := c.Do(req)
				if err != nil || resp.StatusCode != 200 {
					b.Fatalf("GET: %v %v", err, resp)
				}
				bodies = append(bodies, resp.Body)
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/float64(n), "B/stream")
			for _, bd := range bodies {
				bd.Close()
			}
			srv.CloseClientConnections()
		})
	}
}

var _ = mcpgen.SourceDisconnect
