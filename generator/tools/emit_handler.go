package tools

import (
	"fmt"

	"bytes"
	"strings"

	"github.com/dave/jennifer/jen"
)

// toolsJSON emits ToolsJSON, the tools as written, for tools/list.
func (e *emitter) toolsJSON() {
	f := e.f
	var list bytes.Buffer
	list.WriteByte('[')
	for i, t := range e.tools {
		if i > 0 {
			list.WriteByte(',')
		}
		list.Write(t.raw)
	}
	list.WriteByte(']')
	f.Comment("ToolsJSON is the tools file, compacted: the tools as tools/list announces")
	f.Comment("them, with every schema exactly as written.")
	lit := jen.Lit(list.String())
	if !strings.Contains(list.String(), "`") {
		lit = jen.Op("`" + list.String() + "`") // readable, and what users grep for
	}
	f.Const().Id("ToolsJSON").Op("=").Add(lit)
}

// handler emits the Handler of e.t: the tools/list answer and the
// tools/call dispatcher for that bindings package.
func (e *emitter) handler() {
	f := e.f
	r := e.t.rev
	H := e.t.handler

	fields := []jen.Code{
		jen.Comment("impl is called for each tool. A *Handler implements the bindings'"),
		jen.Comment("ListToolsHandler and CallToolHandler only, so on its own it is a server"),
		jen.Comment("that declares and answers tools and nothing else; embed *Handler in a"),
		jen.Comment("server type to add the rest."),
		jen.Id("impl").Id("Tools"),
	}
	if r.modern {
		fields = append(fields,
			jen.Line(),
			jen.Comment("TTLMs and CacheScope are the CacheableResult hints of tools/list"),
			jen.Comment("(ttlMs, cacheScope). The list never changes, so any ttl is correct;"),
			jen.Comment("CacheScope defaults to \"public\": it holds nothing user-specific."),
			jen.Id("TTLMs").Int64(),
			jen.Id("CacheScope").String(),
		)
	}
	f.Commentf("%s answers tools/list and tools/call of revision %s for an", H, r.date)
	f.Comment("implementation of Tools.")
	f.Comment("It validates the arguments of every call against the tool's input schema")
	f.Comment("with generated code before calling the method, and turns a typed result")
	f.Comment("into structuredContent plus the same JSON in a text block.")
	f.Type().Id(H).Struct(fields...)

	f.Commentf("%s returns a %s calling impl.", e.t.ctor, H)
	f.Func().Id(e.t.ctor).Params(jen.Id("impl").Id("Tools")).Op("*").Id(H).Block(
		jen.Return(jen.Op("&").Id(H).Values(jen.Dict{jen.Id("impl"): jen.Id("impl")})),
	)

	listBody := []jen.Code{}
	listJSON := jen.Lit(`{"tools":`).Op("+").Id("ToolsJSON").Op("+").Lit("}")
	if r.modern {
		listBody = append(listBody,
			jen.Id("scope").Op(":=").Id("h").Dot("CacheScope"),
			jen.If(jen.Id("scope").Op("==").Lit("")).Block(jen.Id("scope").Op("=").Lit("public")),
			jen.List(jen.Id("hints"), jen.Id("_")).Op(":=").Qual(jsonPath, "Marshal").Call(jen.Map(jen.String()).Any().Values(jen.Dict{
				jen.Lit("ttlMs"):      jen.Id("h").Dot("TTLMs"),
				jen.Lit("cacheScope"): jen.Id("scope"),
				jen.Lit("resultType"): jen.Lit("complete"),
			})),
		)
		listJSON = jen.Append(jen.Index().Byte().Call(jen.Lit(`{"tools":`).Op("+").Id("ToolsJSON").Op("+").Lit(",")), jen.Id("hints").Index(jen.Lit(1), jen.Empty()).Op("..."))
	} else {
		listJSON = jen.Index().Byte().Call(listJSON)
	}
	listBody = append(listBody,
		jen.Var().Id("res").Add(e.mcp("ListToolsResult")),
		jen.If(jen.Err().Op(":=").Qual(jsonPath, "Unmarshal").Call(listJSON, jen.Op("&").Id("res")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Op("&").Id("res"), jen.Nil()),
	)
	f.Comment("ListTools answers tools/list with every tool of the tools file, in its")
	f.Comment("order, decoded afresh for each call so callers may keep or change it.")
	f.Func().Params(jen.Id("h").Op("*").Id(H)).Id("ListTools").Params(
		jen.Id("_").Qual("context", "Context"), jen.Id("_").Op("*").Add(e.mcp("ListToolsRequestParams")),
	).Params(jen.Op("*").Add(e.mcp("ListToolsResult")), jen.Error()).Block(listBody...)

	// CallTool.
	var cases, jsonCases []jen.Code
	for _, t := range e.tools {
		run := jen.Return(jen.Id("h").Dot("run"+t.goName).Call(jen.Id("ctx"), jen.Id("params"), jen.Id("args")))
		cases = append(cases, jen.Case(jen.Id("Tool"+t.goName)).Block(
			e.bindArguments(t),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Id("h").Dot("invalid").Call(jen.Id("params").Dot("Name"), jen.Err()))),
			run,
		))
		if t.args.fast != "" {
			// From the fast binder on the JSON; whatever it does not
			// take goes on to CallTool.
			jsonCases = append(jsonCases, jen.Case(jen.Id("Tool"+t.goName)).Block(
				jen.If(jen.List(jen.Id("args"), jen.Id("ok")).Op(":=").Id(t.args.fast).Call(jen.Id("arguments")), jen.Id("ok")).Block(
					jen.Return(jen.Id("h").Dot("run"+t.goName).Call(jen.Id("ctx"), jen.Id("params"), jen.Op("&").Id("args")))),
			))
		}
	}
	f.Comment("CallTool validates the arguments against the named tool's input schema,")
	f.Comment("calls its method and answers with its result. An unknown tool is a")
	f.Comment("protocol error (-32602), as server/tools.mdx says of every revision.")
	f.Func().Params(jen.Id("h").Op("*").Id(H)).Id("CallTool").Params(
		jen.Id("ctx").Qual("context", "Context"), jen.Id("params").Op("*").Add(e.mcp("CallToolRequestParams")),
	).Params(jen.Op("*").Add(e.mcp("CallToolResult")), jen.Error()).Block(
		jen.Switch(jen.Id("params").Dot("Name")).Block(cases...),
		jen.Return(jen.Nil(), jen.Qual(runtimePath, "NewInvalidParamsError").Call(jen.Lit("unknown tool: ").Op("+").Id("params").Dot("Name"))),
	)
	for _, t := range e.tools {
		res := e.mcp("CallToolResult")
		if t.result != nil {
			f.Commentf("run%s calls the tool %q with its bound arguments and answers with", t.goName, t.name)
			f.Comment("its result, checked against the output schema.")
		} else {
			f.Commentf("run%s calls the tool %q with its bound arguments and answers with", t.goName, t.name)
			f.Comment("its result.")
		}
		f.Func().Params(jen.Id("h").Op("*").Id(H)).Id("run"+t.goName).Params(
			jen.Id("ctx").Qual("context", "Context"), jen.Id("params").Op("*").Add(e.mcp("CallToolRequestParams")), jen.Id("args").Op("*").Id(t.args.goName),
		).Params(jen.Op("*").Add(res), jen.Error()).Block(e.callBound(t)...)
	}
	if len(jsonCases) > 0 {
		e.callToolJSON(H, jsonCases)
	}
	e.handlerTail(H)
}

// callBound is what CallTool does for t once its arguments are bound to
// args: call the method, check and answer with its result.
func (e *emitter) callBound(t *tool) []jen.Code {
	r := e.t.rev
	stmts := []jen.Code{
		jen.List(jen.Id("res"), jen.Err()).Op(":=").Id("h").Dot("impl").Dot(t.goName).Call(jen.Id("ctx"), jen.Id("args")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Id("h").Dot("failed").Call(jen.Err()))),
	}
	if t.result != nil {
		stmts = append(stmts,
			e.checkResult(t),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("tool %s: %w"), jen.Id("params").Dot("Name"), jen.Err()))),
			jen.Return(jen.Id("h").Dot("result").Call(jen.Id("out"), jen.Id("text"), jen.False())),
		)
	} else {
		stmts = append(stmts,
			jen.If(jen.Id("res").Op("==").Nil()).Block(jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("tool %s: nil result"), jen.Id("params").Dot("Name")))))
		if e.t.imp == e.targets[0].imp {
			stmts = append(stmts, jen.Return(jen.Id("res"), jen.Nil()))
		} else {
			// The method returns the primary bindings' result: carry it over as JSON.
			stmts = append(stmts, jen.Return(ts("ConvertResult").Types(e.mcp("CallToolResult")).Call(jen.Id("res"), jen.Lit(r.modern))))
		}
	}
	return stmts
}

// callToolJSON emits CallToolJSONFor and callToolJSON: tools/call with the
// arguments as the request's JSON, for the bindings' RegisterServer, so a
// tool whose fast binder takes them is called with no map of their members
// built; cases are the fast binders' cases.
func (e *emitter) callToolJSON(H string, cases []jen.Code) {
	f := e.f
	params := jen.Op("*").Add(e.mcp("CallToolRequestParams"))
	res := jen.Op("*").Add(e.mcp("CallToolResult"))
	fn := jen.Func().Params(jen.Qual("context", "Context"), params.Clone(), jen.Qual(jsonPath, "RawMessage")).Params(res.Clone(), jen.Error())
	f.Comment("CallToolJSONFor is for the bindings' RegisterServer: registering impl, it")
	f.Comment("answers tools/call with what this returns, given the params decoded without")
	f.Comment("their arguments and the arguments object as the request's JSON (nil when")
	f.Comment("absent), so a plain tool's arguments are bound from the bytes with no map of")
	f.Comment("their members between. It returns nil unless impl is h itself: a type")
	f.Comment("embedding h may have a CallTool of its own, which must answer.")
	f.Func().Params(jen.Id("h").Op("*").Id(H)).Id("CallToolJSONFor").Params(jen.Id("impl").Any()).Add(fn.Clone()).Block(
		jen.If(jen.Id("impl").Op("!=").Any().Call(jen.Id("h"))).Block(jen.Return(jen.Nil())),
		jen.Return(jen.Id("h").Dot("callToolJSON")),
	)
	f.Comment("callToolJSON answers a call whose arguments its tool's fast binder takes")
	f.Comment("from the JSON as CallTool would (the fast binders say yes only to what the")
	f.Comment("bind functions accept, with the same value); anything else is split into")
	f.Comment("params.Arguments and answered by CallTool itself.")
	f.Func().Params(jen.Id("h").Op("*").Id(H)).Id("callToolJSON").Params(
		jen.Id("ctx").Qual("context", "Context"), jen.Id("params").Add(params.Clone()), jen.Id("arguments").Qual(jsonPath, "RawMessage"),
	).Params(res.Clone(), jen.Error()).Block(
		jen.If(jen.Id("arguments").Op("==").Nil()).Block(jen.Id("arguments").Op("=").Qual(jsonPath, "RawMessage").Call(jen.Lit("{}"))),
		jen.Switch(jen.Id("params").Dot("Name")).Block(cases...),
		jen.List(jen.Id("a"), jen.Err()).Op(":=").Add(ts("ArgumentsMap")).Call(jen.Id("arguments")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Qual(runtimePath, "NewInvalidParamsError").Call(jen.Lit("tools/call: arguments: ").Op("+").Id("err").Dot("Error").Call()))),
		jen.Id("params").Dot("Arguments").Op("=").Id("a"),
		jen.Return(jen.Id("h").Dot("CallTool").Call(jen.Id("ctx"), jen.Id("params"))),
	)
}

// handlerTail emits the rest of H: how it reports invalid arguments and
// failures, and builds results.
func (e *emitter) handlerTail(H string) {
	f := e.f
	r := e.t.rev

	// invalid: how this revision reports arguments its schema rejects.
	invalidDoc := []string{
		"invalid reports arguments the input schema rejects as a tool execution",
		"error (isError: true), so the model can correct them: server/tools.mdx of",
		"revision " + r.date + ", \"Error Handling\", lists input validation errors",
		"among tool execution errors (SEP-1303). The text names the JSON pointer",
		"from the params, e.g. /arguments/ms.",
	}
	invalidBody := []jen.Code{
		jen.Id("msg").Op(":=").Lit("invalid arguments for tool ").Op("+").Id("tool").Op("+").Lit(": ").Op("+").Add(ts("ArgumentsText")).Call(jen.Err()),
	}
	if r.argsAsToolErrors {
		invalidBody = append(invalidBody, jen.Return(jen.Id("h").Dot("result").Call(jen.Nil(), jen.Id("msg"), jen.True())))
	} else {
		invalidDoc = []string{
			"invalid reports arguments the input schema rejects as a protocol error",
			"(-32602, invalid params): server/tools.mdx of revision " + r.date + ",",
			"\"Error Handling\", lists invalid arguments among protocol errors (from",
			"2025-11-25 on they are tool execution errors). The message names the",
			"JSON pointer from the params, e.g. /arguments/ms.",
		}
		invalidBody = append(invalidBody, jen.Return(jen.Nil(), jen.Qual(runtimePath, "NewInvalidParamsError").Call(jen.Id("msg"))))
	}
	for _, l := range invalidDoc {
		f.Comment(l)
	}
	f.Func().Params(jen.Id("h").Op("*").Id(H)).Id("invalid").Params(jen.Id("tool").String(), jen.Err().Error()).Params(
		jen.Op("*").Add(e.mcp("CallToolResult")), jen.Error()).Block(invalidBody...)

	f.Comment("failed answers an error from a tool method: an *ExecutionError becomes a")
	f.Comment("result with isError: true; anything else goes to the runtime unchanged")
	f.Comment("(a cancellation cause is dropped, a *jsonrpc2.Error sent as it is, other")
	f.Comment("errors become -32603).")
	f.Func().Params(jen.Id("h").Op("*").Id(H)).Id("failed").Params(jen.Err().Error()).Params(
		jen.Op("*").Add(e.mcp("CallToolResult")), jen.Error()).Block(
		jen.Var().Id("ee").Op("*").Id("ExecutionError"),
		jen.If(jen.Qual("errors", "As").Call(jen.Err(), jen.Op("&").Id("ee"))).Block(
			jen.Return(jen.Id("h").Dot("result").Call(jen.Nil(), jen.Id("ee").Dot("Message"), jen.True()))),
		jen.Return(jen.Nil(), jen.Err()),
	)

	resultType := "false"
	if r.modern {
		resultType = "true"
	}
	if r.modern {
		// The modern bindings' structuredContent is raw JSON, so the result
		// is built as it is rather than written as JSON and decoded again
		// (six allocations and a scan per call less).
		textResult := "tvTextResult" + strings.TrimPrefix(e.t.alias, "mcp")
		if e.t.imp == e.targets[0].imp {
			textResult = "tvTextResult"
		}
		f.Commentf("%s is a CallToolResult of one text block, allocated as one: the", textResult)
		f.Comment("result points into it.")
		f.Type().Id(textResult).Struct(
			jen.Id("res").Add(e.mcp("CallToolResult")),
			jen.Id("text").Add(e.mcp("TextContent")),
			jen.Id("blocks").Index(jen.Lit(1)).Add(e.mcp("ContentBlock")),
		)
		f.Comment("result is the bindings' CallToolResult of one text block and, when not nil,")
		f.Comment("the structured content (JSON encoding/json wrote: valid and compact).")
		f.Func().Params(jen.Id("h").Op("*").Id(H)).Id("result").Params(
			jen.Id("structured").Index().Byte(), jen.Id("text").String(), jen.Id("isError").Bool()).Params(
			jen.Op("*").Add(e.mcp("CallToolResult")), jen.Error()).Block(
			jen.Id("r").Op(":=").Op("&").Id(textResult).Values(),
			jen.Id("r").Dot("text").Dot("Text").Op("=").Id("text"),
			jen.Id("r").Dot("blocks").Index(jen.Lit(0)).Op("=").Op("&").Id("r").Dot("text"),
			jen.Id("r").Dot("res").Dot("Content").Op("=").Id("r").Dot("blocks").Index(jen.Empty(), jen.Empty()),
			jen.Id("r").Dot("res").Dot("ResultType").Op("=").Lit("complete"),
			jen.Id("r").Dot("res").Dot("StructuredContent").Op("=").Id("structured"),
			jen.If(jen.Id("isError")).Block(
				jen.Id("t").Op(":=").True(),
				jen.Id("r").Dot("res").Dot("IsError").Op("=").Op("&").Id("t"),
			),
			jen.Return(jen.Op("&").Id("r").Dot("res"), jen.Nil()),
		)
		return
	}
	f.Comment("result decodes the JSON toolsupport.ResultJSON writes into the bindings' CallToolResult,")
	f.Comment("so the bindings' own decoder checks it (directly: the JSON is valid by construction,")
	f.Comment("and json.Unmarshal would only scan it once more per call).")
	f.Func().Params(jen.Id("h").Op("*").Id(H)).Id("result").Params(
		jen.Id("structured").Index().Byte(), jen.Id("text").String(), jen.Id("isError").Bool()).Params(
		jen.Op("*").Add(e.mcp("CallToolResult")), jen.Error()).Block(
		jen.Var().Id("res").Add(e.mcp("CallToolResult")),
		jen.If(jen.Err().Op(":=").Id("res").Dot("UnmarshalJSON").Call(
			ts("ResultJSON").Call(jen.Id("structured"), jen.Id("text"), jen.Id("isError"), jen.Id(resultType))),
			jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Op("&").Id("res"), jen.Nil()),
	)
}

// caller emits Caller: the Tools interface implemented by calls to a
// server of the primary bindings, so a client uses the same typed
// arguments and results.
func (e *emitter) caller() {
	f := e.f
	f.Comment("ToolCaller is what Caller calls: the bindings' Server (and so their")
	f.Comment("ServerCaller, a client's view of a server), or a Handler.")
	f.Type().Id("ToolCaller").Interface(
		jen.Id("CallTool").Params(jen.Qual("context", "Context"), jen.Op("*").Add(e.mcp("CallToolRequestParams"))).
			Params(jen.Op("*").Add(e.mcp("CallToolResult")), jen.Error()),
	)
	f.Comment("Caller implements Tools by calling the tools of a server: a client's")
	f.Comment("typed view. A result with isError: true is returned as an")
	f.Comment("*ExecutionError; structured content is validated against the tool's")
	f.Comment("output schema before it is returned.")
	f.Type().Id("Caller").Struct(jen.Id("server").Id("ToolCaller"))
	f.Comment("NewCaller returns a Caller calling server, e.g.")
	f.Comment("NewCaller(mcp.NewServerCaller(conn)).")
	f.Func().Id("NewCaller").Params(jen.Id("server").Id("ToolCaller")).Op("*").Id("Caller").Block(
		jen.Return(jen.Op("&").Id("Caller").Values(jen.Dict{jen.Id("server"): jen.Id("server")})))
	jsonCalls := false
	for _, t := range e.tools {
		res := e.mcp("CallToolResult")
		if t.result != nil {
			res = jen.Id(t.result.goName)
		}
		var body []jen.Code
		var checks []jen.Code
		rawChecks(t.args, nil, &checks)
		asJSON := encodable(t.args) && len(checks) == 0
		if asJSON {
			// Written as JSON, sent by callJSON: no map of members between.
			jsonCalls = true
			body = append(body,
				jen.Id("o").Op(":=").Add(ts("NewObject")).Call(),
				jen.Defer().Id("o").Dot("Free").Call(),
				jen.If(jen.Err().Op(":=").Id(e.argsEncoder(t.args)).Call(jen.Id("o"), jen.Id("args")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
				jen.List(jen.Id("res"), jen.Err()).Op(":=").Id("c").Dot("callJSON").Call(jen.Id("ctx"), jen.Id("Tool"+t.goName), jen.Id("o").Dot("JSON").Call()),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			)
		} else {
			body = append(body,
				jen.List(jen.Id("a"), jen.Err()).Op(":=").Add(ts("ArgumentsOf")).Call(jen.Id("args")),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())))
		}
		if len(checks) > 0 {
			// Values bound to json.RawMessage are checked against the
			// server's schema before they are sent (the typed ones are
			// what their Go types allow).
			e.next++
			id := fmt.Sprintf("tvChecks%d", e.next)
			f.Commentf("%s are the raw-JSON values among the arguments of the tool %q", id, t.name)
			f.Comment("and the fragments of its published inputSchema they must match.")
			f.Var().Id(id).Op("=").Index().Add(ts("RawCheck")).Values(checks...)
			body = append(body, jen.If(jen.Err().Op(":=").Add(ts("CheckArguments")).Call(jen.Id("a"), jen.Id(id)), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Err())))
		}
		if !asJSON {
			body = append(body,
				jen.List(jen.Id("res"), jen.Err()).Op(":=").Id("c").Dot("server").Dot("CallTool").Call(jen.Id("ctx"),
					jen.Op("&").Add(e.mcp("CallToolRequestParams")).Values(jen.Dict{jen.Id("Name"): jen.Id("Tool" + t.goName), jen.Id("Arguments"): jen.Id("a")})),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			)
		}
		if t.result != nil {
			typed := ts("TypedResult").Call(jen.Id("Tool"+t.goName), jen.Id("res"), jen.Id("Decode"+t.result.goName))
			if e.t.rev.modern {
				// The bindings' structuredContent is raw JSON: read it where it
				// is rather than encoding the whole result again.
				typed = ts("StructuredResult").Call(jen.Id("Tool"+t.goName), jen.Id("res"),
					jen.Id("res").Dot("IsError"), jen.Id("res").Dot("StructuredContent"), jen.Id("Decode"+t.result.goName))
			}
			body = append(body, jen.Return(typed))
		} else if e.snap != nil {
			// A caller of a server someone else wrote: an isError result is an
			// error to check, as it is for typed results (the result is
			// returned too, for its other content).
			body = append(body,
				jen.If(jen.Id("res").Dot("IsError").Op("!=").Nil().Op("&&").Op("*").Id("res").Dot("IsError")).Block(
					jen.Return(jen.Id("res"), jen.Id("executionError").Call(jen.Id("res")))),
				jen.Return(jen.Id("res"), jen.Nil()))
		} else {
			body = append(body, jen.Return(jen.Id("res"), jen.Nil()))
		}
		f.Commentf("%s calls the tool %q.", t.goName, t.name)
		f.Func().Params(jen.Id("c").Op("*").Id("Caller")).Id(t.goName).Params(
			jen.Id("ctx").Qual("context", "Context"), jen.Id("args").Op("*").Id(t.args.goName),
		).Params(jen.Op("*").Add(res), jen.Error()).Block(body...)
	}
	if jsonCalls {
		e.callJSON()
	}
}

// callJSON emits Caller.callJSON, which sends a tool's arguments written as
// JSON through the bindings' CallToolJSON when Caller calls the bindings'
// own ClientSession or ServerCaller, and as CallTool's map otherwise.
func (e *emitter) callJSON() {
	f := e.f
	res := jen.Op("*").Add(e.mcp("CallToolResult"))
	f.Comment("toolJSONCaller is the bindings' ServerCaller.CallToolJSON (bindings")
	f.Comment("generated before it have only CallTool).")
	f.Type().Id("toolJSONCaller").Interface(
		jen.Id("CallToolJSON").Params(jen.Qual("context", "Context"), jen.String(), jen.Qual(jsonPath, "RawMessage")).Params(res, jen.Error()))
	f.Comment("callJSON calls the tool name with its arguments object args. Calling the")
	f.Comment("bindings' own ClientSession or ServerCaller, it sends args as they are")
	f.Comment("(CallToolJSON); any other ToolCaller (a type embedding one may have its")
	f.Comment("own CallTool, which CallToolJSON would bypass) gets CallTool with the")
	f.Comment("arguments as a map.")
	f.Func().Params(jen.Id("c").Op("*").Id("Caller")).Id("callJSON").Params(
		jen.Id("ctx").Qual("context", "Context"), jen.Id("name").String(), jen.Id("args").Qual(jsonPath, "RawMessage"),
	).Params(res, jen.Error()).Block(
		jen.Switch(jen.Id("c").Dot("server").Assert(jen.Type())).Block(
			jen.Case(jen.Op("*").Add(e.mcp("ClientSession")), jen.Op("*").Add(e.mcp("ServerCaller"))).Block(
				jen.If(jen.List(jen.Id("j"), jen.Id("ok")).Op(":=").Id("c").Dot("server").Assert(jen.Id("toolJSONCaller")), jen.Id("ok")).Block(
					jen.Return(jen.Id("j").Dot("CallToolJSON").Call(jen.Id("ctx"), jen.Id("name"), jen.Id("args")))))),
		jen.List(jen.Id("a"), jen.Err()).Op(":=").Add(ts("ArgumentsMap")).Call(jen.Id("args")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("c").Dot("server").Dot("CallTool").Call(jen.Id("ctx"),
			jen.Op("&").Add(e.mcp("CallToolRequestParams")).Values(jen.Dict{jen.Id("Name"): jen.Id("name"), jen.Id("Arguments"): jen.Id("a")}))),
	)
}

// bindArguments is the statement binding the arguments of a call of t:
// with the fast binder first when the input schema has one.
func (e *emitter) bindArguments(t *tool) jen.Code {
	args := jen.Id("params").Dot("Arguments")
	call := ts("BindArguments").Call(args, jen.Id(t.args.fn))
	if t.args.fast != "" {
		call = ts("BindArgumentsFast").Call(args, jen.Id("fastArgs"+t.args.goName), jen.Id(t.args.fn))
	}
	return jen.List(jen.Id("args"), jen.Err()).Op(":=").Add(call)
}

// checkResult is the statement encoding and checking t's typed result:
// with the fast binder first when the output schema has one.
func (e *emitter) checkResult(t *tool) jen.Code {
	call := ts("CheckResult").Call(jen.Id("res"), jen.Id(t.result.fn))
	if t.result.fast != "" {
		call = ts("CheckResultFast").Call(jen.Id("res"), jen.Id(t.result.fast), jen.Id(t.result.fn))
	}
	return jen.List(jen.Id("out"), jen.Id("text"), jen.Err()).Op(":=").Add(call)
}
