package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"time"
)

// Era is the Streamable HTTP protocol era a run speaks.
type Era string

const (
	// Legacy is 2025-11-25: a session (Mcp-Session-Id) opened by
	// initialize; a dropped POST is not a cancellation.
	Legacy Era = "legacy"
	// Modern is 2026-07-28: no session, the version in every request's
	// _meta and header; closing a request's stream cancels it.
	Modern Era = "modern"
)

// HTTPMode is one way of running an HTTP peer: the era, and whether the
// server answers a request as an SSE stream instead of a JSON body.
type HTTPMode struct {
	Era Era
	SSE bool
}

func (m HTTPMode) String() string {
	if m.SSE {
		return string(m.Era) + ", SSE"
	}
	return string(m.Era) + ", JSON"
}

// Revision is the protocol revision of the mode's era.
func (m HTTPMode) Revision() string {
	if m.Era == Modern {
		return Rev20260728
	}
	return Rev20251125
}

// HTTPModes are the four modes every HTTP peer is run in.
var HTTPModes = []HTTPMode{{Legacy, false}, {Legacy, true}, {Modern, false}, {Modern, true}}

// HTTPPeer is one MCP implementation's Streamable HTTP server and client.
type HTTPPeer struct {
	// Name is how tables name it.
	Name string
	// Handler is the peer's server for mode m with the echo and block
	// tools; stop releases what the handler holds beyond its requests.
	Handler func(m HTTPMode, h *Hooks) (handler http.Handler, stop func(), err error)
	// Connect connects the peer's own client, initialized for m, to url.
	Connect func(url string, m HTTPMode) (*Client, error)
	// Note says how the peer is configured for m, for the tables.
	Note func(m HTTPMode) string
}

// HTTPPeers are the implementations compared over HTTP, mcpgen first.
var HTTPPeers = []HTTPPeer{mcpgenHTTP, gosdkHTTP, mcpgoHTTP}

// HTTPClient says which client drives an HTTP server.
type HTTPClient string

const (
	// OwnClient is the peer's own client library.
	OwnClient HTTPClient = "own client"
	// RawClient is one plain net/http client, the same for every server,
	// that aborts a request's POST to cancel it: the server alone is
	// measured, and cancellation is the stream closing.
	RawClient HTTPClient = "raw net/http client"
)

// listen serves the peer's handler for m on a loopback TCP port.
func listen(p HTTPPeer, m HTTPMode, h *Hooks) (url string, closeAll func(), err error) {
	handler, stop, err := p.Handler(m, h)
	if err != nil {
		return "", nil, err
	}
	srv := httptest.NewServer(handler)
	return srv.URL + "/mcp", func() {
		stop()
		srv.CloseClientConnections()
		srv.Close()
	}, nil
}

// HTTPConnector connects client c to a fresh server of p in mode m over
// loopback TCP.
func HTTPConnector(p HTTPPeer, m HTTPMode, c HTTPClient) Connector {
	return func(h *Hooks) (*Client, error) {
		url, stop, err := listen(p, m, h)
		if err != nil {
			return nil, err
		}
		var s *Client
		if c == RawClient {
			s, err = rawConnect(url, m)
		} else {
			s, err = p.Connect(url, m)
		}
		if err != nil {
			stop()
			return nil, err
		}
		clientClose := s.Close
		s.Close = closeOnce(func() {
			clientClose()
			stop()
		})
		return s, nil
	}
}

// HTTPEcho measures sequential echo round trips over HTTP for at least d.
func HTTPEcho(p HTTPPeer, m HTTPMode, c HTTPClient, d time.Duration) RoundTrip {
	return echo(HTTPConnector(p, m, c), 1, d)
}

// HTTPCancelLatency is CancelLatency over HTTP: with the raw client the
// cancellation is the client aborting the request's POST (closing its
// stream); with the peer's own client it is whatever that client does on a
// cancelled context in that era.
func HTTPCancelLatency(p HTTPPeer, m HTTPMode, c HTTPClient, n int, timeout time.Duration) Latencies {
	return HTTPCancelSamples(p, m, c, n, timeout).Latencies()
}

// HTTPCancelSamples is HTTPCancelLatency's raw samples, for pooling rounds.
func HTTPCancelSamples(p HTTPPeer, m HTTPMode, c HTTPClient, n int, timeout time.Duration) Samples {
	return cancelSamples(HTTPConnector(p, m, c), n, timeout)
}

// HTTPStreams holds n block calls open at once from the raw client (n
// in-flight POSTs, each an open response stream), reports the live heap
// and goroutines per open stream, then aborts them all and times until
// every handler's context is done; handlers that are never cancelled end
// at timeout.
func HTTPStreams(p HTTPPeer, m HTTPMode, n int, timeout time.Duration) Mass {
	return cancelMany(HTTPConnector(p, m, RawClient), n, timeout, timeout)
}

// rawClient is the net/http client every raw session shares: enough idle
// connections that concurrent callers do not redial.
var rawClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256, DisableCompression: true}}

const (
	legacyVersion = "2025-11-25"
	modernVersion = "2026-07-28"
	modernMeta    = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"bench","version":"0"},"io.modelcontextprotocol/clientCapabilities":{}}`
)

// rawSession speaks Streamable HTTP with hand-written requests.
type rawSession struct {
	url, sid string
	m        HTTPMode
	id       atomic.Int64
}

func rawConnect(url string, m HTTPMode) (*Client, error) {
	r := &rawSession{url: url, m: m}
	want := "application/json"
	if m.SSE {
		want = "text/event-stream"
	}
	// The modern raw client sends 2026-07-28 in every request's _meta and
	// header; the legacy one reads the version initialize negotiated.
	negotiated := modernVersion
	if m.Era == Legacy {
		resp, body, err := r.post(context.Background(), "initialize", "",
			`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}`)
		if err != nil {
			return nil, err
		}
		if r.sid = resp.Header.Get("Mcp-Session-Id"); r.sid == "" {
			return nil, fmt.Errorf("initialize: no Mcp-Session-Id (status %d)", resp.StatusCode)
		}
		if negotiated = jsonField(body, "protocolVersion"); negotiated == "" {
			return nil, fmt.Errorf("initialize: no protocolVersion in %s", body)
		}
		if _, _, err := r.post(context.Background(), "notifications/initialized", "", `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
			return nil, err
		}
	}
	return &Client{
		Revision: negotiated,
		Echo: func(ctx context.Context, text string) (string, error) {
			resp, body, err := r.post(ctx, "tools/call", "echo", r.call("echo", `{"text":`+string(quote(text))+`}`))
			if err != nil {
				return "", err
			}
			// The mode must be what the server really did, or the
			// JSON and SSE rows would measure the same thing.
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, want) {
				return "", fmt.Errorf("response is %q, the mode asks for %s", ct, want)
			}
			return resultText(body)
		},
		Block: func(ctx context.Context) error {
			_, _, err := r.post(ctx, "tools/call", "block", r.call("block", `{}`))
			return err
		},
		Close: closeOnce(func() {
			if r.sid != "" {
				req, _ := http.NewRequest(http.MethodDelete, r.url, nil)
				r.header(req, "", "")
				if resp, err := rawClient.Do(req); err == nil {
					resp.Body.Close()
				}
			}
			rawClient.CloseIdleConnections()
		}),
	}, nil
}

func (r *rawSession) call(tool, args string) string {
	id := r.id.Add(1)
	if r.m.Era == Modern {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s,%s}}`, id, tool, args, modernMeta)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args)
}

func (r *rawSession) header(req *http.Request, method, name string) {
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if r.m.Era == Modern {
		req.Header.Set("Mcp-Protocol-Version", modernVersion)
		req.Header.Set("Mcp-Method", method)
		if name != "" {
			req.Header.Set("Mcp-Name", name)
		}
		return
	}
	if method != "initialize" {
		req.Header.Set("Mcp-Protocol-Version", legacyVersion)
	}
	if r.sid != "" {
		req.Header.Set("Mcp-Session-Id", r.sid)
	}
}

// post sends one message and reads the whole answer; a cancelled ctx
// aborts the request, closing its connection.
func (r *rawSession) post(ctx context.Context, method, name, body string) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.url, strings.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	r.header(req, method, name)
	resp, err := rawClient.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusAccepted {
		return nil, nil, fmt.Errorf("%s: HTTP %d: %s", method, resp.StatusCode, data)
	}
	return resp, data, nil
}

// jsonField is the string member name of the result of the response in
// body (a JSON body or an SSE stream), "" if it has none.
func jsonField(body []byte, name string) string {
	msg := lastMessage(body)
	var resp struct {
		Result map[string]json.RawMessage `json:"result"`
	}
	if json.Unmarshal(msg, &resp) != nil {
		return ""
	}
	var s string
	_ = json.Unmarshal(resp.Result[name], &s)
	return s
}

// lastMessage is body itself when it is a JSON body, else the last data
// event of the SSE stream in body.
func lastMessage(body []byte) []byte {
	if bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
		return body
	}
	var msg []byte
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		if line, ok := bytes.CutPrefix(sc.Bytes(), []byte("data:")); ok {
			msg = append(msg[:0], bytes.TrimSpace(line)...)
		}
	}
	return msg
}

// resultText returns the first text content of the response in body, a
// JSON body or an SSE stream whose last data event is the response.
func resultText(body []byte) (string, error) {
	msg := lastMessage(body)
	var resp struct {
		Result *struct {
			StructuredContent *struct {
				Text string `json:"text"`
			} `json:"structuredContent"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(msg, &resp); err != nil {
		return "", fmt.Errorf("response %q: %w", body, err)
	}
	if resp.Result == nil || resp.Result.StructuredContent == nil {
		return "", fmt.Errorf("no structured text in %s", body)
	}
	return resp.Result.StructuredContent.Text, nil
}

// HTTPFloor measures the bare net/http round trip the MCP ones stand on:
// the raw client POSTs an echo request to a handler that reads the body
// and writes a fixed JSON-RPC answer, no MCP at all.
func HTTPFloor(d time.Duration) RoundTrip {
	return echo(floorConnect, 1, d)
}

// StreamFloor is HTTPStreams for a bare net/http handler that blocks until
// its request's context ends: the heap and goroutines per open stream of
// net/http itself (both sides), under every MCP figure.
func StreamFloor(n int, timeout time.Duration) Mass {
	m := cancelMany(streamFloorConnect, n, timeout, 0)
	if m.Err == nil && m.Started < n {
		m.Err = errors.New("not every bare handler started")
	}
	return m
}

// streamFloorConnect is a Connector whose server is the bare handler and
// whose Block is a raw POST to it.
func streamFloorConnect(h *Hooks) (*Client, error) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Reading the body to its end is what lets net/http watch the
		// connection and end r.Context() when the client goes away.
		io.Copy(io.Discard, r.Body)
		h.Started()
		<-r.Context().Done()
		h.Done()
	}))
	return &Client{
		Block: func(ctx context.Context) error {
			req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL, strings.NewReader(`{}`))
			if err != nil {
				return err
			}
			resp, err := rawClient.Do(req)
			if err == nil {
				resp.Body.Close()
			}
			return err
		},
		Close: func() {
			srv.Close()
			rawClient.CloseIdleConnections()
		},
	}, nil
}

// floorServer is the bare net/http handler of the floor rows: it reads
// the body and writes a fixed JSON-RPC answer.
func floorServer() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"text\":\"hello\"}"}],"structuredContent":{"text":"hello"}}}`)
	}))
}

// floorConnect is a Connector whose server is floorServer and whose Echo
// is the raw client's POST to it.
func floorConnect(*Hooks) (*Client, error) {
	srv := floorServer()
	r := &rawSession{url: srv.URL, m: HTTPMode{Era: Legacy}}
	return &Client{
		Echo: func(ctx context.Context, text string) (string, error) {
			_, body, err := r.post(ctx, "tools/call", "echo", r.call("echo", `{"text":"hello"}`))
			if err != nil {
				return "", err
			}
			return resultText(body)
		},
		Close: func() {
			rawClient.CloseIdleConnections()
			srv.Close()
		},
	}, nil
}

// HTTPFloorWakeups is HTTPWakeups for the floor: the raw client against
// floorServer.
func HTTPFloorWakeups(n int) Wakeups { return EchoWakeups(floorConnect, n) }
