package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"
)

// A snapshot file is what "mcpgen tools --from-server" writes: a JSON
// object with the server's serverInfo, the negotiated protocolVersion and
// the tools (prompts, resourceTemplates where the server declares them)
// exactly as the server listed them:
//
//	{"mcpgenSnapshot": 1, "server": {...}, "protocolVersion": "...",
//	 "tools": [...], "prompts": [...], "resourceTemplates": [...]}
//
// Generate accepts it wherever it accepts a tools file (the tools array of
// a tools file is the "tools" member here), reads its schemas leniently
// (wild.go: what cannot be bound becomes json.RawMessage, never an error)
// and adds the server's facts, typed prompt arguments and a PromptCaller.

// snapshot is what Generate reads from a snapshot file besides its tools.
type snapshot struct {
	serverName, serverVersion, protocolVersion string
	prompts                                    []*promptDef
}

// promptDef is one prompt of prompts/list.
type promptDef struct {
	name, goName, doc string
	args              []promptArg
}

type promptArg struct {
	name, field, doc string
	required         bool
}

// readSnapshot returns the tools array of data: data itself for a tools
// file (a JSON array), the "tools" member and the snapshot's facts for a
// snapshot file (a JSON object).
func readSnapshot(data []byte) ([]byte, *snapshot, error) {
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return data, nil, nil
	}
	var f struct {
		Version *int            `json:"mcpgenSnapshot"`
		Server  json.RawMessage `json:"server"`
		Proto   string          `json:"protocolVersion"`
		Tools   json.RawMessage `json:"tools"`
		Prompts json.RawMessage `json:"prompts"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, nil, fmt.Errorf("#: want a JSON array of Tool objects or a snapshot object: %v", err)
	}
	if f.Version == nil {
		return nil, nil, errors.New(`#: want a JSON array of Tool objects, or a snapshot file (an object with "mcpgenSnapshot": 1, written by mcpgen tools --from-server)`)
	}
	if *f.Version != 1 {
		return nil, nil, fmt.Errorf("#/mcpgenSnapshot: %d: this mcpgen reads snapshot files of version 1", *f.Version)
	}
	if f.Tools == nil {
		return nil, nil, errors.New("#/tools: missing")
	}
	s := &snapshot{protocolVersion: f.Proto}
	var info struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	if f.Server != nil {
		if err := json.Unmarshal(f.Server, &info); err != nil {
			return nil, nil, fmt.Errorf("#/server: want an Implementation object: %v", err)
		}
	}
	s.serverName, s.serverVersion = info.Name, info.Version
	if f.Prompts != nil && string(f.Prompts) != "null" {
		var ps []struct {
			Name        string `json:"name"`
			Description string `json:"description"`
			Arguments   []struct {
				Name        string `json:"name"`
				Description string `json:"description"`
				Required    bool   `json:"required"`
			} `json:"arguments"`
		}
		if err := json.Unmarshal(f.Prompts, &ps); err != nil {
			return nil, nil, fmt.Errorf("#/prompts: want an array of Prompt objects: %v", err)
		}
		byGo := map[string]string{}
		for i, p := range ps {
			if p.Name == "" {
				return nil, nil, fmt.Errorf("#/prompts/%d/name: missing", i)
			}
			g := goName(p.Name)
			if prev, ok := byGo[g]; ok {
				return nil, nil, fmt.Errorf("#/prompts/%d/name: %q and %q both become the Go name %s", i, prev, p.Name, g)
			}
			byGo[g] = p.Name
			d := &promptDef{name: p.Name, goName: g, doc: p.Description}
			fields := map[string]string{}
			for j, a := range p.Arguments {
				f := goName(a.Name)
				if prev, ok := fields[f]; ok {
					return nil, nil, fmt.Errorf("#/prompts/%d/arguments/%d/name: %q and %q both become the Go field %s", i, j, prev, a.Name, f)
				}
				fields[f] = a.Name
				d.args = append(d.args, promptArg{name: a.Name, field: f, doc: a.Description, required: a.Required})
			}
			s.prompts = append(s.prompts, d)
		}
	}
	return f.Tools, s, nil
}

// claimPrompts reserves the Go names of the prompts' declarations.
func (ps *parser) claimPrompts(s *snapshot) error {
	for i, p := range s.prompts {
		for _, n := range []string{"Prompt" + p.goName, p.goName + "PromptArgs"} {
			if err := ps.claim(n, fmt.Sprintf("/prompts/%d/name", i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// wildSchema is schemaOf for a snapshot's schema: normalized first, so
// that it binds whatever the server published.
func (ps *parser) wildSchema(raw json.RawMessage, ptr, name string) (*node, error) {
	norm, loose, err := normalize(raw, strings.HasSuffix(ptr, "/inputSchema"))
	if err != nil {
		return nil, fmt.Errorf("#%s: %v", ptr, err)
	}
	ps.formatAsserted = false // normalize dropped format
	ps.src = &schemaSrc{json: string(compact(raw))}
	defer func() { ps.src = nil }()
	n, err := ps.parse(norm, ptr, name)
	if err != nil {
		return nil, err
	}
	if n.kind == kindAny {
		// A root normalize could not bind (a $ref to itself, say): an
		// object without members, so the tool still has its types, and
		// the arguments are checked against the whole published schema.
		n = &node{ptr: ptr, kind: kindObject, doc: n.doc, raw: n.raw}
	}
	if loose {
		// An assertion normalize dropped is kept by checking the whole
		// value against the published schema.
		n.raw = &rawRef{src: ps.src, at: ""}
	}
	if n.kind != kindObject {
		return nil, fmt.Errorf("#%s/type: must be \"object\"", ptr)
	}
	if n.goName == "" {
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

// parseChild is parse for a member or item schema; in a snapshot, one
// parse cannot bind (a pattern Go's regexp rejects, say) becomes raw JSON.
func (ps *parser) parseChild(raw json.RawMessage, ptr, name string) (*node, error) {
	n, err := ps.parse(raw, ptr, name)
	if err != nil && ps.lenient {
		n = &node{ptr: ptr, kind: kindAny, doc: fmt.Sprintf("Raw JSON: mcpgen binds no Go type to this schema (%v); the value is checked against the server's schema for it.", err)}
		var noted struct {
			At *string `json:"x-mcpgen-at"`
		}
		if json.Unmarshal(raw, &noted) == nil && noted.At != nil && ps.src != nil {
			n.raw = &rawRef{src: ps.src, at: *noted.At}
		}
		return n, nil
	}
	return n, err
}

// snapshotDecls emits what a snapshot adds: the server's facts and, per
// prompt, typed arguments and a PromptCaller method.
func (e *emitter) snapshotDecls() error {
	f, s := e.f, e.snap
	f.Comment("The server this package was generated from, as the snapshot recorded it.")
	f.Const().Defs(
		jen.Comment("ServerName is serverInfo.name."),
		jen.Id("ServerName").Op("=").Lit(s.serverName),
		jen.Comment("ServerVersion is serverInfo.version."),
		jen.Id("ServerVersion").Op("=").Lit(s.serverVersion),
		jen.Comment("ProtocolVersion is the revision the snapshot negotiated."),
		jen.Id("ProtocolVersion").Op("=").Lit(s.protocolVersion),
	)
	f.Comment("executionError is the *ExecutionError of a result whose isError is true:")
	f.Comment("its text blocks, one per line.")
	f.Func().Id("executionError").Params(jen.Id("res").Op("*").Add(e.mcp("CallToolResult"))).Error().Block(
		jen.Var().Id("r").Struct(jen.Id("Content").Index().Struct(
			jen.Id("Type").String().Tag(map[string]string{"json": "type"}),
			jen.Id("Text").String().Tag(map[string]string{"json": "text"}))),
		jen.If(jen.List(jen.Id("b"), jen.Err()).Op(":=").Qual(jsonPath, "Marshal").Call(jen.Id("res")), jen.Err().Op("==").Nil()).Block(
			jen.Qual(jsonPath, "Unmarshal").Call(jen.Id("b"), jen.Op("&").Id("r"))),
		jen.Var().Id("texts").Index().String(),
		jen.For(jen.List(jen.Id("_"), jen.Id("c")).Op(":=").Range().Id("r").Dot("Content")).Block(
			jen.If(jen.Id("c").Dot("Type").Op("==").Lit("text")).Block(
				jen.Id("texts").Op("=").Append(jen.Id("texts"), jen.Id("c").Dot("Text")))),
		jen.Return(jen.Op("&").Id("ExecutionError").Values(jen.Dict{jen.Id("Message"): jen.Qual("strings", "Join").Call(jen.Id("texts"), jen.Lit("\n"))})),
	)
	if len(s.prompts) == 0 {
		return nil
	}
	f.Comment("Prompt names, as prompts/list announces them and prompts/get names them.")
	var names []jen.Code
	for _, p := range s.prompts {
		names = append(names, jen.Id("Prompt"+p.goName).Op("=").Lit(p.name))
	}
	f.Const().Defs(names...)
	for _, p := range s.prompts {
		var fields []jen.Code
		for _, a := range p.args {
			doc := a.doc
			if doc == "" {
				doc = fmt.Sprintf("%s is the argument %q.", a.field, a.name)
			}
			fields = append(fields, comments(doc)...)
			if a.required {
				fields = append(fields, jen.Id(a.field).String().Tag(map[string]string{"json": a.name}))
			} else {
				fields = append(fields, jen.Id(a.field).Op("*").String().Tag(map[string]string{"json": a.name + ",omitempty"}))
			}
		}
		f.Commentf("%sPromptArgs are the arguments of the prompt %q (required ones are", p.goName, p.name)
		f.Comment("strings, optional ones *string: nil leaves the argument out).")
		f.Type().Id(p.goName + "PromptArgs").Struct(fields...)
	}
	f.Comment("PromptGetter is what PromptCaller calls: the bindings' Server (and so")
	f.Comment("their ServerCaller and ClientSession).")
	f.Type().Id("PromptGetter").Interface(
		jen.Id("GetPrompt").Params(jen.Qual("context", "Context"), jen.Op("*").Add(e.mcp("GetPromptRequestParams"))).
			Params(jen.Op("*").Add(e.mcp("GetPromptResult")), jen.Error()),
	)
	f.Comment("PromptCaller gets the server's prompts with typed arguments.")
	f.Type().Id("PromptCaller").Struct(jen.Id("server").Id("PromptGetter"))
	f.Comment("NewPromptCaller returns a PromptCaller getting prompts from server.")
	f.Func().Id("NewPromptCaller").Params(jen.Id("server").Id("PromptGetter")).Op("*").Id("PromptCaller").Block(
		jen.Return(jen.Op("&").Id("PromptCaller").Values(jen.Dict{jen.Id("server"): jen.Id("server")})))
	for _, p := range s.prompts {
		body := []jen.Code{jen.Id("a").Op(":=").Map(jen.String()).String().Values()}
		var sets []jen.Code
		for _, a := range p.args {
			if a.required {
				sets = append(sets, jen.Id("a").Index(jen.Lit(a.name)).Op("=").Id("args").Dot(a.field))
			} else {
				sets = append(sets, jen.If(jen.Id("args").Dot(a.field).Op("!=").Nil()).Block(
					jen.Id("a").Index(jen.Lit(a.name)).Op("=").Op("*").Id("args").Dot(a.field)))
			}
		}
		if len(sets) > 0 {
			body = append(body, jen.If(jen.Id("args").Op("!=").Nil()).Block(sets...))
		}
		body = append(body, jen.Return(jen.Id("c").Dot("server").Dot("GetPrompt").Call(jen.Id("ctx"),
			jen.Op("&").Add(e.mcp("GetPromptRequestParams")).Values(jen.Dict{jen.Id("Name"): jen.Id("Prompt" + p.goName), jen.Id("Arguments"): jen.Id("a")}))))
		doc := fmt.Sprintf("%s gets the prompt %q.", p.goName, p.name)
		if p.doc != "" {
			doc += " " + p.doc
		}
		for _, c := range comments(doc) {
			f.Add(c)
		}
		f.Func().Params(jen.Id("c").Op("*").Id("PromptCaller")).Id(p.goName).Params(
			jen.Id("ctx").Qual("context", "Context"), jen.Id("args").Op("*").Id(p.goName+"PromptArgs"),
		).Params(jen.Op("*").Add(e.mcp("GetPromptResult")), jen.Error()).Block(body...)
	}
	return nil
}
