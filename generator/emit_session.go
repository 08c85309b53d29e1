package generator

import (
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/schema"
)

// SessionPath is the import path of the lifecycle runtime.
const SessionPath = "github.com/mcpgen/mcpgen/runtime/session"

func init() { register("session.go", emitSession) }

// emitSession writes session.go: the revision as data for runtime/session
// (Revision), and the thin one-call entry points over it: NewServer,
// Serve, Connect with its Session, and the handler helpers that need the
// revision's types (Progress, Ask… for input requests). Result helpers
// are in results.go.
func emitSession(g *gen, f *jen.File) (bool, error) {
	f.ImportName(SessionPath, "session")
	ses := func(n string) *jen.Statement { return jen.Qual(SessionPath, n) }
	rt := func(n string) *jen.Statement { return jen.Qual(RuntimePath, n) }
	modern := g.method("initialize") == nil

	serverMethods, serverCaps, cacheable := jen.Dict{}, jen.Dict{}, jen.Dict{}
	for _, me := range g.handled(serverSide) {
		if me.Kind != schema.Request {
			continue
		}
		if d := g.m.Definition(me.Result); d != nil && hasProperty(g.resolve(d.Type).Properties, "cacheScope") {
			cacheable[jen.Lit(me.Name)] = jen.True()
		}
		serverMethods[jen.Lit(me.Name)] = jen.Lit(methodBase(me))
		if c := g.capabilityOf(me.Name, "ServerCapabilities"); c != "" {
			serverCaps[jen.Lit(me.Name)] = jen.Lit(c)
		}
	}
	clientMethods := jen.Dict{}
	askable := g.handled(clientSide)
	inputs := g.handled(inputSide)
	for _, me := range append(askable, inputs...) {
		if me.Kind == schema.Request {
			clientMethods[jen.Lit(me.Name)] = jen.Lit(methodBase(me))
		}
	}

	f.Commentf("Revision returns revision %s as the data runtime/session works from: the", g.m.Revision)
	if modern {
		f.Comment("version, its era (modern: no initialize, per-request _meta), the cancellation")
	} else {
		f.Comment("version, its era (legacy: initialize opens the session), the cancellation")
	}
	f.Comment("Policy, and which Server methods declare which capability.")
	revDict := jen.Dict{
		jen.Id("Version"):          jen.Lit(g.m.Revision),
		jen.Id("Modern"):           jen.Lit(modern),
		jen.Id("Policy"):           jen.Id("Policy"),
		jen.Id("ServerMethods"):    jen.Map(jen.String()).String().Values(serverMethods),
		jen.Id("ClientMethods"):    jen.Map(jen.String()).String().Values(clientMethods),
		jen.Id("Capabilities"):     jen.Map(jen.String()).String().Values(serverCaps),
		jen.Id("CacheableResults"): jen.Map(jen.String()).Bool().Values(cacheable),
	}
	for k, v := range revisionFacts(g) { // revision_facts.go
		revDict[k] = v
	}
	f.Func().Id("Revision").Params().Add(ses("Revision")).Block(
		jen.Return(ses("Revision").Values(revDict)),
	)

	f.Comment("Server is the session's server (runtime/session): it serves an implementation to")
	f.Comment("clients over any transport (Serve for one connection, Accept for Streamable HTTP).")
	f.Type().Id("Server").Op("=").Add(ses("Server"))

	f.Comment("NewServer returns a server for impl, which implements the …Handler interfaces")
	f.Comment("(CallToolHandler, ListToolsHandler, …) of the methods it serves: RegisterServer")
	f.Comment("registers exactly those, and the server declares their capabilities, plus")
	f.Comment("logging and session.WithCapability's. The session answers the lifecycle")
	f.Comment("(initialize, ping, notifications/initialized, logging/setLevel, and")
	f.Comment("server/discover for modern revisions) itself, whatever impl has; replace those")
	f.Comment("answers with session.WithHandler or session.WithInterceptors. This revision's")
	f.Comment("Policy applies to every connection. Add session.WithLegacy(mcp20251125.Revision(),")
	f.Comment("…) to serve older clients with the same handlers.")
	f.Func().Id("NewServer").Params(
		jen.Id("info").Add(ses("Implementation")), jen.Id("impl").Any(), jen.Id("opts").Op("...").Add(ses("ServerOption")),
	).Op("*").Id("Server").Block(
		jen.Return(ses("NewServer").Call(jen.Id("info"), jen.Id("Revision").Call(),
			jen.Func().Params(jen.Id("c").Op("*").Add(rt("Conn"))).Index().String().Block(jen.Return(jen.Id("RegisterServer").Call(jen.Id("c"), jen.Id("impl")))),
			jen.Id("opts").Op("...")),
		),
	)

	f.Comment("Serve serves impl on one connection over t (for stdio:")
	f.Comment("jsonrpc2.NewStdioTransport(os.Stdin, os.Stdout, jsonrpc2.StdioOptions{})) until")
	f.Comment("the client goes away or ctx ends. It is NewServer(info, impl, opts...).Serve.")
	f.Comment("A stdio server's main wants NewServer(info, impl, opts...).ServeStdio(ctx,")
	f.Comment("grace) instead: stdin and stdout, SIGINT and SIGTERM, and a bound on the wait")
	f.Comment("for handlers at shutdown.")
	f.Func().Id("Serve").Params(
		jen.Id("ctx").Qual("context", "Context"), jen.Id("t").Add(rt("Transport")),
		jen.Id("info").Add(ses("Implementation")), jen.Id("impl").Any(), jen.Id("opts").Op("...").Add(ses("ServerOption")),
	).Error().Block(
		jen.Return(jen.Id("NewServer").Call(jen.Id("info"), jen.Id("impl"), jen.Id("opts").Op("...")).Dot("Serve").Call(jen.Id("ctx"), jen.Id("t"))),
	)

	f.Commentf("ClientSession is a connected client session of revision %s: the negotiated", g.m.Revision)
	f.Comment("version, server info and capabilities (session.ClientSession), and a")
	f.Comment("ServerCaller, so it implements ServerHandler: s.CallTool(ctx, params) is the")
	f.Comment("whole call.")
	f.Type().Id("ClientSession").Struct(
		jen.Op("*").Add(ses("ClientSession")),
		jen.Op("*").Id("ServerCaller"),
	)
	registerClient := func(conn jen.Code) []jen.Code {
		out := []jen.Code{jen.Id("methods").Op(":=").Id("RegisterClient").Call(conn, jen.Id("handler"))}
		if len(inputs) > 0 {
			out = append(out, jen.Id("methods").Op("=").Append(jen.Id("methods"), jen.Id("RegisterInputHandler").Call(conn, jen.Id("handler")).Op("...")))
		}
		return out
	}
	f.Comment("Connect performs the lifecycle over t and returns the session. handler")
	f.Comment("answers the server's requests and notifications through the …Handler")
	f.Comment("interfaces it implements (RegisterClient), which also make the client's")
	f.Comment("capabilities (sampling, elicitation, roots); nil answers none. Where the")
	f.Comment("revision has input requests (MRTR), their handler interfaces answer them too.")
	f.Comment("With session.WithClientLegacy(…) the client detects the server's era. A")
	f.Comment("method of handler that registration would silently skip (see CheckClient) is")
	f.Comment("an error, before anything is sent.")
	checks := []jen.Code{
		jen.If(jen.Err().Op(":=").Id("CheckClient").Call(jen.Id("handler")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
	}
	if len(inputs) > 0 {
		checks = append(checks, jen.If(jen.Err().Op(":=").Id("CheckInputHandler").Call(jen.Id("handler")), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())))
	}
	f.Func().Id("Connect").Params(
		jen.Id("ctx").Qual("context", "Context"), jen.Id("t").Add(rt("Transport")),
		jen.Id("info").Add(ses("Implementation")), jen.Id("handler").Any(), jen.Id("opts").Op("...").Add(ses("ClientOption")),
	).Params(jen.Op("*").Id("ClientSession"), jen.Error()).Block(append(checks,
		jen.Id("cfg").Op(":=").Add(ses("ClientConfig")).Values(jen.Dict{
			jen.Id("Info"):      jen.Id("info"),
			jen.Id("Revisions"): jen.Index().Add(ses("Revision")).Values(jen.Id("Revision").Call()),
		}),
		jen.If(jen.Id("handler").Op("!=").Nil()).Block(
			jen.Id("cfg").Dot("Register").Op("=").Func().Params(jen.Id("c").Op("*").Add(rt("Conn"))).Block(
				append(registerClient(jen.Id("c")), jen.Id("_").Op("=").Id("methods"))...,
			),
			jen.Block(append(registerClient(jen.Nil()), jen.Id("cfg").Dot("Provided").Op("=").Id("methods"))...),
		),
		jen.List(jen.Id("c"), jen.Err()).Op(":=").Add(ses("Connect")).Call(jen.Id("ctx"), jen.Id("t"), jen.Id("cfg"), jen.Id("opts").Op("...")),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Op("&").Id("ClientSession").Values(jen.Dict{
			jen.Id("ClientSession"): jen.Id("c"),
			jen.Id("ServerCaller"):  jen.Id("NewServerCaller").Call(jen.Id("c").Dot("RuntimeConn").Call()),
		}), jen.Nil()),
	)...)

	if g.m.Definition("Implementation") != nil {
		f.Comment("ServerInfo is the server's self-description (initialize's serverInfo, or")
		f.Comment("server/discover's), as this revision's Implementation: members it does not")
		f.Comment("define are kept in Extra. It is a method, not a field, because the session")
		f.Comment("holds the one copy, as sent; s.ClientSession.ServerInfo() is the untyped")
		f.Comment("session.Implementation. If what the server sent does not decode, only Name")
		f.Comment("and Version are set.")
		f.Func().Params(jen.Id("s").Op("*").Id("ClientSession")).Id("ServerInfo").Params().Id("Implementation").Block(
			jen.Var().Id("info").Id("Implementation"),
			jen.If(jen.Id("raw").Op(":=").Id("s").Dot("ClientSession").Dot("ServerInfoJSON").Call(), jen.Len(jen.Id("raw")).Op("==").Lit(0).Op("||").Id("info").Dot("UnmarshalJSON").Call(jen.Id("raw")).Op("!=").Nil()).Block(
				jen.Id("si").Op(":=").Id("s").Dot("ClientSession").Dot("ServerInfo").Call(),
				jen.Id("info").Op("=").Id("Implementation").Values(jen.Dict{jen.Id("Name"): jen.Id("si").Dot("Name"), jen.Id("Version"): jen.Id("si").Dot("Version")}),
			),
			jen.Return(jen.Id("info")),
		)
	}
	if g.m.Definition("ServerCapabilities") != nil {
		f.Comment("ServerCapabilities are the server's capabilities as this revision's")
		f.Comment("ServerCapabilities (nil members: not offered): sess.ServerCapabilities().Tools")
		f.Comment("!= nil means the server has tools. A legacy server's capabilities decode into")
		f.Comment("the same type (members this revision does not define are kept as unknown")
		f.Comment("members). If they do not decode, the result is empty;")
		f.Comment("s.ClientSession.ServerCapabilities() is the JSON as sent.")
		f.Func().Params(jen.Id("s").Op("*").Id("ClientSession")).Id("ServerCapabilities").Params().Op("*").Id("ServerCapabilities").Block(
			jen.Id("caps").Op(":=").New(jen.Id("ServerCapabilities")),
			jen.If(jen.Id("raw").Op(":=").Id("s").Dot("ClientSession").Dot("ServerCapabilities").Call(), jen.Len(jen.Id("raw")).Op(">").Lit(0)).Block(
				jen.If(jen.Id("caps").Dot("UnmarshalJSON").Call(jen.Id("raw")).Op("!=").Nil()).Block(
					jen.Return(jen.New(jen.Id("ServerCapabilities"))),
				),
			),
			jen.Return(jen.Id("caps")),
		)
	}

	if me := g.method("notifications/progress"); me != nil && me.Params != nil && paramsTypeName(me) == "ProgressNotificationParams" {
		hasMessage := hasProperty(g.resolve(me.Params).Properties, "message")
		f.Comment("Progress sends notifications/progress, as a ProgressNotificationParams, for")
		f.Comment("the request a handler's ctx serves (total 0: unknown; message \"\": none), if")
		f.Comment("its client asked for progress; otherwise it does nothing.")
		body := []jen.Code{
			jen.List(jen.Id("tok"), jen.Id("ok")).Op(":=").Add(ses("ProgressToken")).Call(jen.Id("ctx")),
			jen.If(jen.Op("!").Id("ok")).Block(jen.Return(jen.Nil())),
			jen.Id("p").Op(":=").Op("&").Id("ProgressNotificationParams").Values(jen.Dict{
				jen.Id("Progress"): jen.Id("progress"), jen.Id("ProgressToken"): jen.Id("tok"),
			}),
			jen.If(jen.Id("total").Op(">").Lit(0)).Block(jen.Id("p").Dot("Total").Op("=").Op("&").Id("total")),
		}
		if hasMessage {
			body = append(body, jen.If(jen.Id("message").Op("!=").Lit("")).Block(jen.Id("p").Dot("Message").Op("=").Op("&").Id("message")))
		} else {
			body = append(body, jen.Id("_").Op("=").Id("message").Comment("this revision's progress has no message"))
		}
		body = append(body, jen.Return(ses("Notify").Call(jen.Id("ctx"), jen.Id("MethodProgress"), jen.Id("p"))))
		f.Func().Id("Progress").Params(jen.Id("ctx").Qual("context", "Context"), jen.List(jen.Id("progress"), jen.Id("total")).Float64(), jen.Id("message").String()).Error().Block(body...)

		f.Comment("WithProgress is a call option that asks the server for progress on a call")
		f.Comment("and gives f every notifications/progress of that call, as a")
		f.Comment("ProgressNotificationParams, in arrival order, on the calling goroutine:")
		f.Comment("sess.WithCallOptions(WithProgress(f)).CallTool(ctx, params).")
		f.Comment("session.PrintProgress(w) prints them instead.")
		conv := []jen.Code{
			jen.Id("n").Op(":=").Op("&").Id("ProgressNotificationParams").Values(jen.Dict{
				jen.Id("Progress"): jen.Id("p").Dot("Progress"), jen.Id("ProgressToken"): jen.Id("p").Dot("ProgressToken"), jen.Id("Total"): jen.Id("p").Dot("Total"),
			}),
		}
		if hasMessage {
			conv = append(conv, jen.If(jen.Id("p").Dot("Message").Op("!=").Lit("")).Block(
				jen.Id("m").Op(":=").Id("p").Dot("Message"),
				jen.Id("n").Dot("Message").Op("=").Op("&").Id("m"),
			))
		}
		conv = append(conv, jen.Id("f").Call(jen.Id("n")))
		f.Func().Id("WithProgress").Params(jen.Id("f").Func().Params(jen.Op("*").Id("ProgressNotificationParams"))).Add(rt("CallOption")).Block(
			jen.Return(rt("WithProgress").Call(jen.Func().Params(jen.Id("p").Add(rt("ProgressParams"))).Block(conv...))),
		)
	}
	if g.method("notifications/message") != nil {
		f.Comment("Log sends notifications/message for the request a handler's ctx serves, if")
		f.Comment("the client asked for level or a lower one (logging/setLevel, or the")
		f.Comment("request's _meta log level); data is any JSON value.")
		f.Func().Id("Log").Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("level").Id("LoggingLevel"), jen.Id("data").Any()).Error().Block(
			jen.Return(ses("Log").Call(jen.Id("ctx"), jen.String().Parens(jen.Id("level")), jen.Lit(""), jen.Id("data"))),
		)
	}
	for _, me := range append(askable, inputs...) {
		if me.Kind != schema.Request || !strings.Contains("sampling/createMessage elicitation/create roots/list", me.Name) {
			continue
		}
		pname := paramsTypeName(me)
		resType, iface := g.goType(me.Result)
		if iface || pname == "" {
			continue
		}
		pt, _ := g.goType(pname)
		base := methodBase(me)
		f.Commentf("Ask%s asks the client of the request a handler's ctx serves for %q:", base, me.Name)
		f.Comment("an ordinary request to a legacy client (cancelled with the handler's ctx);")
		f.Comment("for a modern client the answer of its retry, or session.ErrInputRequired,")
		f.Comment("which the handler returns so the client is asked (MRTR).")
		f.Func().Id("Ask"+base).Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("params").Add(pt)).Params(resType, jen.Error()).Block(
			jen.Id("out").Op(":=").New(jen.Id(TypeName(me.Result))),
			jen.If(jen.Err().Op(":=").Add(ses("Input")).Call(jen.Id("ctx"), jen.Id(methodConstName(me)), jen.Id("params"), jen.Id("out")), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Err()),
			),
			jen.Return(jen.Id("out"), jen.Nil()),
		)
	}
	if len(inputs) > 0 {
		// The requests a modern server embeds in an InputRequiredResult:
		// Connect registers them on the client's Conn, where MRTR finds
		// them, and where a legacy server's ordinary requests reach them too.
		if _, err := emitSide(g, f, inputSide); err != nil {
			return false, err
		}
	}
	return true, nil
}

// inputSide is the client answering input requests (2026-07-28 MRTR).
var inputSide = side{name: "InputHandler", iface: "InputHandler", role: "client", peer: "server", handles: schema.ServerToClientEmbedded, runtimeID: "SideClient"}

// capabilityOf is the capability that providing method declares: the
// property of the capabilities definition named after the method's first
// path segment ("tools/call" → tools, "completion/complete" → completions).
func (g *gen) capabilityOf(method, capsDef string) string {
	d := g.m.Definition(capsDef)
	if d == nil {
		return ""
	}
	seg, _, _ := strings.Cut(method, "/")
	t := g.resolve(d.Type)
	for _, want := range []string{seg, seg + "s"} {
		for _, p := range t.Properties {
			if p.Name == want {
				return want
			}
		}
	}
	return ""
}

// method returns the model's method called name, or nil.
func (g *gen) method(name string) *schema.Method {
	for _, me := range g.m.Methods {
		if me.Name == name {
			return me
		}
	}
	return nil
}
