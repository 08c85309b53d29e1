package streamhttp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// giveUpAsker's tool "<method>" asks the client for input with the Ask
// helper that sends <method>, and gives up when that fails: the ask timed
// out (the server's Conns have a default call timeout; the tool then
// answers with a tool error) or the tools/call itself was cancelled.
type giveUpAsker struct{}

func (giveUpAsker) ListTools(context.Context, *mcp.PaginatedRequestParams) (*mcp.ListToolsResult, error) {
	return &mcp.ListToolsResult{Tools: []mcp.Tool{}}, nil
}

func (giveUpAsker) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	var err error
	switch p.Name {
	case mcp.MethodElicit:
		_, err = mcp.AskElicit(ctx, &mcp.ElicitRequestFormParams{Message: "name?",
			RequestedSchema: mcp.ElicitRequestFormParamsRequestedSchema{Properties: map[string]mcp.PrimitiveSchemaDefinition{}}})
	case mcp.MethodCreateMessage:
		_, err = mcp.AskCreateMessage(ctx, &mcp.CreateMessageRequestParams{MaxTokens: 1, Messages: []mcp.SamplingMessage{}})
	case mcp.MethodListRoots:
		_, err = mcp.AskListRoots(ctx, &mcp.ListRootsRequestParams{})
	default:
		return mcp.ToolError(fmt.Errorf("no tool %q", p.Name)), nil
	}
	if err == nil {
		return mcp.TextResult("answered"), nil
	}
	if ctx.Err() == nil {
		return mcp.ToolError(fmt.Errorf("no answer: %w", err)), nil
	}
	return nil, err
}

// rawClient is a 2025-11-25 client written with net/http alone. It never
// opens the GET stream: what the server sends reaches it only on the
// streams of its POSTs.
type rawClient struct {
	t   *testing.T
	url string
	hc  *http.Client
	sid string
}

// serveAsker serves giveUpAsker over Streamable HTTP, the user's way
// (NewHandler around the generated NewServer), and returns a
// client with an initialized 2025-11-25 session that declared the
// elicitation, sampling and roots capabilities. With askTimeout set the
// server's calls to the client time out after it.
func serveAsker(t *testing.T, askTimeout time.Duration) *rawClient {
	t.Helper()
	quiet := slog.New(slog.DiscardHandler)
	srv := mcp.NewServer(session.Implementation{Name: "asker", Version: "1"}, giveUpAsker{},
		session.WithLegacy(mcp20251125.Revision()), session.WithLogger(quiet),
		session.WithConnOptions(jsonrpc2.WithDefaultTimeout(askTimeout)))
	h := streamhttp.NewHandler(srv, streamhttp.Options{Logger: quiet})
	hs := httptest.NewServer(h)
	c := &rawClient{t: t, url: hs.URL + "/mcp", hc: &http.Client{Transport: &http.Transport{}}}
	t.Cleanup(func() {
		c.hc.CloseIdleConnections()
		hs.CloseClientConnections()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := h.Close(ctx); err != nil {
			t.Errorf("Handler.Close: %v", err)
		}
		hs.Close()
	})
	resp := c.post(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{},"sampling":{},"roots":{}},"clientInfo":{"name":"raw","version":"0"}}}`)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	c.sid = resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || c.sid == "" || !bytes.Contains(body, []byte(`"protocolVersion":"2025-11-25"`)) {
		t.Fatalf("initialize: %d %s (session %q)", resp.StatusCode, body, c.sid)
	}
	c.accepted(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

// post sends one message, accepting JSON and SSE as a client must.
func (c *rawClient) post(body string) *http.Response {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.url, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.sid != "" {
		req.Header.Set("Mcp-Session-Id", c.sid)
		req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		c.t.Fatalf("POST: %v", err)
	}
	return resp
}

// accepted posts a notification or response, which must get 202.
func (c *rawClient) accepted(body string) {
	c.t.Helper()
	resp := c.post(body)
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		c.t.Fatalf("POST %s: %d %s", body, resp.StatusCode, b)
	}
}

// sseStream is the SSE body of a POST, read event by event: each message
// is a decoded JSON-RPC message; the channel closes when the stream ends.
type sseStream struct {
	t    *testing.T
	msgs chan map[string]any
}

func readSSE(t *testing.T, resp *http.Response) *sseStream {
	t.Helper()
	if ct := resp.Header.Get("Content-Type"); resp.StatusCode != 200 || !strings.HasPrefix(ct, "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("want an SSE stream, got %d %s %s", resp.StatusCode, ct, b)
	}
	s := &sseStream{t: t, msgs: make(chan map[string]any, 16)}
	go func() {
		defer close(s.msgs)
		defer resp.Body.Close()
		r := bufio.NewReader(resp.Body)
		var data []byte
		for {
			line, err := r.ReadString('\n')
			line = strings.TrimRight(line, "\r\n")
			if d, ok := strings.CutPrefix(line, "data:"); ok {
				data = append(data, strings.TrimPrefix(d, " ")...)
			} else if line == "" && len(data) > 0 {
				var m map[string]any
				if json.Unmarshal(data, &m) != nil {
					m = map[string]any{"unparsable": string(data)}
				}
				s.msgs <- m
				data = nil
			}
			if err != nil {
				return
			}
		}
	}()
	return s
}

// next returns the next message on the stream; ok is false once it ended.
func (s *sseStream) next() (m map[string]any, ok bool) {
	s.t.Helper()
	select {
	case m, ok = <-s.msgs:
		return m, ok
	case <-time.After(10 * time.Second):
		s.t.Fatal("timed out waiting for an SSE event")
	}
	return nil, false
}

func (s *sseStream) must() map[string]any {
	s.t.Helper()
	m, ok := s.next()
	if !ok {
		s.t.Fatal("the stream ended")
	}
	return m
}

func js(v any) string { b, _ := json.Marshal(v); return string(b) }

func isCancelOf(m map[string]any, id any) bool {
	params, _ := m["params"].(map[string]any)
	return m["method"] == "notifications/cancelled" && params != nil && js(params["requestId"]) == js(id)
}

var askMethods = []string{mcp.MethodElicit, mcp.MethodCreateMessage, mcp.MethodListRoots}

// TestHTTPAskCancelledOnRequestStream (issue 37): over Streamable HTTP
// (2025-11-25 session, no GET stream), when a tool gives up on its
// elicitation/create, sampling/createMessage or roots/list, the client
// reads that request's notifications/cancelled on the POST stream of the
// tools/call that sent it, before the stream ends: before the tool's
// response when the ask timed out, and on its own (no response, as the
// client cancelled the call) when the client cancelled the tools/call.
func TestHTTPAskCancelledOnRequestStream(t *testing.T) {
	for _, method := range askMethods {
		t.Run(method+"/timeout", func(t *testing.T) {
			c := serveAsker(t, 5*time.Millisecond)
			// The response racing its cancellation: many rounds.
			for i := 1; i <= 10; i++ {
				s := readSSE(t, c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q}}`, i, method)))
				ask := s.must()
				if ask["method"] != method {
					t.Fatalf("round %d: want %s on the POST stream, got %s", i, method, js(ask))
				}
				first, ok := s.next()
				if !ok {
					t.Fatalf("round %d: the stream ended without the %s cancellation or the response", i, method)
				}
				if !isCancelOf(first, ask["id"]) {
					t.Fatalf("round %d: want the %s cancelled before the response, got %s", i, method, js(first))
				}
				resp := s.must()
				if resp["id"] != float64(i) || resp["result"] == nil {
					t.Fatalf("round %d: want the tools/call result after the cancellation, got %s", i, js(resp))
				}
				if m, ok := s.next(); ok {
					t.Fatalf("round %d: more after the response: %s", i, js(m))
				}
			}
		})
		t.Run(method+"/client-cancel", func(t *testing.T) {
			c := serveAsker(t, 0)
			for i := 1; i <= 3; i++ {
				s := readSSE(t, c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q}}`, i, method)))
				ask := s.must()
				if ask["method"] != method {
					t.Fatalf("round %d: want %s on the POST stream, got %s", i, method, js(ask))
				}
				c.accepted(fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":%d,"reason":"user stop"}}`, i))
				m, ok := s.next()
				if !ok {
					t.Fatalf("round %d: the stream ended without the %s cancellation", i, method)
				}
				if !isCancelOf(m, ask["id"]) {
					t.Fatalf("round %d: want the %s cancelled, got %s", i, method, js(m))
				}
				// Then the stream ends, with no response: the call was cancelled.
				if m, ok := s.next(); ok {
					t.Fatalf("round %d: more after the cancellation: %s", i, js(m))
				}
			}
		})
	}
}
