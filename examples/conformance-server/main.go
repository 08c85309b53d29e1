// Command conformance-server serves the fixtures that the official MCP
// conformance suite (@modelcontextprotocol/conformance 0.1.16) expects of
// a server (its everything-server: tools test_*, resources test://…,
// prompts, logging, completion), over the streamhttp transport, both eras
// on /mcp. scripts/suites/50-conformance.sh runs the suite against it.
//
// The lifecycle (initialize and version negotiation, server/discover,
// ping, the per-request _meta checks) is the session layer's: one
// session.Server per era, picked by the Handler's factory. The fixtures
// themselves are untyped handlers, since the suite asks for exact shapes
// (and for server-to-client requests in legacy sessions).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"regexp"
	"syscall"
	"time"

	flag "github.com/spf13/pflag"

	mcp20250326 "github.com/mcpgen/mcpgen/generated/mcp20250326"
	mcp20250618 "github.com/mcpgen/mcpgen/generated/mcp20250618"
	mcp20251125 "github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp20260728 "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:3000", "address to listen on")
	sse := flag.Bool("sse", false, "answer every request with an SSE stream (default: JSON unless something precedes the response)")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	h := streamhttp.NewHandler(factory(log), streamhttp.Options{Logger: log, SSEResponses: *sse})
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	srv := streamhttp.NewHTTPServer(*addr, mux)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		c, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		_ = h.Close(c)
		_ = srv.Shutdown(c)
	}()
	fmt.Fprintf(os.Stderr, "conformance-server on http://%s/mcp\n", *addr)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		log.Error("stopped", "error", err)
		os.Exit(1)
	}
}

const (
	imageB64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	audioB64 = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

type obj = map[string]any

// capabilities are the fixture's, exactly (the session would otherwise
// derive them from the methods provided, as {}).
var capabilities = map[string]json.RawMessage{
	"tools":       json.RawMessage(`{"listChanged":true}`),
	"resources":   json.RawMessage(`{"subscribe":true,"listChanged":true}`),
	"prompts":     json.RawMessage(`{"listChanged":true}`),
	"logging":     json.RawMessage(`{}`),
	"completions": json.RawMessage(`{}`),
}

var serverInfo = session.Implementation{Name: "mcp-conformance-test-server", Version: "1.0.0"}

// provided are the methods register handles: the session keeps its own
// answers for the rest of the lifecycle (initialize, ping,
// server/discover).
var provided = []string{
	"tools/list", "tools/call", "resources/list", "resources/templates/list", "resources/read",
	"resources/subscribe", "resources/unsubscribe", "prompts/list", "prompts/get",
	"completion/complete",
}

// factory serves legacy sessions (2025-11-25, 2025-06-18, 2025-03-26) and
// modern requests (2026-07-28), each from its own session.Server.
func factory(log *slog.Logger) streamhttp.ConnFactory {
	opts := []session.ServerOption{session.WithLogger(log), session.WithConnOptions(jsonrpc2.WithLogger(log)),
		session.WithInterceptors(announceLevel)}
	for name, v := range capabilities {
		opts = append(opts, session.WithCapability(name, v))
	}
	legacy := session.NewServer(serverInfo, mcp20251125.Revision(), register,
		append(opts, session.WithLegacy(mcp20250618.Revision(), mcp20250326.Revision()))...)
	modern := session.NewServer(serverInfo, mcp20260728.Revision(), register, opts...)
	legacyConns, modernConns := streamhttp.AcceptConns(legacy, log), streamhttp.AcceptConns(modern, log)
	return func(t jsonrpc2.Transport, era streamhttp.Era) *jsonrpc2.Conn {
		if era == streamhttp.EraModern {
			return modernConns(t, era)
		}
		return legacyConns(t, era)
	}
}

// register installs the fixtures on a Conn of either era and returns the
// methods it serves (only those for a nil conn, as session.NewServer asks).
func register(conn *jsonrpc2.Conn) []string {
	if conn == nil {
		return provided
	}
	s := &server{conn: conn}
	conn.Handle("tools/list", func(context.Context, *jsonrpc2.Request) (any, error) { return obj{"tools": toolList()}, nil })
	conn.Handle("tools/call", s.callTool)
	conn.Handle("resources/list", func(context.Context, *jsonrpc2.Request) (any, error) { return obj{"resources": resources}, nil })
	conn.Handle("resources/templates/list", func(context.Context, *jsonrpc2.Request) (any, error) {
		return obj{"resourceTemplates": []any{obj{"uriTemplate": "test://template/{id}/data", "name": "template", "title": "Resource Template",
			"description": "A resource template with parameter substitution", "mimeType": "application/json"}}}, nil
	})
	conn.Handle("resources/read", readResource)
	conn.Handle("resources/subscribe", func(ctx context.Context, r *jsonrpc2.Request) (any, error) {
		s.log("Subscribed to resource: " + uriOf(r))
		return obj{}, nil
	})
	conn.Handle("resources/unsubscribe", func(ctx context.Context, r *jsonrpc2.Request) (any, error) {
		s.log("Unsubscribed from resource: " + uriOf(r))
		return obj{}, nil
	})
	conn.Handle("prompts/list", func(context.Context, *jsonrpc2.Request) (any, error) { return obj{"prompts": prompts}, nil })
	conn.Handle("prompts/get", getPrompt)
	conn.Handle("completion/complete", func(context.Context, *jsonrpc2.Request) (any, error) {
		return obj{"completion": obj{"values": []string{}, "total": 0, "hasMore": false}}, nil
	})
	return provided
}

// announceLevel tells the client the level it set with logging/setLevel, as
// the conformance suite expects, after the session has recorded it. The
// session answers logging/setLevel itself, so this is an interceptor.
var announceLevel = jsonrpc2.Interceptor{Request: func(ctx context.Context, r *jsonrpc2.Request, next jsonrpc2.Handler) (any, error) {
	res, err := next(ctx, r)
	if r.Method == "logging/setLevel" && err == nil {
		var p struct {
			Level string `json:"level"`
		}
		_ = json.Unmarshal(r.Params, &p)
		_ = session.Notify(ctx, "notifications/message", obj{"level": "info", "logger": "conformance-test-server", "data": "Log level set to: " + p.Level})
	}
	return res, err
}}

type server struct{ conn *jsonrpc2.Conn }

// log sends a notifications/message not tied to a request: on the
// session's GET stream if one is open, else nowhere.
func (s *server) log(msg string) {
	_ = s.conn.Notify(context.Background(), "notifications/message", obj{"level": "info", "logger": "conformance-test-server", "data": msg})
}

func uriOf(r *jsonrpc2.Request) string {
	var p struct {
		URI string `json:"uri"`
	}
	_ = json.Unmarshal(r.Params, &p)
	return p.URI
}

func emptySchema() obj { return obj{"type": "object", "properties": obj{}} }

func toolList() []any {
	t := func(name, desc string, schema obj) obj {
		return obj{"name": name, "description": desc, "inputSchema": schema}
	}
	str := func(prop, desc string) obj {
		return obj{"type": "object", "properties": obj{prop: obj{"type": "string", "description": desc}}, "required": []string{prop}}
	}
	return []any{
		t("test_simple_text", "Tests simple text content response", emptySchema()),
		t("test_image_content", "Tests image content response", emptySchema()),
		t("test_audio_content", "Tests audio content response", emptySchema()),
		t("test_embedded_resource", "Tests embedded resource content response", emptySchema()),
		t("test_multiple_content_types", "Tests response with multiple content types (text, image, resource)", emptySchema()),
		t("test_tool_with_logging", "Tests tool that emits log messages during execution", emptySchema()),
		t("test_tool_with_progress", "Tests tool that reports progress notifications", emptySchema()),
		t("test_error_handling", "Tests error response handling", emptySchema()),
		t("test_reconnection", "Tests SSE stream disconnection and client reconnection (SEP-1699)", emptySchema()),
		t("test_sampling", "Tests server-initiated sampling (LLM completion request)", str("prompt", "The prompt to send to the LLM")),
		t("test_elicitation", "Tests server-initiated elicitation (user input request)", str("message", "The message to show the user")),
		t("test_elicitation_sep1034_defaults", "Tests elicitation with default values per SEP-1034", emptySchema()),
		t("test_elicitation_sep1330_enums", "Tests elicitation with enum schema improvements per SEP-1330", emptySchema()),
		t("json_schema_2020_12_tool", "Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613)", obj{
			"$schema": "https://json-schema.org/draft/2020-12/schema",
			"type":    "object",
			"$defs": obj{"address": obj{"type": "object", "properties": obj{
				"street": obj{"type": "string"}, "city": obj{"type": "string"}}}},
			"properties": obj{
				"name":    obj{"type": "string"},
				"address": obj{"$ref": "#/$defs/address"},
			},
			"additionalProperties": false,
		}),
	}
}

func text(s string) obj { return obj{"type": "text", "text": s} }

func content(blocks ...any) obj { return obj{"content": blocks} }

func (s *server) callTool(ctx context.Context, r *jsonrpc2.Request) (any, error) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      struct {
			ProgressToken json.RawMessage `json:"progressToken"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(r.Params, &p); err != nil {
		return nil, jsonrpc2.ErrInvalidParams(err.Error())
	}
	var args map[string]any
	_ = json.Unmarshal(p.Arguments, &args)
	image := obj{"type": "image", "data": imageB64, "mimeType": "image/png"}
	switch p.Name {
	case "test_simple_text":
		return content(text("This is a simple text response for testing.")), nil
	case "test_image_content":
		return content(image), nil
	case "test_audio_content":
		return content(obj{"type": "audio", "data": audioB64, "mimeType": "audio/wav"}), nil
	case "test_embedded_resource":
		return content(obj{"type": "resource", "resource": obj{"uri": "test://embedded-resource", "mimeType": "text/plain", "text": "This is an embedded resource content."}}), nil
	case "test_multiple_content_types":
		return content(text("Multiple content types test:"), image,
			obj{"type": "resource", "resource": obj{"uri": "test://mixed-content-resource", "mimeType": "application/json", "text": `{"test":"data","value":123}`}}), nil
	case "test_tool_with_logging":
		for i, m := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
			if i > 0 {
				if err := pause(ctx, 50*time.Millisecond); err != nil {
					return nil, err
				}
			}
			if err := s.conn.Notify(ctx, "notifications/message", obj{"level": "info", "data": m}); err != nil {
				return nil, err
			}
		}
		return content(text("Tool with logging executed successfully")), nil
	case "test_tool_with_progress":
		tok := p.Meta.ProgressToken
		if len(tok) == 0 {
			tok = json.RawMessage("0")
		}
		for i, n := range []int{0, 50, 100} {
			if i > 0 {
				if err := pause(ctx, 50*time.Millisecond); err != nil {
					return nil, err
				}
			}
			if err := s.conn.Notify(ctx, "notifications/progress", obj{"progressToken": tok, "progress": n, "total": 100,
				"message": fmt.Sprintf("Completed step %d of 100", n)}); err != nil {
				return nil, err
			}
		}
		var t any
		_ = json.Unmarshal(tok, &t)
		return content(text(fmt.Sprint(t))), nil
	case "test_error_handling":
		r := content(text("This tool intentionally returns an error for testing"))
		r["isError"] = true
		return r, nil
	case "test_reconnection":
		// Resumability (Last-Event-ID) is out of scope: the stream stays open.
		return content(text("Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.")), nil
	case "test_sampling":
		prompt, _ := args["prompt"].(string)
		var res struct {
			Content struct {
				Text string `json:"text"`
			} `json:"content"`
		}
		err := s.conn.Call(ctx, "sampling/createMessage", obj{"messages": []any{obj{"role": "user", "content": text(prompt)}}, "maxTokens": 100}, &res)
		if err != nil {
			return content(text("Sampling not supported or error: " + err.Error())), nil
		}
		if res.Content.Text == "" {
			res.Content.Text = "No response"
		}
		return content(text("LLM response: " + res.Content.Text)), nil
	case "test_elicitation":
		msg, _ := args["message"].(string)
		return s.elicit(ctx, "User response: ", obj{"message": msg, "requestedSchema": obj{"type": "object",
			"properties": obj{"response": obj{"type": "string", "description": "User's response"}}, "required": []string{"response"}}})
	case "test_elicitation_sep1034_defaults":
		return s.elicit(ctx, "Elicitation completed: ", obj{"message": "Please review and update the form fields with defaults", "requestedSchema": obj{
			"type": "object", "required": []string{}, "properties": obj{
				"name":     obj{"type": "string", "description": "User name", "default": "John Doe"},
				"age":      obj{"type": "integer", "description": "User age", "default": 30},
				"score":    obj{"type": "number", "description": "User score", "default": 95.5},
				"status":   obj{"type": "string", "description": "User status", "enum": []string{"active", "inactive", "pending"}, "default": "active"},
				"verified": obj{"type": "boolean", "description": "Verification status", "default": true},
			}}})
	case "test_elicitation_sep1330_enums":
		titled := func(prefix string) []any {
			return []any{obj{"const": "value1", "title": "First " + prefix}, obj{"const": "value2", "title": "Second " + prefix}, obj{"const": "value3", "title": "Third " + prefix}}
		}
		return s.elicit(ctx, "Elicitation completed: ", obj{"message": "Please select options from the enum fields", "requestedSchema": obj{
			"type": "object", "required": []string{}, "properties": obj{
				"untitledSingle": obj{"type": "string", "description": "Select one option", "enum": []string{"option1", "option2", "option3"}},
				"titledSingle":   obj{"type": "string", "description": "Select one option with titles", "oneOf": titled("Option")},
				"legacyEnum": obj{"type": "string", "description": "Select one option (legacy)", "enum": []string{"opt1", "opt2", "opt3"},
					"enumNames": []string{"Option One", "Option Two", "Option Three"}},
				"untitledMulti": obj{"type": "array", "description": "Select multiple options", "minItems": 1, "maxItems": 3,
					"items": obj{"type": "string", "enum": []string{"option1", "option2", "option3"}}},
				"titledMulti": obj{"type": "array", "description": "Select multiple options with titles", "minItems": 1, "maxItems": 3,
					"items": obj{"anyOf": titled("Choice")}},
			}}})
	case "json_schema_2020_12_tool":
		return content(text("JSON Schema 2020-12 tool called with: " + string(orEmpty(p.Arguments)))), nil
	}
	return nil, jsonrpc2.ErrInvalidParams("unknown tool " + p.Name)
}

func orEmpty(b json.RawMessage) json.RawMessage {
	if len(b) == 0 {
		return json.RawMessage("{}")
	}
	return b
}

func (s *server) elicit(ctx context.Context, prefix string, params obj) (any, error) {
	var res struct {
		Action  string          `json:"action"`
		Content json.RawMessage `json:"content"`
	}
	if err := s.conn.Call(ctx, "elicitation/create", params, &res); err != nil {
		return content(text("Elicitation not supported or error: " + err.Error())), nil
	}
	return content(text(fmt.Sprintf("%saction=%s, content=%s", prefix, res.Action, orEmpty(res.Content)))), nil
}

func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

var resources = []any{
	obj{"uri": "test://static-text", "name": "static-text", "title": "Static Text Resource", "description": "A static text resource for testing", "mimeType": "text/plain"},
	obj{"uri": "test://static-binary", "name": "static-binary", "title": "Static Binary Resource", "description": "A static binary resource (image) for testing", "mimeType": "image/png"},
	obj{"uri": "test://watched-resource", "name": "watched-resource", "title": "Watched Resource", "description": "A resource that auto-updates every 3 seconds", "mimeType": "text/plain"},
}

var templateURI = regexp.MustCompile(`^test://template/([^/]+)/data$`)

func readResource(ctx context.Context, r *jsonrpc2.Request) (any, error) {
	uri := uriOf(r)
	one := func(c obj) obj { return obj{"contents": []any{c}} }
	switch uri {
	case "test://static-text":
		return one(obj{"uri": uri, "mimeType": "text/plain", "text": "This is the content of the static text resource."}), nil
	case "test://static-binary":
		return one(obj{"uri": uri, "mimeType": "image/png", "blob": imageB64}), nil
	case "test://watched-resource":
		return one(obj{"uri": uri, "mimeType": "text/plain", "text": "Watched resource content"}), nil
	}
	if m := templateURI.FindStringSubmatch(uri); m != nil {
		data, _ := json.Marshal(obj{"id": m[1], "templateTest": true, "data": "Data for ID: " + m[1]})
		return one(obj{"uri": uri, "mimeType": "application/json", "text": string(data)}), nil
	}
	return nil, jsonrpc2.NewError(-32002, "Resource not found: "+uri)
}

var prompts = []any{
	obj{"name": "test_simple_prompt", "title": "Simple Test Prompt", "description": "A simple prompt without arguments"},
	obj{"name": "test_prompt_with_arguments", "title": "Prompt With Arguments", "description": "A prompt with required arguments", "arguments": []any{
		obj{"name": "arg1", "description": "First test argument", "required": true},
		obj{"name": "arg2", "description": "Second test argument", "required": true}}},
	obj{"name": "test_prompt_with_embedded_resource", "title": "Prompt With Embedded Resource", "description": "A prompt that includes an embedded resource", "arguments": []any{
		obj{"name": "resourceUri", "description": "URI of the resource to embed", "required": true}}},
	obj{"name": "test_prompt_with_image", "title": "Prompt With Image", "description": "A prompt that includes image content"},
}

func getPrompt(ctx context.Context, r *jsonrpc2.Request) (any, error) {
	var p struct {
		Name      string            `json:"name"`
		Arguments map[string]string `json:"arguments"`
	}
	if err := json.Unmarshal(r.Params, &p); err != nil {
		return nil, jsonrpc2.ErrInvalidParams(err.Error())
	}
	msg := func(c obj) obj { return obj{"role": "user", "content": c} }
	switch p.Name {
	case "test_simple_prompt":
		return obj{"messages": []any{msg(text("This is a simple prompt for testing."))}}, nil
	case "test_prompt_with_arguments":
		return obj{"messages": []any{msg(text(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", p.Arguments["arg1"], p.Arguments["arg2"])))}}, nil
	case "test_prompt_with_embedded_resource":
		return obj{"messages": []any{
			msg(obj{"type": "resource", "resource": obj{"uri": p.Arguments["resourceUri"], "mimeType": "text/plain", "text": "Embedded resource content for testing."}}),
			msg(text("Please process the embedded resource above.")),
		}}, nil
	case "test_prompt_with_image":
		return obj{"messages": []any{
			msg(obj{"type": "image", "data": imageB64, "mimeType": "image/png"}),
			msg(text("Please analyze the image above.")),
		}}, nil
	}
	return nil, jsonrpc2.ErrInvalidParams("unknown prompt " + p.Name)
}
