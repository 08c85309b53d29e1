// Command conformance-client is the client the official MCP conformance
// suite (@modelcontextprotocol/conformance) drives in its client scenarios,
// built the way the README teaches: streamhttp's client transport, the
// generated Connect of the newest bindings (which also speak the legacy
// revisions), the generated callers and result types, and handler methods
// for the server's requests (legacy) and input requests (MRTR, 2026-07-28).
//
// The suite runs it as `conformance-client URL` with the scenario in
// MCP_CONFORMANCE_SCENARIO, the protocol version to speak in
// MCP_CONFORMANCE_PROTOCOL_VERSION (the client follows it: a legacy version
// is negotiated with initialize, the modern one is sent per request), and
// scenario data in MCP_CONFORMANCE_CONTEXT (JSON; the tool calls of
// http-custom-headers). Without a version it detects the server's era.
//
// What it does: list the tools (keeping each tool's schema as sent: the
// generated Tool keeps every member, $ref and 2020-12 keywords included,
// and nothing is dereferenced), drop tools whose x-mcp-header annotations
// are invalid, and call each remaining tool with arguments made from its
// schema (or the context's calls); with http-standard-headers also list and
// read resources and list and get prompts. Elicitation is answered with the
// schema's defaults (SEP-1034), sampling with a fixed text, roots with none.
// The authorization scenarios (auth/*) are run by
// auth/oauthclient/cmd/conformance-auth-client (a separate module, since
// the OAuth client is built on golang.org/x/oauth2), which execs this
// program for every other scenario.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sort"
	"time"

	mcp20250326 "github.com/mcpgen/mcpgen/generated/mcp20250326"
	mcp20250618 "github.com/mcpgen/mcpgen/generated/mcp20250618"
	mcp20251125 "github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: conformance-client URL")
		os.Exit(2)
	}
	cfg := config{
		url:      os.Args[1],
		scenario: os.Getenv("MCP_CONFORMANCE_SCENARIO"),
		version:  os.Getenv("MCP_CONFORMANCE_PROTOCOL_VERSION"),
	}
	if c := os.Getenv("MCP_CONFORMANCE_CONTEXT"); c != "" {
		if err := json.Unmarshal([]byte(c), &cfg.context); err != nil {
			fmt.Fprintln(os.Stderr, "conformance-client: MCP_CONFORMANCE_CONTEXT:", err)
			os.Exit(2)
		}
	}
	if err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "conformance-client:", err)
		os.Exit(1)
	}
}

type config struct {
	url, scenario, version string
	context                scenarioContext
}

// scenarioContext is the part of MCP_CONFORMANCE_CONTEXT this client uses.
type scenarioContext struct {
	ToolCalls []struct {
		Name      string                     `json:"name"`
		Arguments map[string]json.RawMessage `json:"arguments"`
	} `json:"toolCalls"`
}

// legacyRevisions are the legacy revisions the client also speaks.
var legacyRevisions = []session.Revision{mcp20251125.Revision(), mcp20250618.Revision(), mcp20250326.Revision()}

func run(cfg config) error {
	ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
	defer cancel()
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	info := session.Implementation{Name: "mcpgen-conformance-client", Version: "0.2.0"}

	// The transport learns each tool's x-mcp-header annotations from
	// tools/list and sends the Mcp-Param-* headers of tools/call itself.
	revisions := append([]session.Revision{mcp.Revision()}, legacyRevisions...)
	opts := streamhttp.ClientOptions{Revisions: revisions, ClientInfo: info, Logger: log}
	var sessOpts []session.ClientOption
	sessOpts = append(sessOpts, session.WithClientLegacy(legacyRevisions...), session.WithClientLogger(log))
	if cfg.version != "" {
		// The version asked for: the transport's era and the session's
		// version follow it, with no detection.
		opts.Era = streamhttp.EraLegacy
		if slices.Contains(streamhttp.Versions(revisions, streamhttp.EraModern), cfg.version) {
			opts.Era, opts.ModernVersion = streamhttp.EraModern, cfg.version
		}
		sessOpts = append(sessOpts, session.WithVersion(cfg.version))
	}
	tr, err := streamhttp.Dial(ctx, cfg.url, opts)
	if err != nil {
		return err
	}
	cs, err := mcp.Connect(ctx, tr, info, &handler{}, sessOpts...)
	if err != nil {
		tr.Close()
		return err
	}
	defer func() {
		c, cc := context.WithTimeout(context.Background(), 5*time.Second)
		defer cc()
		cs.Close(c)
	}()
	if cfg.scenario == "initialize" {
		return nil
	}

	var tools []mcp.Tool
	var cursor *string
	for {
		list, err := cs.ListTools(ctx, &mcp.PaginatedRequestParams{Cursor: cursor})
		if err != nil {
			return fmt.Errorf("tools/list: %w", err)
		}
		tools = append(tools, list.Tools...)
		if list.NextCursor == nil || *list.NextCursor == "" {
			break
		}
		cursor = list.NextCursor
	}
	usable := map[string]mcp.Tool{}
	var names []string
	for _, tool := range tools {
		schema, err := json.Marshal(tool.InputSchema)
		if err != nil {
			return fmt.Errorf("tool %s: %w", tool.Name, err)
		}
		if _, err := streamhttp.ParamHeadersFromSchema(schema); err != nil {
			// A tool whose x-mcp-header annotations are invalid is left
			// out; the others stay usable (SEP-2243).
			fmt.Fprintf(os.Stderr, "conformance-client: leaving out tool %s: %v\n", tool.Name, err)
			continue
		}
		usable[tool.Name] = tool
		names = append(names, tool.Name)
	}

	if len(cfg.context.ToolCalls) > 0 {
		for _, call := range cfg.context.ToolCalls {
			if _, ok := usable[call.Name]; !ok {
				continue
			}
			if _, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: call.Name, Arguments: call.Arguments}); err != nil {
				fmt.Fprintf(os.Stderr, "conformance-client: tools/call %s: %v\n", call.Name, err)
			}
		}
		return nil
	}
	for _, name := range names {
		args, err := argumentsFor(usable[name])
		if err != nil {
			return err
		}
		if name == schemaEchoTool {
			// json-schema-2020-12-preservation: pass back the schema of the
			// tool under test as this client holds it (the generated
			// ToolInputSchema, every member as received).
			if t, ok := usable[schemaTestTool]; ok {
				if args["schema"], err = json.Marshal(t.InputSchema); err != nil {
					return err
				}
			}
		}
		if _, err := cs.CallTool(ctx, &mcp.CallToolRequestParams{Name: name, Arguments: args}); err != nil {
			// A tool error is the scenario's business, not a client failure;
			// the suite scores what it saw.
			fmt.Fprintf(os.Stderr, "conformance-client: tools/call %s: %v\n", name, err)
		}
	}
	if cfg.scenario == "http-standard-headers" {
		return otherPrimitives(ctx, cs)
	}
	return nil
}

// otherPrimitives lists and reads the resources and lists and gets the
// prompts, so that every request with an Mcp-Name header is sent.
func otherPrimitives(ctx context.Context, cs *mcp.ClientSession) error {
	res, err := cs.ListResources(ctx, &mcp.PaginatedRequestParams{})
	if err != nil {
		return fmt.Errorf("resources/list: %w", err)
	}
	for _, r := range res.Resources {
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceRequestParams{URI: r.URI}); err != nil {
			return fmt.Errorf("resources/read %s: %w", r.URI, err)
		}
	}
	prompts, err := cs.ListPrompts(ctx, &mcp.PaginatedRequestParams{})
	if err != nil {
		return fmt.Errorf("prompts/list: %w", err)
	}
	for _, p := range prompts.Prompts {
		args := map[string]string{}
		for _, a := range p.Arguments {
			args[a.Name] = "test"
		}
		if _, err := cs.GetPrompt(ctx, &mcp.GetPromptRequestParams{Name: p.Name, Arguments: args}); err != nil {
			return fmt.Errorf("prompts/get %s: %w", p.Name, err)
		}
	}
	return nil
}

// The tools of the json-schema-2020-12-preservation scenario: the client
// echoes the first one's inputSchema through the second.
const (
	schemaTestTool = "json_schema_2020_12_tool"
	schemaEchoTool = "json_schema_echo"
)

// argumentsFor makes arguments for a tool from its input schema: a value of
// each property's type.
func argumentsFor(tool mcp.Tool) (map[string]json.RawMessage, error) {
	var props map[string]struct {
		Type json.RawMessage `json:"type"`
	}
	if raw, ok := tool.InputSchema.Extra["properties"]; ok {
		if err := json.Unmarshal(raw, &props); err != nil {
			return nil, fmt.Errorf("tool %s: inputSchema.properties: %w", tool.Name, err)
		}
	}
	keys := make([]string, 0, len(props))
	for k := range props {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	args := map[string]json.RawMessage{}
	for _, name := range keys {
		var typ string
		_ = json.Unmarshal(props[name].Type, &typ)
		switch typ {
		case "number", "integer":
			args[name] = json.RawMessage(`1`)
		case "boolean":
			args[name] = json.RawMessage(`true`)
		case "string":
			args[name] = json.RawMessage(`"test"`)
		case "object":
			args[name] = json.RawMessage(`{}`)
		}
	}
	return args, nil
}

// handler answers the server's requests: in the legacy era as requests on
// the session, in 2026-07-28 as the input requests of an InputRequiredResult
// (the session retries the call with the answers and the server's
// requestState, SEP-2322).
type handler struct{}

// Elicit accepts a form elicitation with the defaults its schema gives
// (SEP-1034: a client applies defaults for omitted fields).
func (handler) Elicit(ctx context.Context, params mcp.ElicitRequestParams) (*mcp.ElicitResult, error) {
	form, ok := params.(*mcp.ElicitRequestFormParams)
	if !ok {
		return &mcp.ElicitResult{Action: mcp.ElicitResultActionAccept}, nil
	}
	content := map[string]mcp.ElicitResultContentValue{}
	raw, err := json.Marshal(form.RequestedSchema)
	if err != nil {
		return nil, err
	}
	var schema struct {
		Properties map[string]struct {
			Default json.RawMessage `json:"default"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &schema); err != nil {
		return nil, fmt.Errorf("requestedSchema: %w", err)
	}
	for name, prop := range schema.Properties {
		if len(prop.Default) == 0 {
			continue
		}
		v, err := mcp.DecodeElicitResultContentValue(prop.Default)
		if err != nil {
			// A default no content value can carry (an object, null).
			// Numbers are all carried: an integer literal as
			// ElicitResultContentValueInteger, any other number (95.5 in
			// elicitation-sep1034-client-defaults) as
			// ElicitResultContentValueNumber, which mcpgen adds to the
			// official schema's string/integer/boolean because the
			// elicitation page allows "type": "number" fields (schema
			// erratum, schema/errata.go).
			fmt.Fprintf(os.Stderr, "conformance-client: elicitation default of %s not sent: %v\n", name, err)
			continue
		}
		content[name] = v
	}
	return &mcp.ElicitResult{Action: mcp.ElicitResultActionAccept, Content: content}, nil
}

// CreateMessage answers sampling with a fixed text.
func (handler) CreateMessage(ctx context.Context, params *mcp.CreateMessageRequestParams) (*mcp.CreateMessageResult, error) {
	return &mcp.CreateMessageResult{Role: mcp.RoleAssistant, Model: "mcpgen-conformance", Content: &mcp.TextContent{Text: "ok"}}, nil
}

// ListRoots answers with no roots.
func (handler) ListRoots(ctx context.Context, params *mcp.ListRootsRequestParams) (*mcp.ListRootsResult, error) {
	return &mcp.ListRootsResult{Roots: []mcp.Root{}}, nil
}
