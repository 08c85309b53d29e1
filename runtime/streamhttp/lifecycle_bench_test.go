package streamhttp

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// BenchmarkLifecycleStreamClose is the bench module's "modern stream close
// → handler ctx done" (raw client) through the lifecycle layer, the path a
// user of NewHandler runs: a session.Server accepts each modern
// request, then the client aborts the POST of a tools/call whose handler
// waits for its context. It reports the p50 and p99 from the abort to the
// handler's ctx done.
func BenchmarkLifecycleStreamClose(b *testing.B) {
	started := make(chan struct{}, 1)
	done := make(chan time.Time, 1)
	url, stop := lifecycleBenchServer(func(ctx context.Context) {
		started <- struct{}{}
		<-ctx.Done()
		done <- time.Now()
	})
	defer stop()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16, DisableCompression: true}}
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ctx, abort := context.WithCancel(context.Background())
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"block","arguments":{},%s}}`, i+1, modernMeta)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set(HeaderProtocolVersion, "2026-07-28")
		req.Header.Set(HeaderMethod, "tools/call")
		req.Header.Set(HeaderName, "block")
		returned := make(chan struct{})
		go func() {
			defer close(returned)
			if resp, err := client.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
		select {
		case <-started:
		case <-time.After(5 * time.Second):
			b.Fatal("the handler did not start")
		}
		t0 := time.Now()
		abort()
		select {
		case t1 := <-done:
			lat = append(lat, t1.Sub(t0))
		case <-time.After(5 * time.Second):
			b.Fatal("the closed stream did not reach the handler's context")
		}
		<-returned
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "handler-p50-ns")
	b.ReportMetric(float64(lat[len(lat)*99/100].Nanoseconds()), "handler-p99-ns")
}

// BenchmarkLifecycleRoundTrip is one modern tools/call per iteration through
// the lifecycle layer: session.Server accepts each request on its own Conn.
func BenchmarkLifecycleRoundTrip(b *testing.B) {
	url, stop := lifecycleBenchServer(nil)
	defer stop()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16, DisableCompression: true}}
	hdr := modernHdr("tools/call")
	hdr[HeaderName] = "echo"
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		benchPost(b, client, url, hdr, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{},%s}}`, i+1, modernMeta))
	}
}

// lifecycleBenchServer serves a modern session.Server through
// NewHandler over loopback TCP. Its tools/call runs block (when
// not nil) for the tool "block" and answers every other at once.
func lifecycleBenchServer(block func(ctx context.Context)) (url string, stop func()) {
	register := func(c *jsonrpc2.Conn) []string {
		if c == nil {
			return []string{"tools/call"}
		}
		c.Handle("tools/call", func(ctx context.Context, r *jsonrpc2.Request) (any, error) {
			if block != nil && strings.Contains(string(r.Params), `"name":"block"`) {
				block(ctx)
				return nil, context.Cause(ctx)
			}
			return map[string]any{"content": []any{}}, nil
		})
		return []string{"tools/call"}
	}
	srv := session.NewServer(session.Implementation{Name: "bench", Version: "0"},
		withHTTPFacts(session.Revision{Version: "2026-07-28", Modern: true, Policy: modernPolicy,
			Lifecycle:     []string{session.MethodDiscover, session.MethodSubscriptionsListen},
			ServerMethods: map[string]string{"tools/call": "CallTool"}, Capabilities: map[string]string{"tools/call": "tools"}}),
		register, session.WithLogger(quiet()))
	h := NewHandler(srv, Options{Logger: quiet()})
	hs := httptest.NewServer(h)
	return hs.URL, func() {
		hs.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.Close(ctx)
	}
}
