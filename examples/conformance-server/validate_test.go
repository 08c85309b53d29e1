package main

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
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/official"
	"github.com/mcpgen/mcpgen/schema"
	"github.com/mcpgen/mcpgen/validate"
)

// TestResultsValidate sends the fixture every request it serves, in every
// revision it speaks (2026-07-28 requests; 2025-11-25, 2025-06-18 and
// 2025-03-26 sessions) and in both response modes, and checks everything
// it sends back (results, errors, notifications) with the project's
// validator (package validate, what "mcpgen validate" runs) against that
// revision's official schema. The requests are the test's own and are
// not judged; they only tell the validator which result each response is.
func TestResultsValidate(t *testing.T) {
	for _, sse := range []bool{false, true} {
		log := slog.New(slog.NewTextHandler(io.Discard, nil))
		h, err := newHandler(log, sse)
		if err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(h)
		t.Cleanup(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = h.Close(ctx)
			srv.Close()
		})
		mode := map[bool]string{false: "json", true: "sse"}[sse]
		t.Run(mode+"/2026-07-28", func(t *testing.T) {
			c := &client{t: t, url: srv.URL, version: "2026-07-28", modern: true}
			c.modernFlow()
			c.check()
		})
		for _, v := range []string{"2025-11-25", "2025-06-18", "2025-03-26"} {
			t.Run(mode+"/"+v, func(t *testing.T) {
				c := &client{t: t, url: srv.URL, version: v}
				c.legacyFlow()
				c.check()
			})
		}
	}
}

// client drives the fixture over HTTP and keeps the transcript.
type client struct {
	t       *testing.T
	url     string
	version string
	modern  bool
	session string
	nextID  int
	lines   [][]byte     // the transcript, one message a line
	ours    map[int]bool // 1-based lines of the test's own requests
	sent    int          // messages the fixture sent
	// lastEventID is the id of the last SSE event of the last response:
	// a legacy stream that ended before its answer is resumed from it.
	lastEventID string
}

func (c *client) record(msg []byte, ours bool) {
	c.lines = append(c.lines, bytes.TrimSpace(msg))
	if ours {
		if c.ours == nil {
			c.ours = map[int]bool{}
		}
		c.ours[len(c.lines)] = true
	} else {
		c.sent++
	}
}

// check validates the transcript against the revision's schema.
func (c *client) check() {
	c.t.Helper()
	data, err := official.Schema(c.version)
	if err != nil {
		c.t.Fatal(err)
	}
	m, err := schema.LoadBytes(c.version, data, schema.Options{Revision: c.version})
	if err != nil {
		c.t.Fatal(err)
	}
	comp, err := schema.Compile(c.version, data)
	if err != nil {
		c.t.Fatal(err)
	}
	_, problems, err := validate.New(m, comp).Stream(bytes.NewReader(bytes.Join(c.lines, []byte("\n"))))
	if err != nil {
		c.t.Fatal(err)
	}
	bad := 0
	for _, p := range problems {
		if c.ours[p.Line] {
			continue
		}
		bad++
		c.t.Errorf("%s: %s\n\tmessage: %.400s", c.version, p, c.lines[p.Line-1])
	}
	if c.sent < 20 {
		c.t.Errorf("only %d messages from the fixture: the flow did not run", c.sent)
	}
	c.t.Logf("%d messages from the fixture validated against %s, %d problems", c.sent, c.version, bad)
}

// request sends one request and returns the fixture's final answer (and
// records every message of the response).
func (c *client) request(method string, params map[string]any) map[string]any {
	c.t.Helper()
	c.nextID++
	id := c.nextID
	if params == nil {
		params = map[string]any{}
	}
	hdr := http.Header{}
	if c.modern {
		meta, _ := params["_meta"].(map[string]any)
		if meta == nil {
			meta = map[string]any{}
		}
		meta["io.modelcontextprotocol/protocolVersion"] = c.version
		meta["io.modelcontextprotocol/clientInfo"] = map[string]string{"name": "validate-test", "version": "1"}
		meta["io.modelcontextprotocol/clientCapabilities"] = map[string]any{"sampling": map[string]any{}, "elicitation": map[string]any{}, "roots": map[string]any{}}
		meta["io.modelcontextprotocol/logLevel"] = "debug"
		params["_meta"] = meta
		hdr.Set("MCP-Protocol-Version", c.version)
		hdr.Set("Mcp-Method", method)
		switch method {
		case "tools/call", "prompts/get":
			hdr.Set("Mcp-Name", params["name"].(string))
		case "resources/read":
			hdr.Set("Mcp-Name", params["uri"].(string))
		}
		if args, ok := params["arguments"].(map[string]any); ok && params["name"] == "test_custom_headers" {
			hdr.Set("Mcp-Param-Region", args["region"].(string))
		}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	msgs := c.post(hdr, body, 0)
	for resumes := 0; ; resumes++ {
		for _, m := range msgs {
			var v map[string]any
			_ = json.Unmarshal(m, &v)
			if v["id"] == float64(id) && v["method"] == nil {
				return v
			}
		}
		if c.modern || c.lastEventID == "" || resumes == 3 {
			break
		}
		// The stream ended before the answer (test_reconnection closes
		// it): resume it, as a legacy client does.
		msgs = append(msgs, c.resume()...)
	}
	c.t.Fatalf("%s: no response among %d messages", method, len(msgs))
	return nil
}

// post sends body and records it and every message of the response; with
// limit > 0 it stops after that many messages (a listen stream).
func (c *client) post(hdr http.Header, body []byte, limit int) [][]byte {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	req.Header = hdr
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("MCP-Protocol-Version", c.version)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		c.session = sid
	}
	c.record(body, true)
	var msgs [][]byte
	c.lastEventID = ""
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		msgs = c.readSSE(resp.Body, limit)
	} else if b, _ := io.ReadAll(resp.Body); len(bytes.TrimSpace(b)) > 0 {
		msgs = append(msgs, b)
	}
	for _, m := range msgs {
		c.record(m, false)
	}
	return msgs
}

// readSSE reads the messages of an SSE body (at most limit when > 0),
// keeping the last event id for a resumption.
func (c *client) readSSE(body io.Reader, limit int) [][]byte {
	var msgs [][]byte
	sc := bufio.NewScanner(body)
	sc.Buffer(nil, 1<<20)
	var data []byte
	for sc.Scan() {
		line := sc.Text()
		if d, ok := strings.CutPrefix(line, "data:"); ok {
			data = append(data, strings.TrimPrefix(d, " ")...)
			continue
		}
		if id, ok := strings.CutPrefix(line, "id:"); ok {
			c.lastEventID = strings.TrimSpace(id)
			continue
		}
		if line == "" && len(data) > 0 {
			msgs = append(msgs, data)
			data = nil
			if limit > 0 && len(msgs) >= limit {
				break
			}
		}
	}
	return msgs
}

// resume GETs the rest of a legacy stream after c.lastEventID and records
// its messages.
func (c *client) resume() [][]byte {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", c.session)
	req.Header.Set("MCP-Protocol-Version", c.version)
	req.Header.Set("Last-Event-ID", c.lastEventID)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<10))
		c.t.Fatalf("resuming after %s: HTTP %d: %s", c.lastEventID, resp.StatusCode, b)
	}
	msgs := c.readSSE(resp.Body, 0)
	for _, m := range msgs {
		c.record(m, false)
	}
	return msgs
}

// callAll calls every tool, prompt and resource of the catalogue.
func (c *client) callAll() {
	_, impl, err := newServer(slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		c.t.Fatal(err)
	}
	cat := impl.cat
	args := map[string]map[string]any{
		"test_sampling":            {"prompt": "hi"},
		"test_elicitation":         {"message": "hi"},
		"test_custom_headers":      {"region": "us-west1"},
		"json_schema_2020_12_tool": {"name": "n", "contactMethod": "email", "email": "a@b.c"},
	}
	for _, tool := range impl.all {
		a := args[tool.Name]
		if a == nil {
			a = map[string]any{}
		}
		p := map[string]any{"name": tool.Name, "arguments": a}
		if tool.Name == "test_tool_with_progress" {
			p["_meta"] = map[string]any{"progressToken": "tok-1"}
		}
		c.answerInputs("tools/call", p, c.request("tools/call", p))
	}
	for _, pr := range cat.prompts {
		p := map[string]any{"name": pr.Name, "arguments": map[string]any{"arg1": "a", "arg2": "b", "resourceUri": "test://static-text"}}
		c.answerInputs("prompts/get", p, c.request("prompts/get", p))
	}
	for _, uri := range []string{"test://static-text", "test://static-binary", "test://watched-resource", "test://template/7/data", "test://nope"} {
		c.request("resources/read", map[string]any{"uri": uri})
	}
	for _, m := range []string{"tools/list", "prompts/list", "resources/list", "resources/templates/list"} {
		c.request(m, nil)
	}
	c.request("completion/complete", map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "test_prompt_with_arguments"}, "argument": map[string]any{"name": "arg1", "value": "a"}})
}

// answerInputs retries an input-required (MRTR) result with answers to
// every input request, until the result is complete.
func (c *client) answerInputs(method string, params, res map[string]any) {
	for round := 0; round < 4; round++ {
		result, _ := res["result"].(map[string]any)
		if result == nil || result["resultType"] != "input_required" {
			return
		}
		reqs, _ := result["inputRequests"].(map[string]any)
		answers := map[string]any{}
		keys := make([]string, 0, len(reqs))
		for k := range reqs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			r, _ := reqs[k].(map[string]any)
			switch r["method"] {
			case "elicitation/create":
				answers[k] = map[string]any{"action": "accept", "content": map[string]any{"name": "Ada", "ok": true, "color": "blue", "context": "c"}}
			case "sampling/createMessage":
				answers[k] = map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": "Paris"}, "model": "m"}
			case "roots/list":
				answers[k] = map[string]any{"roots": []any{map[string]any{"uri": "file:///tmp"}}}
			default:
				c.t.Fatalf("%s: unknown input request %v", method, r)
			}
		}
		p := map[string]any{}
		for k, v := range params {
			p[k] = v
		}
		delete(p, "_meta")
		p["inputResponses"] = answers
		if st, ok := result["requestState"]; ok {
			p["requestState"] = st
		}
		res = c.request(method, p)
	}
	c.t.Errorf("%s %v: still input_required after 4 rounds", method, params["name"])
}

func (c *client) modernFlow() {
	c.request("server/discover", nil)
	c.callAll()
	// A subscription's acknowledgement, then the stream is dropped.
	c.nextID++
	meta := map[string]any{"io.modelcontextprotocol/protocolVersion": c.version, "io.modelcontextprotocol/clientCapabilities": map[string]any{}}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.nextID, "method": "subscriptions/listen",
		"params": map[string]any{"_meta": meta, "notifications": map[string]any{"toolsListChanged": true}}})
	hdr := http.Header{}
	hdr.Set("MCP-Protocol-Version", c.version)
	hdr.Set("Mcp-Method", "subscriptions/listen")
	if got := c.post(hdr, body, 1); len(got) != 1 {
		c.t.Errorf("subscriptions/listen: %d messages, want the acknowledgement", len(got))
	}
}

func (c *client) legacyFlow() {
	res := c.request("initialize", map[string]any{"protocolVersion": c.version, "capabilities": map[string]any{},
		"clientInfo": map[string]string{"name": "validate-test", "version": "1"}})
	if r, _ := res["result"].(map[string]any); r == nil || r["protocolVersion"] != c.version {
		c.t.Fatalf("initialize: %v", res)
	}
	body := []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.post(http.Header{}, body, 0)
	c.request("ping", nil)
	c.request("logging/setLevel", map[string]any{"level": "debug"})
	c.request("resources/subscribe", map[string]any{"uri": "test://watched-resource"})
	c.request("resources/unsubscribe", map[string]any{"uri": "test://watched-resource"})
	c.callAll()
}

// String is for failure messages.
func (c *client) String() string { return fmt.Sprintf("%s session %q", c.version, c.session) }
