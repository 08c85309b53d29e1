package streamhttp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// A transport whose era Dial detected follows the lifecycle the client
// runs: an initialize makes it legacy (no modern headers, the session id
// learned), as a client whose bindings are legacy needs against a dual-era
// server.
func TestDialFollowsInitialize(t *testing.T) {
	f := newFixture(t, Options{})
	c, err := Dial(context.Background(), f.url, ClientOptions{Revisions: testRevs(), Logger: quiet()})
	if err != nil {
		t.Fatal(err)
	}
	if c.Era() != EraModern {
		t.Fatalf("detected %v", c.Era())
	}
	conn := jsonrpc2.NewConn(c, jsonrpc2.WithPolicy(legacyPolicy(jsonrpc2.SideClient)), jsonrpc2.WithLogger(quiet()))
	conn.Start()
	defer conn.Close(context.Background())
	if err := conn.Call(context.Background(), "initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{},
		"clientInfo": map[string]string{"name": "c", "version": "0"}}, nil); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	if c.Era() != EraLegacy || c.SessionID() == "" {
		t.Fatalf("after initialize: era %v session %q", c.Era(), c.SessionID())
	}
	// A request with modern _meta no longer switches a legacy session.
	var out json.RawMessage
	// (What the server makes of it is the server's business.)
	_ = conn.Call(context.Background(), "echo", map[string]any{"_meta": map[string]string{"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}, &out)
	if c.Era() != EraLegacy {
		t.Fatal("a legacy session switched era")
	}
}

// A legacy response stream that ends before its answer is resumed: after
// the server's retry delay, a GET with the last event id, on which the
// answer arrives (SEP-1699, the conformance suite's sse-retry).
func TestClientResumesLegacyStream(t *testing.T) {
	const retry = 50 * time.Millisecond
	var closedAt atomic.Int64 // unix nanoseconds
	gets := make(chan string, 4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost:
			body, _ := io.ReadAll(r.Body)
			m, err := jsonrpc2.DecodeMessage(body)
			if err != nil || m.Kind != jsonrpc2.KindRequest {
				w.WriteHeader(http.StatusAccepted)
				return
			}
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "id: ev-1\nretry: %d\ndata: \n\n", retry.Milliseconds())
			closedAt.Store(time.Now().UnixNano()) // the handler returns: the stream ends without the answer
		case http.MethodGet:
			id := r.Header.Get("Last-Event-ID")
			gets <- id
			if id == "" {
				w.WriteHeader(http.StatusMethodNotAllowed)
				return
			}
			if gap := time.Since(time.Unix(0, closedAt.Load())); gap < retry {
				t.Errorf("reconnected after %v, before the server's retry of %v", gap, retry)
			}
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "id: ev-2\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resumed\":true}}\n\n")
		}
	}))
	defer srv.Close()
	c := NewClientTransport(srv.URL, ClientOptions{Revisions: testRevs(), Era: EraLegacy, NoGetStream: true, Logger: quiet()})
	conn := jsonrpc2.NewConn(c, jsonrpc2.WithPolicy(legacyPolicy(jsonrpc2.SideClient)), jsonrpc2.WithLogger(quiet()))
	conn.Start()
	defer conn.Close(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out json.RawMessage
	if err := conn.Call(ctx, "tools/call", map[string]any{"name": "x"}, &out); err != nil || !strings.Contains(string(out), "resumed") {
		t.Fatalf("call: %s %v", out, err)
	}
	if id := <-gets; id != "ev-1" {
		t.Fatalf("GET with Last-Event-ID %q", id)
	}
}

// Without ClientOptions.ParamHeaders, a modern tools/call carries the
// Mcp-Param-* headers of the x-mcp-header annotations that the tools/list
// result the transport carried declared.
func TestClientLearnsParamHeaders(t *testing.T) {
	region := make(chan string, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		m, err := jsonrpc2.DecodeMessage(body)
		if err != nil || m.Kind != jsonrpc2.KindRequest {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch m.Method {
		case "tools/list":
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","tools":[{"name":"geo","inputSchema":{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}}}}]}}`, m.ID.String())
		case "tools/call":
			region <- r.Header.Get("Mcp-Param-Region")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"resultType":"complete","content":[]}}`, m.ID.String())
		}
	}))
	defer srv.Close()
	c := NewClientTransport(srv.URL, ClientOptions{Revisions: testRevs(), Era: EraModern, Logger: quiet()})
	conn := jsonrpc2.NewConn(c, jsonrpc2.WithPolicy(modernPolicy(jsonrpc2.SideClient)), jsonrpc2.WithLogger(quiet()))
	conn.Start()
	defer conn.Close(context.Background())
	ctx := context.Background()
	if err := conn.Call(ctx, "tools/list", map[string]any{}, nil); err != nil {
		t.Fatal(err)
	}
	if err := conn.Call(ctx, "tools/call", map[string]any{"name": "geo", "arguments": map[string]string{"region": "us-west1"}}, nil); err != nil {
		t.Fatal(err)
	}
	if got := <-region; got != "us-west1" {
		t.Fatalf("Mcp-Param-Region %q", got)
	}
}
