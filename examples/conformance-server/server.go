package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/mcpgen/mcpgen/examples/conformance-server/tools"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
	"github.com/mcpgen/mcpgen/runtime/tasks"
)

const (
	imageB64 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="
	audioB64 = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA="
)

// server implements the generated handler interfaces of 2026-07-28; the
// session maps legacy clients' requests and results onto them.
type server struct {
	tools *tools.Handler  // the generated tools of tools.json
	cat   *catalog        // the rest of the catalogue
	all   []mcp.Tool      // every tool listed, for paramHeaders
	srv   *session.Server // for NotifyListChanged
	tasks *tasks.Manager  // the tasks of both eras (tasks.go), closed on shutdown
}

func ptr[T any](v T) *T { return &v }

func text(s string) mcp.ContentBlock { return &mcp.TextContent{Text: s} }

func image() mcp.ContentBlock { return &mcp.ImageContent{Data: imageB64, MIMEType: "image/png"} }

func toolResult(blocks ...mcp.ContentBlock) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: blocks}
}

// allTools is every tool the fixture lists.
func (s *server) allTools() ([]mcp.Tool, error) {
	res, err := s.ListTools(context.Background(), &mcp.ListToolsRequestParams{})
	if err != nil {
		return nil, err
	}
	return res.Tools, nil
}

// paramHeaders gives streamhttp the x-mcp-header annotations of a tool,
// from its inputSchema, for the Mcp-Param-* validation.
func (s *server) paramHeaders(tool string) []streamhttp.ParamHeader {
	for _, t := range s.all {
		if t.Name == tool {
			schema, err := json.Marshal(t.InputSchema)
			if err != nil {
				return nil
			}
			ph, _ := streamhttp.ParamHeadersFromSchema(schema)
			return ph
		}
	}
	return nil
}

// elicitAnswer is what the client answers to elicitation/create.
type elicitAnswer struct {
	Action  string          `json:"action"`
	Content json.RawMessage `json:"content"`
}

// samplingAnswer is the part of a sampling/createMessage answer used here.
type samplingAnswer struct {
	Content struct {
		Text string `json:"text"`
	} `json:"content"`
}

// rootsAnswer is the answer to roots/list.
type rootsAnswer struct {
	Roots []struct {
		URI string `json:"uri"`
	} `json:"roots"`
}

func elicitParams(message, schema string) json.RawMessage {
	b, _ := json.Marshal(map[string]json.RawMessage{"message": mustJSON(message), "requestedSchema": json.RawMessage(schema)})
	return b
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

func samplingParams(prompt string, maxTokens int) json.RawMessage {
	return mustJSON(map[string]any{"messages": []any{map[string]any{"role": "user", "content": map[string]string{"type": "text", "text": prompt}}}, "maxTokens": maxTokens})
}

// ListTools lists the generated tools (tools.json) and the one tool the
// generator cannot express (a 2020-12 schema with composition,
// conditionals and $anchor, which the suite checks is listed as written).
func (s *server) ListTools(ctx context.Context, p *mcp.ListToolsRequestParams) (*mcp.ListToolsResult, error) {
	res, err := s.tools.ListTools(ctx, p)
	if err != nil {
		return nil, err
	}
	res.Tools = append(res.Tools, s.cat.tools...)
	return res, nil
}

// CallTool runs the 2020-12 schema tool itself and hands every other call
// to the generated handler, which validates the arguments and calls the
// typed methods below.
func (s *server) CallTool(ctx context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	if p.Name == toolJSONSchema2020 {
		args, _ := json.Marshal(p.Arguments)
		if len(p.Arguments) == 0 {
			args = []byte("{}")
		}
		return toolResult(text("JSON Schema 2020-12 tool called with: " + string(args))), nil
	}
	return s.tools.CallTool(ctx, p)
}

// TestSimpleText implements the tool "test_simple_text": tests simple text content response.
func (s *server) TestSimpleText(ctx context.Context, _ *tools.TestSimpleTextArgs) (*mcp.CallToolResult, error) {
	return toolResult(text("This is a simple text response for testing.")), nil
}

// TestImageContent implements the tool "test_image_content": tests image content response.
func (s *server) TestImageContent(ctx context.Context, _ *tools.TestImageContentArgs) (*mcp.CallToolResult, error) {
	return toolResult(image()), nil
}

// TestAudioContent implements the tool "test_audio_content": tests audio content response.
func (s *server) TestAudioContent(ctx context.Context, _ *tools.TestAudioContentArgs) (*mcp.CallToolResult, error) {
	return toolResult(&mcp.AudioContent{Data: audioB64, MIMEType: "audio/wav"}), nil
}

// TestEmbeddedResource implements the tool "test_embedded_resource": tests embedded resource content response.
func (s *server) TestEmbeddedResource(ctx context.Context, _ *tools.TestEmbeddedResourceArgs) (*mcp.CallToolResult, error) {
	return toolResult(&mcp.EmbeddedResource{Resource: &mcp.TextResourceContents{URI: "test://embedded-resource", MIMEType: ptr("text/plain"), Text: "This is an embedded resource content."}}), nil
}

// TestMultipleContentTypes implements the tool "test_multiple_content_types": tests response with multiple content types (text, image, resource).
func (s *server) TestMultipleContentTypes(ctx context.Context, _ *tools.TestMultipleContentTypesArgs) (*mcp.CallToolResult, error) {
	return toolResult(text("Multiple content types test:"), image(),
		&mcp.EmbeddedResource{Resource: &mcp.TextResourceContents{URI: "test://mixed-content-resource", MIMEType: ptr("application/json"), Text: `{"test":"data","value":123}`}}), nil
}

// TestToolWithLogging implements the tool "test_tool_with_logging": tests tool that emits log messages during execution.
func (s *server) TestToolWithLogging(ctx context.Context, _ *tools.TestToolWithLoggingArgs) (*mcp.CallToolResult, error) {
	for i, m := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		if i > 0 {
			if err := pause(ctx, 50*time.Millisecond); err != nil {
				return nil, err
			}
		}
		if err := logInfo(ctx, m); err != nil {
			return nil, err
		}
	}
	return toolResult(text("Tool with logging executed successfully")), nil
}

// TestToolWithProgress implements the tool "test_tool_with_progress": tests tool that reports progress notifications.
func (s *server) TestToolWithProgress(ctx context.Context, _ *tools.TestToolWithProgressArgs) (*mcp.CallToolResult, error) {
	for i, n := range []float64{0, 50, 100} {
		if i > 0 {
			if err := pause(ctx, 50*time.Millisecond); err != nil {
				return nil, err
			}
		}
		if err := session.Progress(ctx, n, 100, fmt.Sprintf("Completed step %v of 100", n)); err != nil {
			return nil, err
		}
	}
	tok, _ := session.ProgressToken(ctx)
	b, _ := json.Marshal(tok)
	var v any
	_ = json.Unmarshal(b, &v)
	if v == nil {
		v = 0
	}
	return toolResult(text(fmt.Sprint(v))), nil
}

// TestErrorHandling implements the tool "test_error_handling": tests error response handling.
func (s *server) TestErrorHandling(ctx context.Context, _ *tools.TestErrorHandlingArgs) (*mcp.CallToolResult, error) {
	r := toolResult(text("This tool intentionally returns an error for testing"))
	r.IsError = ptr(true)
	return r, nil
}

// TestReconnection implements the tool "test_reconnection": tests SSE stream disconnection and client reconnection (SEP-1699).
// In a legacy session it ends its response stream mid-call with a retry
// hint (streamhttp.CloseSSEStream), so the answer reaches the client only
// on its resumption, a GET with Last-Event-ID (the suite's
// server-sse-disconnect-resume); a modern request, which has no
// resumption, gets it on its stream.
func (s *server) TestReconnection(ctx context.Context, _ *tools.TestReconnectionArgs) (*mcp.CallToolResult, error) {
	_ = streamhttp.CloseSSEStream(ctx, 100*time.Millisecond)
	return toolResult(text("Reconnection test completed successfully. If you received this, the client properly reconnected after stream closure.")), nil
}

// TestSampling implements the tool "test_sampling": tests server-initiated sampling (LLM completion request).
func (s *server) TestSampling(ctx context.Context, a *tools.TestSamplingArgs) (*mcp.CallToolResult, error) {
	var res samplingAnswer
	if err := session.Input(ctx, "sampling/createMessage", samplingParams(a.Prompt, 100), &res); err != nil {
		return notSupported(ctx, "Sampling", err)
	}
	if res.Content.Text == "" {
		res.Content.Text = "No response"
	}
	return toolResult(text("LLM response: " + res.Content.Text)), nil
}

// TestElicitation implements the tool "test_elicitation": tests server-initiated elicitation (user input request).
func (s *server) TestElicitation(ctx context.Context, a *tools.TestElicitationArgs) (*mcp.CallToolResult, error) {
	return s.elicit(ctx, "User response: ", elicitParams(a.Message, `{"type":"object","properties":{"response":{"type":"string","description":"User's response"}},"required":["response"]}`))
}

// TestElicitationSep1034Defaults implements the tool "test_elicitation_sep1034_defaults": tests elicitation with default values per SEP-1034.
func (s *server) TestElicitationSep1034Defaults(ctx context.Context, _ *tools.TestElicitationSep1034DefaultsArgs) (*mcp.CallToolResult, error) {
	return s.elicit(ctx, "Elicitation completed: ", elicitParams("Please review and update the form fields with defaults", `{"type":"object","required":[],"properties":{
		"name":{"type":"string","description":"User name","default":"John Doe"},
		"age":{"type":"integer","description":"User age","default":30},
		"score":{"type":"number","description":"User score","default":95.5},
		"status":{"type":"string","description":"User status","enum":["active","inactive","pending"],"default":"active"},
		"verified":{"type":"boolean","description":"Verification status","default":true}}}`))
}

// TestElicitationSep1330Enums implements the tool "test_elicitation_sep1330_enums": tests elicitation with enum schema improvements per SEP-1330.
func (s *server) TestElicitationSep1330Enums(ctx context.Context, _ *tools.TestElicitationSep1330EnumsArgs) (*mcp.CallToolResult, error) {
	return s.elicit(ctx, "Elicitation completed: ", elicitParams("Please select options from the enum fields", `{"type":"object","required":[],"properties":{
		"untitledSingle":{"type":"string","description":"Select one option","enum":["option1","option2","option3"]},
		"titledSingle":{"type":"string","description":"Select one option with titles","oneOf":[{"const":"value1","title":"First Option"},{"const":"value2","title":"Second Option"},{"const":"value3","title":"Third Option"}]},
		"legacyEnum":{"type":"string","description":"Select one option (legacy)","enum":["opt1","opt2","opt3"],"enumNames":["Option One","Option Two","Option Three"]},
		"untitledMulti":{"type":"array","description":"Select multiple options","minItems":1,"maxItems":3,"items":{"type":"string","enum":["option1","option2","option3"]}},
		"titledMulti":{"type":"array","description":"Select multiple options with titles","minItems":1,"maxItems":3,"items":{"anyOf":[{"const":"value1","title":"First Choice"},{"const":"value2","title":"Second Choice"},{"const":"value3","title":"Third Choice"}]}}}}`))
}

// TestCustomHeaders implements the tool "test_custom_headers": echoes a region that the client mirrors into the Mcp-Param-Region header (SEP-2243).
func (s *server) TestCustomHeaders(ctx context.Context, a *tools.TestCustomHeadersArgs) (*mcp.CallToolResult, error) {
	return toolResult(text("region: " + a.Region)), nil
}

// TestMissingCapability implements the tool "test_missing_capability": needs the client's sampling capability: without it the call fails with -32021.
func (s *server) TestMissingCapability(ctx context.Context, _ *tools.TestMissingCapabilityArgs) (*mcp.CallToolResult, error) {
	// Input refuses with MissingRequiredClientCapabilityError (-32021)
	// when the client did not declare sampling.
	var res samplingAnswer
	if err := session.Input(ctx, "sampling/createMessage", samplingParams("Say hello", 20), &res); err != nil {
		return nil, err
	}
	return toolResult(text("LLM response: " + res.Content.Text)), nil
}

// TestStreamingElicitation implements the tool "test_streaming_elicitation": asks the client for input through an InputRequiredResult on its response stream.
func (s *server) TestStreamingElicitation(ctx context.Context, _ *tools.TestStreamingElicitationArgs) (*mcp.CallToolResult, error) {
	var res elicitAnswer
	if err := session.InputAs(ctx, "confirm", "elicitation/create", elicitParams("Please confirm", `{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`), &res); err != nil {
		return nil, err
	}
	return toolResult(text("Elicitation completed: action=" + res.Action)), nil
}

// TestLoggingTool implements the tool "test_logging_tool": logs at info level, which reaches the client only if its request set a logLevel.
func (s *server) TestLoggingTool(ctx context.Context, _ *tools.TestLoggingToolArgs) (*mcp.CallToolResult, error) {
	for _, m := range []string{"logging tool: first", "logging tool: second"} {
		if err := session.Log(ctx, "info", "conformance-test-server", m); err != nil {
			return nil, err
		}
	}
	return toolResult(text("Logging tool done")), nil
}

// TestTriggerToolChange implements the tool "test_trigger_tool_change": announces that the tool list changed (notifications/tools/list_changed).
func (s *server) TestTriggerToolChange(ctx context.Context, _ *tools.TestTriggerToolChangeArgs) (*mcp.CallToolResult, error) {
	_ = s.srv.NotifyListChanged("tools")
	return toolResult(text("Tool list change announced")), nil
}

// TestTriggerPromptChange implements the tool "test_trigger_prompt_change": announces that the prompt list changed (notifications/prompts/list_changed).
func (s *server) TestTriggerPromptChange(ctx context.Context, _ *tools.TestTriggerPromptChangeArgs) (*mcp.CallToolResult, error) {
	_ = s.srv.NotifyListChanged("prompts")
	return toolResult(text("Prompt list change announced")), nil
}

// TestInputRequiredResultElicitation implements the tool "test_input_required_result_elicitation" (MRTR: asks for the user's name by elicitation).
func (s *server) TestInputRequiredResultElicitation(ctx context.Context, _ *tools.TestInputRequiredResultElicitationArgs) (*mcp.CallToolResult, error) {
	return s.mrtrTool(ctx, tools.ToolTestInputRequiredResultElicitation)
}

// TestInputRequiredResultSampling implements the tool "test_input_required_result_sampling" (MRTR: asks for a sampling completion).
func (s *server) TestInputRequiredResultSampling(ctx context.Context, _ *tools.TestInputRequiredResultSamplingArgs) (*mcp.CallToolResult, error) {
	return s.mrtrTool(ctx, tools.ToolTestInputRequiredResultSampling)
}

// TestInputRequiredResultListRoots implements the tool "test_input_required_result_list_roots" (MRTR: asks for the client's roots).
func (s *server) TestInputRequiredResultListRoots(ctx context.Context, _ *tools.TestInputRequiredResultListRootsArgs) (*mcp.CallToolResult, error) {
	return s.mrtrTool(ctx, tools.ToolTestInputRequiredResultListRoots)
}

// TestInputRequiredResultRequestState implements the tool "test_input_required_result_request_state" (MRTR: asks for a confirmation and checks its requestState).
func (s *server) TestInputRequiredResultRequestState(ctx context.Context, _ *tools.TestInputRequiredResultRequestStateArgs) (*mcp.CallToolResult, error) {
	return s.mrtrTool(ctx, tools.ToolTestInputRequiredResultRequestState)
}

// TestInputRequiredResultMultipleInputs implements the tool "test_input_required_result_multiple_inputs" (MRTR: asks for elicitation, sampling and roots at once).
func (s *server) TestInputRequiredResultMultipleInputs(ctx context.Context, _ *tools.TestInputRequiredResultMultipleInputsArgs) (*mcp.CallToolResult, error) {
	return s.mrtrTool(ctx, tools.ToolTestInputRequiredResultMultipleInputs)
}

// TestInputRequiredResultMultiRound implements the tool "test_input_required_result_multi_round" (MRTR: asks in two rounds).
func (s *server) TestInputRequiredResultMultiRound(ctx context.Context, _ *tools.TestInputRequiredResultMultiRoundArgs) (*mcp.CallToolResult, error) {
	return s.mrtrTool(ctx, tools.ToolTestInputRequiredResultMultiRound)
}

// TestInputRequiredResultTamperedState implements the tool "test_input_required_result_tampered_state" (MRTR: signed requestState; a tampered one is refused).
func (s *server) TestInputRequiredResultTamperedState(ctx context.Context, _ *tools.TestInputRequiredResultTamperedStateArgs) (*mcp.CallToolResult, error) {
	return s.mrtrTool(ctx, tools.ToolTestInputRequiredResultTamperedState)
}

// TestInputRequiredResultCapabilities implements the tool "test_input_required_result_capabilities" (MRTR: asks only for what the client's capabilities allow).
func (s *server) TestInputRequiredResultCapabilities(ctx context.Context, _ *tools.TestInputRequiredResultCapabilitiesArgs) (*mcp.CallToolResult, error) {
	return s.mrtrTool(ctx, tools.ToolTestInputRequiredResultCapabilities)
}

// notSupported answers a failed server-to-client request the way the
// suite's legacy scenarios expect (a result, not an error), except that an
// input request (MRTR) or a missing capability goes to the session.
func notSupported(ctx context.Context, what string, err error) (*mcp.CallToolResult, error) {
	var rpc *jsonrpc2.Error
	if errors.Is(err, session.ErrInputRequired) || (errors.As(err, &rpc) && rpc.Code == session.CodeMissingRequiredClientCapability) || ctx.Err() != nil {
		return nil, err
	}
	return toolResult(text(what + " not supported or error: " + err.Error())), nil
}

func (s *server) elicit(ctx context.Context, prefix string, params json.RawMessage) (*mcp.CallToolResult, error) {
	var res elicitAnswer
	if err := session.Input(ctx, "elicitation/create", params, &res); err != nil {
		return notSupported(ctx, "Elicitation", err)
	}
	content := res.Content
	if len(content) == 0 {
		content = json.RawMessage("{}")
	}
	return toolResult(text(fmt.Sprintf("%saction=%s, content=%s", prefix, res.Action, content))), nil
}

// logInfo logs at info: to a modern client only if its request asked for
// that level (session.Log), to a legacy client always, as the legacy
// suite expects without logging/setLevel first.
func logInfo(ctx context.Context, msg string) error {
	if session.IsModern(ctx) {
		return session.Log(ctx, "info", "", msg)
	}
	return session.Notify(ctx, "notifications/message", mcp.LoggingMessageNotificationParams{Level: mcp.LoggingLevelInfo, Data: mustJSON(msg)})
}

// mrtrTool runs the input-required-result (MRTR, SEP-2322) tools. Each asks
// with session.InputAs under the key the suite names; the session answers
// ErrInputRequired with an InputRequiredResult carrying a signed
// requestState, and a retry gets the answers.
func (s *server) mrtrTool(ctx context.Context, name string) (*mcp.CallToolResult, error) {
	nameSchema := `{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`
	okSchema := `{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`
	var r *mcp.CallToolResult
	var err error
	switch name {
	case "test_input_required_result_elicitation":
		var a elicitAnswer
		if err = session.InputAs(ctx, "user_name", "elicitation/create", elicitParams("What is your name?", nameSchema), &a); err == nil {
			var c struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(a.Content, &c)
			r = toolResult(text("Hello, " + c.Name + "!"))
		}
	case "test_input_required_result_sampling":
		var a samplingAnswer
		if err = session.InputAs(ctx, "capital", "sampling/createMessage", samplingParams("What is the capital of France?", 100), &a); err == nil {
			r = toolResult(text("The model said: " + a.Content.Text))
		}
	case "test_input_required_result_list_roots":
		var a rootsAnswer
		if err = session.InputAs(ctx, "client_roots", "roots/list", json.RawMessage(`{}`), &a); err == nil {
			uris := make([]string, len(a.Roots))
			for i, root := range a.Roots {
				uris[i] = root.URI
			}
			r = toolResult(text(fmt.Sprintf("Client roots: %v", uris)))
		}
	case "test_input_required_result_request_state", "test_input_required_result_tampered_state":
		var a elicitAnswer
		if err = session.InputAs(ctx, "confirm", "elicitation/create", elicitParams("Please confirm", okSchema), &a); err == nil {
			state := "no requestState"
			if session.HasRequestState(ctx) {
				state = "state-ok"
			}
			r = toolResult(text("Confirmed (" + state + "): action=" + a.Action))
		}
	case "test_input_required_result_multiple_inputs":
		var e elicitAnswer
		var sa samplingAnswer
		var ro rootsAnswer
		err = errors.Join(
			session.InputAs(ctx, "user_name", "elicitation/create", elicitParams("What is your name?", nameSchema), &e),
			session.InputAs(ctx, "greeting", "sampling/createMessage", samplingParams("Generate a greeting", 50), &sa),
			session.InputAs(ctx, "client_roots", "roots/list", json.RawMessage(`{}`), &ro))
		if err == nil {
			r = toolResult(text(fmt.Sprintf("All inputs received: %s, %q, %d roots", e.Content, sa.Content.Text, len(ro.Roots))))
		}
	case "test_input_required_result_multi_round":
		var a1, a2 elicitAnswer
		if err = session.InputAs(ctx, "step1", "elicitation/create", elicitParams("Step 1: What is your name?", nameSchema), &a1); err == nil {
			err = session.InputAs(ctx, "step2", "elicitation/create", elicitParams("Step 2: What is your favorite color?",
				`{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}`), &a2)
		}
		if err == nil {
			r = toolResult(text(fmt.Sprintf("Both rounds answered: %s, %s", a1.Content, a2.Content)))
		}
	case "test_input_required_result_capabilities":
		var caps map[string]json.RawMessage
		_ = json.Unmarshal(session.ClientCapabilities(ctx), &caps)
		var errs []error
		asked := 0
		if _, ok := caps["sampling"]; ok {
			var a samplingAnswer
			errs = append(errs, session.InputAs(ctx, "summary", "sampling/createMessage", samplingParams("Summarize the request", 50), &a))
			asked++
		}
		if _, ok := caps["elicitation"]; ok {
			var a elicitAnswer
			errs = append(errs, session.InputAs(ctx, "user_name", "elicitation/create", elicitParams("What is your name?", nameSchema), &a))
			asked++
		}
		if err = errors.Join(errs...); err == nil {
			r = toolResult(text(fmt.Sprintf("%d inputs received, each for a declared capability", asked)))
		}
	default:
		return nil, jsonrpc2.NewInvalidParamsError("unknown tool " + name)
	}
	return r, err
}

// subscribe answers legacy resources/subscribe and /unsubscribe: the
// fixture's resources never change, so there is nothing to record.
func (s *server) subscribe() jsonrpc2.Handler {
	return func(ctx context.Context, r *jsonrpc2.Request) (any, error) {
		var p struct {
			URI string `json:"uri"`
		}
		if err := json.Unmarshal(r.Params, &p); err != nil || p.URI == "" {
			return nil, jsonrpc2.NewInvalidParamsError(r.Method + ": uri is required")
		}
		return json.RawMessage(`{}`), nil
	}
}

// announceLevel tells a legacy client the level it set with
// logging/setLevel, as the legacy suite expects, after the session has
// recorded it. The session answers logging/setLevel itself, so this is an
// interceptor.
var announceLevel = jsonrpc2.Interceptor{Request: func(ctx context.Context, r *jsonrpc2.Request, next jsonrpc2.Handler) (any, error) {
	res, err := next(ctx, r)
	if r.Method == session.MethodSetLevel && err == nil {
		var p struct {
			Level string `json:"level"`
		}
		_ = json.Unmarshal(r.Params, &p)
		_ = session.Notify(ctx, "notifications/message", mcp.LoggingMessageNotificationParams{Level: mcp.LoggingLevelInfo, Logger: ptr("conformance-test-server"), Data: mustJSON("Log level set to: " + p.Level)})
	}
	return res, err
}}

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

// ListPrompts lists the catalogue's prompts.
func (s *server) ListPrompts(context.Context, *mcp.ListPromptsRequestParams) (*mcp.ListPromptsResult, error) {
	return &mcp.ListPromptsResult{Prompts: s.cat.prompts, CacheScope: "public"}, nil
}

// GetPrompt renders the catalogue's prompts.
func (s *server) GetPrompt(ctx context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
	msg := func(c mcp.ContentBlock) mcp.PromptMessage { return mcp.PromptMessage{Role: mcp.RoleUser, Content: c} }
	switch p.Name {
	case "test_simple_prompt":
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{msg(text("This is a simple prompt for testing."))}}, nil
	case "test_prompt_with_arguments":
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{msg(text(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", p.Arguments["arg1"], p.Arguments["arg2"])))}}, nil
	case "test_prompt_with_embedded_resource":
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{
			msg(&mcp.EmbeddedResource{Resource: &mcp.TextResourceContents{URI: p.Arguments["resourceUri"], MIMEType: ptr("text/plain"), Text: "Embedded resource content for testing."}}),
			msg(text("Please process the embedded resource above.")),
		}}, nil
	case "test_prompt_with_image":
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{msg(image()), msg(text("Please analyze the image above."))}}, nil
	case "test_input_required_result_prompt":
		var a elicitAnswer
		if err := session.InputAs(ctx, "user_context", "elicitation/create", elicitParams("What context should the prompt use?",
			`{"type":"object","properties":{"context":{"type":"string"}},"required":["context"]}`), &a); err != nil {
			return nil, err
		}
		var c struct {
			Context string `json:"context"`
		}
		_ = json.Unmarshal(a.Content, &c)
		return &mcp.GetPromptResult{Messages: []mcp.PromptMessage{msg(text("Use this context: " + c.Context))}}, nil
	}
	return nil, jsonrpc2.NewInvalidParamsError("unknown prompt " + p.Name)
}

// ListResources lists the catalogue's resources.
func (s *server) ListResources(context.Context, *mcp.ListResourcesRequestParams) (*mcp.ListResourcesResult, error) {
	return &mcp.ListResourcesResult{Resources: s.cat.resources, CacheScope: "public"}, nil
}

// ListResourceTemplates lists the catalogue's templates.
func (s *server) ListResourceTemplates(context.Context, *mcp.ListResourceTemplatesRequestParams) (*mcp.ListResourceTemplatesResult, error) {
	return &mcp.ListResourceTemplatesResult{ResourceTemplates: s.cat.templates, CacheScope: "public"}, nil
}

var templateURI = regexp.MustCompile(`^test://template/([^/]+)/data$`)

// ReadResource reads the catalogue's resources. Its results leave the
// cache hints to the session's defaults (private, ttl 0).
func (s *server) ReadResource(ctx context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
	uri := p.URI
	one := func(c mcp.ReadResourceResultContentsItem) *mcp.ReadResourceResult {
		return &mcp.ReadResourceResult{Contents: []mcp.ReadResourceResultContentsItem{c}}
	}
	switch uri {
	case "test://static-text":
		return one(&mcp.TextResourceContents{URI: uri, MIMEType: ptr("text/plain"), Text: "This is the content of the static text resource."}), nil
	case "test://static-binary":
		return one(&mcp.BlobResourceContents{URI: uri, MIMEType: ptr("image/png"), Blob: imageB64}), nil
	case "test://watched-resource":
		return one(&mcp.TextResourceContents{URI: uri, MIMEType: ptr("text/plain"), Text: "Watched resource content"}), nil
	}
	if m := templateURI.FindStringSubmatch(uri); m != nil {
		data, _ := json.Marshal(map[string]any{"id": m[1], "templateTest": true, "data": "Data for ID: " + m[1]})
		return one(&mcp.TextResourceContents{URI: uri, MIMEType: ptr("application/json"), Text: string(data)}), nil
	}
	// 2026-07-28 answers an unknown resource with -32602 and the uri in
	// data (SEP-2164); earlier revisions used -32002.
	code := jsonrpc2.CodeInvalidParams
	if !session.IsModern(ctx) {
		code = -32002
	}
	return nil, &jsonrpc2.Error{Code: code, Message: "Resource not found: " + uri, Data: mustJSON(map[string]string{"uri": uri})}
}

// Complete answers completion/complete with no suggestions.
func (s *server) Complete(context.Context, *mcp.CompleteRequestParams) (*mcp.CompleteResult, error) {
	return &mcp.CompleteResult{Completion: mcp.CompleteResultCompletion{Values: []string{}, Total: ptr(int64(0)), HasMore: ptr(false)}}, nil
}
