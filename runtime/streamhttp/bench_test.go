package streamhttp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// benchServer is a Handler with an echo method in both eras, over loopback
// TCP.
func benchServer(b *testing.B, opts Options) (*httptest.Server, func()) {
	opts.Logger = quiet()
	opts.Revisions = testRevs()
	h := newHandler(func(_ context.Context, t jsonrpc2.Transport, era Era) *jsonrpc2.Conn {
		pol := legacyPolicy(jsonrpc2.SideServer)
		if era == EraModern {
			pol = modernPolicy(jsonrpc2.SideServer)
		}
		c := jsonrpc2.NewConn(t, jsonrpc2.WithPolicy(pol), jsonrpc2.WithLogger(quiet()))
		c.Handle("initialize", func(context.Context, *jsonrpc2.Request) (any, error) {
			return map[string]string{"protocolVersion": "2025-11-25"}, nil
		})
		c.Handle("echo", func(context.Context, *jsonrpc2.Request) (any, error) { return map[string]bool{"ok": true}, nil })
		return c
	}, opts)
	srv := httptest.NewServer(h)
	return srv, func() {
		srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		h.Close(ctx)
	}
}

func benchPost(b *testing.B, c *http.Client, url string, hdr map[string]string, body string) *http.Response {
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		b.Fatalf("status %d", resp.StatusCode)
	}
	return resp
}

// BenchmarkRoundTrip is one request per iteration: legacy (in a session)
// and modern (a Conn per request), answered as JSON or SSE.
func BenchmarkRoundTrip(b *testing.B) {
	for _, era := range []string{"legacy", "modern"} {
		for _, sse := range []bool{false, true} {
			name := era + "/json"
			if sse {
				name = era + "/sse"
			}
			b.Run(name, func(b *testing.B) {
				srv, stop := benchServer(b, Options{SSEResponses: sse})
				defer stop()
				c := srv.Client()
				hdr := modernHdr("echo")
				body := `{"jsonrpc":"2.0","id":%d,"method":"echo","params":{` + modernMeta + `}}`
				if era == "legacy" {
					resp := benchPost(b, c, srv.URL, nil, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}`)
					hdr = legacyHdr(resp.Header.Get(HeaderSessionID))
					body = `{"jsonrpc":"2.0","id":%d,"method":"echo"}`
				}
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					benchPost(b, c, srv.URL, hdr, fmt.Sprintf(body, i+1))
				}
			})
		}
	}
}
