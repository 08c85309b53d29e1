// Package tools generates typed MCP tools from a tools file: a JSON array
// of Tool objects, written as tools/list returns them (name, title,
// description, inputSchema, outputSchema, annotations, icons, _meta, ...).
// Every member is served exactly as written; the generator reads name,
// description and the two schemas.
//
// For one or more target bindings packages (generated/mcpYYYYMMDD or a
// user's own), Generate writes a Go package (one file, tools.go)
// with, per tool: an argument struct from the input schema and, given an
// output schema, a result struct (required members are values, optional
// ones pointers, or nil-able slices and maps; nested objects are named
// structs; string enums are named string types with constants; integer is
// int64, number float64; a schema without "type" is json.RawMessage); a
// DecodeXxx function for each; one Tools interface with a context-first
// method per tool:
//
//	Sleep(ctx context.Context, args *SleepArgs) (*SleepResult, error)
//
// (a tool without an output schema returns the bindings' *CallToolResult);
// and a Handler per target (a ListToolsHandler and CallToolHandler of the
// bindings) that answers tools/list with the tools as written and tools/call by
// binding and validating the arguments with code generated from the input
// schema, calling the method, checking the result against the output
// schema, and answering structuredContent plus the same JSON in a text
// block (server/tools.mdx, "Structured Content"), or the result's String()
// when the user gives the type one in a file of the package. The generated code imports
// only the bindings, the runtime, the standard library and the support
// package runtime/toolsupport, which holds the code every tools package
// shares (the error types, exported again as aliases, and the validation
// and result helpers the generated code calls) and whose version guard the
// package refers to. A tools_support.go that mcpgen wrote before the
// support code moved there carries the mcpgen header, so "mcpgen tools"
// removes it.
//
// Caller is the client's side of the same interface: it implements Tools by
// calling any CallTool (the bindings' ServerCaller, or a Handler in tests),
// returns isError results as *ExecutionError and validates structured
// content against the output schema (server/tools.mdx: clients SHOULD).
//
// How failures are answered, from server/tools.mdx of each revision:
// arguments the schema rejects are a tool execution error (isError: true)
// from 2025-11-25 on and a -32602 protocol error before, the text naming
// the JSON pointer (/arguments/ms); an unknown tool is -32602; an
// *ExecutionError from a method (Errorf) is an isError result; any other
// error goes to the runtime unchanged (a *jsonrpc2.Error as it is, others
// -32603, a cancelled call's answer dropped), because a plain Go error is a
// server fault whose text should not reach the model by default.
//
// The schema keywords the generated validator implements are type (one
// name), properties, required, additionalProperties (true or false), items,
// enum, const, minimum, maximum, exclusiveMinimum, exclusiveMaximum,
// minLength, maxLength, pattern (Go regexp syntax, as jsonschema/v5 uses),
// minItems, maxItems, uniqueItems, multipleOf, minProperties and
// maxProperties; annotations (title, description, default, examples,
// format in 2020-12, $schema, $comment, x-...) are ignored. Any other keyword is an
// error naming its JSON pointer, rather than a check silently skipped.
// Numbers beyond 64 bits or with exponents beyond ±400 are rejected.
//
// The input may also be a snapshot file (snapshot.go), the record of a
// live server "mcpgen tools --from-server" writes: its schemas are read
// leniently (wild.go), so whatever a server publishes generates, and the
// package gains the server's facts and typed prompt callers. Drift
// compares two snapshots for "mcpgen tools --check-server".
package tools

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/mcpgen/mcpgen/schema"
)

// Options tune Generate.
type Options struct {
	// Package is the Go package name of the output.
	Package string
	// Import is the import path of the bindings package the generated code
	// uses, e.g. github.com/mcpgen/mcpgen/generated/mcp20260728.
	Import string
	// Revision is the MCP revision (YYYY-MM-DD) of the bindings; empty
	// means: read it from the last element of Import (mcpYYYYMMDD).
	Revision string
	// AlsoImport are further bindings packages (mcpYYYYMMDD, revision read
	// from the name) to serve the same tools on: for each, a
	// HandlerYYYYMMDD over the one Tools interface, so a dual-era server
	// implements its tools once.
	AlsoImport []string
	// ToolsFile names the tools file in errors and in the header comment.
	ToolsFile string
	// Version is the mcpgen version the header names (the command passes
	// what "mcpgen version" prints); empty means version.Dev, the version
	// of this source tree.
	Version string
}

// target is one bindings package a Handler is generated for.
type target struct {
	imp     string
	alias   string // the package identifier used in the generated code
	rev     revision
	handler string // Handler or HandlerYYYYMMDD
	ctor    string
}

// revision is what the generated dispatcher must know about the bindings'
// revision and cannot read from the tools file: its row of the revision
// table (schema/revisions.go).
type revision struct {
	date string
	// structured: Tool.outputSchema and CallToolResult.structuredContent
	// exist.
	structured bool
	// argsAsToolErrors: input validation errors are tool execution errors
	// (isError: true) rather than -32602 protocol errors.
	argsAsToolErrors bool
	// modern: results carry resultType, and tools/list is a CacheableResult
	// with ttlMs and cacheScope.
	modern bool
}

// lookupRevision returns what the dispatcher of revision rev needs.
func lookupRevision(rev string) (revision, bool) {
	f, ok := schema.LookupRevision(rev)
	if !ok {
		return revision{}, false
	}
	return revision{
		date:             f.Version,
		structured:       f.StructuredToolOutput,
		argsAsToolErrors: f.ToolInputErrorsAsResults,
		modern:           f.Era == schema.EraModern,
	}, true
}

var importRevision = regexp.MustCompile(`mcp(\d{4})(\d{2})(\d{2})$`)

// RevisionFromImport reports whether the revision of the bindings at an
// import path can be read from the path (it ends in mcpYYYYMMDD); when it
// cannot, Options.Revision must say it.
func RevisionFromImport(imp string) bool { return importRevision.MatchString(imp) }

// toolName is what the spec allows in a tool name (server/tools.mdx, "Tool
// Names", from 2025-11-25 on): 1 to 128 ASCII letters, digits, '_', '-'
// and '.'. It is a SHOULD there; mcpgen holds its own tools to it, for
// every revision, so a name no client would accept fails at generation.
var toolName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,128}$`)

// syntaxError returns data's first JSON syntax error as
// "LINE:COLUMN: message" (1-based; the column counts bytes), or nil.
func syntaxError(data []byte) error {
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if err == nil || !errors.As(err, &se) {
		return nil
	}
	off := int(se.Offset)
	if off > len(data) {
		off = len(data)
	}
	// Offset is just past the offending byte: point at it.
	if off > 0 && !strings.Contains(se.Error(), "unexpected end") {
		off--
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := off - bytes.LastIndexByte(data[:off], '\n')
	return fmt.Errorf("%d:%d: invalid JSON: %v", line, col, se)
}

// tool is one entry of the tools file.
type tool struct {
	name   string
	goName string
	doc    string
	raw    json.RawMessage // the entry as written, compacted
	args   *node
	result *node // nil without an output schema
}

// Generate returns the files of the tools package for the tools file data,
// keyed by file name. Errors name the tools file and a JSON pointer into it.
func Generate(data []byte, opts Options) (map[string][]byte, error) {
	file := opts.ToolsFile
	if file == "" {
		file = "tools.json"
	}
	fail := func(err error) (map[string][]byte, error) { return nil, fmt.Errorf("%s: %w", file, err) }
	if opts.Package == "" || opts.Import == "" {
		return nil, fmt.Errorf("tools: Package and Import are required")
	}
	var targets []target
	seen := map[string]bool{}
	for i, imp := range append([]string{opts.Import}, opts.AlsoImport...) {
		rev := ""
		if i == 0 {
			rev = opts.Revision
		}
		m := importRevision.FindStringSubmatch(imp)
		if rev == "" {
			if m == nil {
				return nil, fmt.Errorf("tools: cannot tell the revision of %s from its name (it does not end in mcpYYYYMMDD); set Options.Revision (mcpgen tools --revision)", imp)
			}
			rev = m[1] + "-" + m[2] + "-" + m[3]
		}
		r, ok := lookupRevision(rev)
		if !ok {
			return nil, fmt.Errorf("tools: unknown MCP revision %q (no row in the revision table, schema/revisions.go)", rev)
		}
		t := target{imp: imp, alias: "mcp", rev: r, handler: "Handler", ctor: "NewHandler"}
		if i > 0 {
			digits := strings.ReplaceAll(rev, "-", "")
			t.alias, t.handler, t.ctor = "mcp"+digits, "Handler"+digits, "NewHandler"+digits
		}
		if seen[t.handler] || seen[imp] {
			return nil, fmt.Errorf("tools: %s: two bindings packages of revision %s", imp, rev)
		}
		seen[t.handler], seen[imp] = true, true
		targets = append(targets, t)
	}
	if err := syntaxError(data); err != nil {
		return nil, fmt.Errorf("%s:%w", file, err)
	}
	sum := sha256.Sum256(data) // of the file as written
	// JSON text is UTF-8 (RFC 8259), but a server's tools/list may still
	// carry invalid bytes in a string, and Go source may not: read them as
	// encoding/json reads them into a string, U+FFFD.
	data = bytes.ToValidUTF8(data, []byte("\uFFFD"))
	toolsData, snap, err := readSnapshot(data)
	if err != nil {
		return fail(err)
	}
	if snap == nil {
		// A tools file may use the compact notation (compact.go); a
		// snapshot holds the schemas exactly as the server listed them.
		if toolsData, err = expandCompact(toolsData); err != nil {
			return fail(err)
		}
	}
	var tools []*tool
	for _, t := range targets {
		if tools, err = parseTools(toolsData, t.rev, snap); err != nil {
			return fail(err)
		}
	}
	e := &emitter{opts: opts, targets: targets, t: targets[0], file: file, sum: hex.EncodeToString(sum[:]), tools: tools, snap: snap}
	main, err := e.emit()
	if err != nil {
		return fail(err)
	}
	return map[string][]byte{"tools.go": main}, nil
}

// parseTools reads the array of tools and the schemas in it; snap is the
// snapshot the array comes from (nil for a tools file), whose schemas are
// read leniently (wild.go) and whose pointers are under /tools.
func parseTools(data []byte, r revision, snap *snapshot) ([]*tool, error) {
	var entries []json.RawMessage
	if err := json.Unmarshal(data, &entries); err != nil {
		return nil, fmt.Errorf("#: want a JSON array of Tool objects: %v", err)
	}
	ps := &parser{names: map[string]string{}, lenient: snap != nil}
	base := ""
	if snap != nil {
		base = "/tools"
		for _, id := range []string{"Prompts", "PromptCaller", "NewPromptCaller", "PromptGetter", "ServerName", "ServerVersion", "ProtocolVersion"} {
			ps.names[id] = "(a name mcpgen uses)"
		}
	}
	for _, id := range []string{"Tools", "Handler", "NewHandler", "ValidationError", "ValidationErrors", "ExecutionError", "Errorf", "ToolsJSON",
		"Caller", "NewCaller", "ToolCaller"} {
		ps.names[id] = "(a name mcpgen uses)"
	}
	if snap != nil {
		if err := ps.claimPrompts(snap); err != nil {
			return nil, err
		}
	}
	byName := map[string]string{}
	var out []*tool
	for i, raw := range entries {
		ptr := fmt.Sprintf("%s/%d", base, i)
		var t struct {
			Name         *string         `json:"name"`
			Description  string          `json:"description"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		}
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, fmt.Errorf("#%s: want a Tool object: %v", ptr, err)
		}
		if t.Name == nil || *t.Name == "" {
			return nil, fmt.Errorf("#%s/name: missing", ptr)
		}
		// A snapshot records a server someone else wrote: the naming rule is
		// a SHOULD, so its names are taken as they are.
		if !toolName.MatchString(*t.Name) && !ps.lenient {
			return nil, fmt.Errorf("#%s/name: %q is not a valid tool name: use 1 to 128 of A-Z, a-z, 0-9, '_', '-' and '.' (server/tools.mdx, Tool Names)", ptr, *t.Name)
		}
		g := goName(*t.Name)
		for i := 2; ps.lenient && byName[g] != ""; i++ {
			g = fmt.Sprintf("%s%d", goName(*t.Name), i)
		}
		if prev, ok := byName[g]; ok {
			return nil, fmt.Errorf("#%s/name: %q and %q both become the Go name %s", ptr, prev, *t.Name, g)
		}
		byName[g] = *t.Name
		if t.InputSchema == nil {
			return nil, fmt.Errorf("#%s/inputSchema: missing", ptr)
		}
		if err := ps.claim("Tool"+g, ptr+"/name"); err != nil {
			return nil, err
		}
		tl := &tool{name: *t.Name, goName: g, doc: t.Description, raw: compact(raw)}
		var err error
		if tl.args, err = schemaOf(ps, t.InputSchema, ptr+"/inputSchema", g+"Args"); err != nil {
			return nil, err
		}
		if t.OutputSchema != nil {
			if !r.structured {
				return nil, fmt.Errorf("#%s/outputSchema: revision %s has no structured tool output", ptr, r.date)
			}
			if tl.result, err = schemaOf(ps, t.OutputSchema, ptr+"/outputSchema", g+"Result"); err != nil {
				return nil, err
			}
		}
		out = append(out, tl)
	}
	return out, nil
}

// schemaOf checks that raw is a JSON Schema jsonschema/v5 compiles (the
// tools page: 2020-12 unless $schema says otherwise), that it describes an
// object, as the Tool definition requires, and reduces it to a node.
func schemaOf(ps *parser, raw json.RawMessage, ptr, name string) (*node, error) {
	// Our own reading first: its errors name the exact pointer.
	var dialect struct {
		Schema string `json:"$schema"`
	}
	json.Unmarshal(raw, &dialect)
	ps.formatAsserted = dialect.Schema != "" && !strings.Contains(dialect.Schema, "2020-12") && !strings.Contains(dialect.Schema, "2019-09")
	if ps.lenient {
		return ps.wildSchema(raw, ptr, name)
	}
	n, err := ps.parse(raw, ptr, name)
	if err != nil {
		return nil, err
	}
	const url = "mcpgen:///tool.json" // in memory: nothing is fetched
	c := jsonschema.NewCompiler()
	c.Draft = jsonschema.Draft2020
	if err := c.AddResource(url, bytes.NewReader(raw)); err != nil {
		return nil, fmt.Errorf("#%s: %v", ptr, err)
	}
	if _, err := c.Compile(url); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			for len(ve.Causes) > 0 {
				ve = ve.Causes[0]
			}
			return nil, fmt.Errorf("#%s%s: not a valid JSON Schema: %s", ptr, ve.InstanceLocation, ve.Message)
		}
		return nil, fmt.Errorf("#%s: not a valid JSON Schema: %s", ptr, strings.ReplaceAll(err.Error(), "\n", " "))
	}
	if n.kind != kindObject {
		return nil, fmt.Errorf("#%s/type: must be \"object\"", ptr)
	}
	if n.goName == "" {
		// An object without properties is still a struct at the root, so
		// every tool has named argument and result types.
		n.goName = name
		if err := ps.claim(name, ptr); err != nil {
			return nil, err
		}
	}
	if err := ps.claim("Decode"+name, ptr); err != nil {
		return nil, err
	}
	return n, nil
}
