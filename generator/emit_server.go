package generator

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/schema"
)

func init() { register("server.go", emitServer) }

// side describes one MCP role for the handler/caller emitter.
type side struct {
	name      string           // "Server" or "Client"
	iface     string           // the full interface: "ServerHandler" or "ClientHandler"
	role      string           // "server" or "client"
	peer      string           // the other role
	handles   schema.Direction // the direction of the messages this side receives
	runtimeID string           // jsonrpc2.SideServer or jsonrpc2.SideClient
}

var (
	serverSide = side{name: "Server", iface: "ServerHandler", role: "server", peer: "client", handles: schema.ClientToServer, runtimeID: "SideServer"}
	clientSide = side{name: "Client", iface: "ClientHandler", role: "client", peer: "server", handles: schema.ServerToClient, runtimeID: "SideClient"}
)

// inputRequired is the resultType value of an InputRequiredResult
// (2026-07-28, ResultType's description); "complete" is every other result's.
const (
	inputRequiredDef   = "InputRequiredResult"
	inputRequiredValue = "input_required"
	completeValue      = "complete"
	createTaskDef      = "CreateTaskResult"
)

func emitServer(g *gen, f *jen.File) (bool, error) { return emitSide(g, f, serverSide) }

// handled lists the methods s receives as JSON-RPC messages, requests first,
// without the notifications the runtime consumes.
func (g *gen) handled(s side) []*schema.Method {
	var out []*schema.Method
	for _, me := range g.m.Methods {
		if hasDirection(me, s.handles) && !g.runtimeHandled(me) {
			out = append(out, me)
		}
	}
	return out
}

// handledByBoth reports whether both the server and the client receive me,
// so that its handler interface (declared once) serves both.
func (g *gen) handledByBoth(me *schema.Method) bool {
	return hasDirection(me, serverSide.handles) && hasDirection(me, clientSide.handles) && !g.runtimeHandled(me)
}

// goType is how a definition's Go type is spelled as a parameter or result:
// a pointer to a struct, or the interface of a union.
func (g *gen) goType(name string) (jen.Code, bool) {
	if g.isInterface(name) {
		return jen.Id(TypeName(name)), true
	}
	return jen.Op("*").Id(TypeName(name)), false
}

// isInterface reports whether the definition (or the inline params type
// named name) is emitted as a sealed interface: a union decoded by a
// strategy other than the method.
func (g *gen) isInterface(name string) bool {
	d := g.m.Definition(name)
	if d == nil {
		return false
	}
	t := g.resolve(d.Type)
	return t != nil && t.Kind == schema.KindUnion && t.Union != nil && t.Union.Strategy != schema.StrategyByMethod
}

// hasResultType reports whether the result definition declares a required
// string member resultType (2026-07-28), which the generated code fills in.
func (g *gen) hasResultType(name string) bool {
	d := g.m.Definition(name)
	if d == nil || d.Type.Kind != schema.KindObject {
		return false
	}
	p := findProperty(d.Type, "resultType")
	return p != nil && p.Required && p.Type.Kind == schema.KindString
}

func hasAlternative(me *schema.Method, def string) bool {
	for _, a := range me.ResultAlternatives {
		if a == def {
			return true
		}
	}
	return false
}

// firstSentence returns the first sentence of a description, on one line.
func firstSentence(desc string) string {
	desc = strings.Join(strings.Fields(desc), " ")
	if i := strings.Index(desc, ". "); i >= 0 {
		desc = desc[:i+1]
	}
	if len(desc) > 200 {
		desc = desc[:200] + "…"
	}
	return desc
}

// emitSide writes one side's handler interfaces (one per method, and the
// full one made of them), its Register function and the caller that
// implements the full interface over a Conn.
func emitSide(g *gen, f *jen.File, s side) (bool, error) {
	methods := g.handled(s)
	iface := s.iface
	register := "Register" + s.name
	caller := s.name + "Caller"
	newCaller := "New" + caller
	if err := g.checkNames(strings.ToLower(s.name)+".go", iface, register, caller, newCaller); err != nil {
		return false, err
	}
	ctx := func() *jen.Statement { return jen.Id("ctx").Qual("context", "Context") }

	// Method names on the interface must be unique.
	seen := map[string]string{}
	for _, me := range methods {
		b := methodBase(me)
		if other, dup := seen[b]; dup {
			return false, fmt.Errorf("%s: %s and %s both become the method %s", strings.ToLower(s.name), other, me.Name, b)
		}
		seen[b] = me.Name
	}

	inputRequired := false
	for _, me := range methods {
		if me.Kind == schema.Request && hasAlternative(me, inputRequiredDef) {
			inputRequired = true
		}
	}

	// signature returns the params and results of a method's Go signature.
	signature := func(me *schema.Method) (params []jen.Code, results []jen.Code) {
		params = []jen.Code{ctx()}
		if p := paramsTypeName(me); p != "" {
			// Spelled with the stable name (an alias where the schema shares
			// the type), so signatures read the same in every revision.
			pt := jen.Op("*").Id(stableParamsName(me))
			if g.isInterface(p) {
				pt = jen.Id(stableParamsName(me))
			}
			params = append(params, jen.Id("params").Add(pt))
		}
		if me.Kind == schema.Request {
			rt, _ := g.goType(me.Result)
			results = []jen.Code{rt, jen.Error()}
		} else {
			results = []jen.Code{jen.Error()}
		}
		return
	}

	// The interface.
	var names []string
	for _, d := range g.m.Definitions {
		names = append(names, d.Name)
	}
	linker := newDocLinker(names)
	var embedded []jen.Code
	for _, me := range methods {
		params, results := signature(me)
		desc := firstSentence(strings.Join(linker.lines(g.m.Definition(me.Definition).Description), " "))
		var doc string
		if me.Kind == schema.Request {
			doc = fmt.Sprintf("%s handles the request %q (%s). %s", methodBase(me), me.Name, me.Definition, desc)
			if hasAlternative(me, inputRequiredDef) {
				doc += " To answer with an InputRequiredResult instead, return an *InputRequiredError."
			}
			if me.TaskAugmentable {
				doc += fmt.Sprintf(" A task-augmented request goes to %sAsTask when the implementation has it (%sTaskHandler).", methodBase(me), methodBase(me))
			}
		} else {
			doc = fmt.Sprintf("%s handles the notification %q (%s); its error is dropped, as notifications have no response. %s", methodBase(me), me.Name, me.Definition, desc)
		}
		name := methodBase(me) + "Handler"
		embedded = append(embedded, jen.Id(name))
		sig := fmt.Sprintf("%#v", jen.Func().Params(params...).Params(results...))
		if prev, ok := g.handlerIfaces[name]; ok {
			if prev != sig {
				return false, fmt.Errorf("%s: %s is declared by both sides with different signatures", strings.ToLower(s.name), name)
			}
			continue // both sides handle it alike: one interface
		}
		if err := g.checkNames(strings.ToLower(s.name)+".go", name); err != nil {
			return false, err
		}
		g.handlerIfaces[name] = sig
		role, reg := s.role, register
		if g.handledByBoth(me) {
			role, reg = "server or client", "RegisterServer or RegisterClient"
		}
		verb := "answers"
		if me.Kind != schema.Request {
			verb = "handles"
		}
		ifaceDoc := fmt.Sprintf("%s is implemented by a %s that %s %q. %s registers it, and the capability that goes with it, if any, is declared; without it ", name, role, verb, me.Name, reg)
		if me.Kind == schema.Request {
			ifaceDoc += "the request is answered -32601 (method not found)."
		} else {
			ifaceDoc += "the notification is dropped."
		}
		if lifecycle["Server"][me.Name] {
			ifaceDoc += " The session (NewServer, Connect) answers it itself, whatever the implementation has: this interface is for a bare jsonrpc2.Conn."
		}
		for _, line := range strings.Split(wrapComment(ifaceDoc), "\n") {
			f.Comment(line)
		}
		var lines []jen.Code
		for _, line := range strings.Split(wrapComment(doc), "\n") {
			lines = append(lines, jen.Comment(line))
		}
		lines = append(lines, jen.Id(methodBase(me)).Params(params...).Params(results...))
		f.Type().Id(name).Interface(lines...)
	}
	f.Commentf("%s is what an MCP %s of revision %s can implement: one method per request and", iface, s.role, g.m.Revision)
	f.Commentf("notification the %s sends it (%s and %s are handled by the runtime),", s.peer, g.m.Facts.CancelledMethod, g.m.Facts.ProgressMethod)
	f.Comment("each the only method of its own …Handler interface. An implementation need not")
	f.Commentf("implement all of it: %s registers the methods whose handler interface it", register)
	f.Comment("satisfies, and the capabilities follow them. Assert the ones you mean to serve,")
	if s.name == "Client" {
		f.Comment("e.g. var _ CreateMessageHandler = (*MyClient)(nil), so a signature that drifts")
	} else {
		f.Comment("e.g. var _ CallToolHandler = (*MyServer)(nil), so a signature that drifts")
	}
	f.Comment("fails to compile instead of silently serving nothing.")
	f.Comment("Every method's ctx ends when the request is cancelled, by the peer's")
	f.Comment("notifications/cancelled, a timeout or the connection closing; context.Cause(ctx)")
	f.Comment("is then a *jsonrpc2.CancelError saying why, and the return values are dropped.")
	if len(methods) == 0 {
		f.Commentf("In revision %s the %s receives no JSON-RPC requests or notifications.", g.m.Revision, s.role)
	}
	f.Type().Id(iface).Interface(embedded...)

	// Task handlers (2025-11-25).
	for _, me := range methods {
		if me.Kind != schema.Request || !me.TaskAugmentable || !hasAlternative(me, createTaskDef) {
			continue
		}
		params, _ := signature(me)
		name := methodBase(me) + "TaskHandler"
		if err := g.checkNames(strings.ToLower(s.name)+".go", name); err != nil {
			return false, err
		}
		f.Commentf("%s is implemented by a %s that runs %q as a task when the request", name, s.role, me.Name)
		f.Commentf("carries the %q member: %sAsTask answers with a CreateTaskResult, and the", g.m.Facts.TaskMember, methodBase(me))
		f.Commentf("task is then driven with the tasks/* methods (and cancelled with %s, never", g.m.Facts.TaskCancelMethod)
		f.Commentf("with notifications/cancelled). Without it, %s handles the request and the", methodBase(me))
		f.Comment("task member is ignored.")
		f.Type().Id(name).Interface(
			jen.Commentf("%sAsTask starts %q as a task and answers with its CreateTaskResult.", methodBase(me), me.Name),
			jen.Id(methodBase(me)+"AsTask").Params(params...).Params(jen.Op("*").Id(TypeName(createTaskDef)), jen.Error()),
		)
	}

	// InputRequiredError (2026-07-28), declared once, in server.go.
	if inputRequired && s.name == "Server" {
		if err := g.checkNames("server.go", "InputRequiredError"); err != nil {
			return false, err
		}
		f.Comment("InputRequiredError is how a request that may need more input from the client")
		f.Comment("(tools/call, prompts/get, resources/read) answers with an InputRequiredResult")
		f.Comment("instead of its complete result. A Server method returns it as its error and")
		f.Comment("the result is sent as the response (with resultType \"" + inputRequiredValue + "\"); a")
		f.Comment("ServerCaller returns it, with a nil result, when the server answered so: fulfil")
		f.Comment("Result.InputRequests and call again with the InputResponses and RequestState.")
		f.Type().Id("InputRequiredError").Struct(
			jen.Comment("Result is the server's InputRequiredResult."),
			jen.Id("Result").Op("*").Id(TypeName(inputRequiredDef)),
		)
		f.Comment("Error says that input is required.")
		f.Func().Params(jen.Id("e").Op("*").Id("InputRequiredError")).Id("Error").Params().String().Block(
			jen.Return(jen.Lit("input required: the server answered with an InputRequiredResult")),
		)
	}

	emitRegister(g, f, s, methods, register)
	emitCaller(g, f, s, methods, caller, newCaller, iface)
	return true, nil
}

// emitRegister writes RegisterServer/RegisterClient.
func emitRegister(g *gen, f *jen.File, s side, methods []*schema.Method, register string) {
	rt := func(n string) *jen.Statement { return jen.Qual(RuntimePath, n) }
	var stmts []jen.Code
	for _, me := range methods {
		var inner []jen.Code
		base := methodBase(me)
		pname := paramsTypeName(me)
		decode := []jen.Code{}
		args := []jen.Code{jen.Id("ctx")}
		jsonArgs := s.name == "Server" && argumentsAsJSON(g, me) && !g.isInterface(pname)
		if pname != "" {
			var rawExpr *jen.Statement
			if me.Kind == schema.Request {
				rawExpr = jen.Id("req").Dot("Params")
			} else {
				rawExpr = jen.Id("n").Dot("Params")
			}
			if g.isInterface(pname) {
				decode = append(decode,
					jen.Var().Id("params").Id(TypeName(pname)),
					withMissing(me, jen.If(jen.Op("!").Id("rpcAbsent").Call(rawExpr)).Block(
						jen.Var().Err().Error(),
						jen.If(jen.List(jen.Id("params"), jen.Err()).Op("=").Id("Decode"+TypeName(pname)).Call(rawExpr), jen.Err().Op("!=").Nil()).Block(
							invalidParams(me),
						),
					)),
				)
			} else if jsonArgs {
				// A handler binding the arguments from their JSON (callJSON)
				// gets them as the request's bytes, with no map decoded; a
				// task-augmented request goes to the task handler as ever.
				asJSON := jen.Id("callJSON").Op("!=").Nil()
				if me.TaskAugmentable {
					asJSON = asJSON.Op("&&").Op("!").Id("rpcHasMember").Call(rawExpr, jen.Lit(g.m.Facts.TaskMember))
				}
				decode = append(decode,
					jen.Id("params").Op(":=").New(jen.Id(TypeName(pname))),
					jen.Var().Id("arguments").Qual("encoding/json", "RawMessage"),
					jen.Id("asJSON").Op(":=").Add(asJSON),
					withMissing(me, jen.If(jen.Op("!").Id("rpcAbsent").Call(rawExpr)).Block(
						jen.Var().Err().Error(),
						jen.If(jen.Id("asJSON")).Block(
							jen.Err().Op("=").Id("params").Dot("unmarshalJSONArguments").Call(rawExpr, jen.Op("&").Id("arguments")),
						).Else().Block(
							jen.Err().Op("=").Id("params").Dot("UnmarshalJSON").Call(rawExpr),
						),
						jen.If(jen.Err().Op("!=").Nil()).Block(invalidParams(me)),
					)),
				)
			} else {
				decode = append(decode,
					jen.Id("params").Op(":=").New(jen.Id(TypeName(pname))),
					withMissing(me, jen.If(jen.Op("!").Id("rpcAbsent").Call(rawExpr)).Block(
						// The runtime validated the message: the type's own decoder
						// is spared encoding/json's second scan and reflection.
						jen.If(jen.Err().Op(":=").Id("params").Dot("UnmarshalJSON").Call(rawExpr), jen.Err().Op("!=").Nil()).Block(
							invalidParams(me),
						),
					)),
				)
			}
			args = append(args, jen.Id("params"))
		}
		if me.Kind == schema.Notification {
			// A notification has nowhere to report bad params: it is dropped.
			body := append(decode, jen.Id("_").Op("=").Id("h").Dot(base).Call(args...))
			inner = append(inner, jen.Id("conn").Dot("HandleNotification").Call(jen.Id(methodConstName(me)),
				jen.Func().Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("n").Op("*").Add(rt("Notification"))).Block(body...)))
			stmts = append(stmts, registerIf(me, inner))
			continue
		}
		body := decode
		if me.TaskAugmentable && hasAlternative(me, createTaskDef) {
			body = append(body,
				jen.If(jen.List(jen.Id("th"), jen.Id("ok")).Op(":=").Id("impl").Op(".").Parens(jen.Id(base+"TaskHandler")), jen.Id("ok").Op("&&").Id("rpcHasMember").Call(jen.Id("req").Dot("Params"), jen.Lit(g.m.Facts.TaskMember))).Block(
					jen.List(jen.Id("res"), jen.Err()).Op(":=").Id("th").Dot(base+"AsTask").Call(args...),
					jen.Return(jen.Id("rpcResult").Call(jen.Id("res"), jen.Err())),
				),
			)
		}
		if jsonArgs {
			resType, _ := g.goType(me.Result)
			body = append(body,
				jen.Var().Id("res").Add(resType),
				jen.Var().Err().Error(),
				jen.If(jen.Id("asJSON")).Block(
					jen.List(jen.Id("res"), jen.Err()).Op("=").Id("callJSON").Call(jen.Id("ctx"), jen.Id("params"), jen.Id("arguments")),
				).Else().Block(
					jen.List(jen.Id("res"), jen.Err()).Op("=").Id("h").Dot(base).Call(args...),
				))
		} else {
			body = append(body, jen.List(jen.Id("res"), jen.Err()).Op(":=").Id("h").Dot(base).Call(args...))
		}
		if hasAlternative(me, inputRequiredDef) {
			// ire is declared only when there is an error: errors.As makes
			// it escape, which would cost an allocation on every call.
			body = append(body,
				jen.If(jen.Err().Op("!=").Nil()).Block(
					jen.Var().Id("ire").Op("*").Id("InputRequiredError"),
					jen.If(jen.Qual("errors", "As").Call(jen.Err(), jen.Op("&").Id("ire")).Op("&&").Id("ire").Dot("Result").Op("!=").Nil()).Block(
						jen.If(jen.Id("ire").Dot("Result").Dot("ResultType").Op("==").Lit("")).Block(
							jen.Id("ire").Dot("Result").Dot("ResultType").Op("=").Lit(inputRequiredValue),
						),
						jen.Return(jen.Id("ire").Dot("Result"), jen.Nil()),
					),
				),
			)
		}
		if g.hasResultType(me.Result) && !g.isInterface(me.Result) {
			body = append(body,
				jen.If(jen.Id("res").Op("!=").Nil().Op("&&").Id("res").Dot("ResultType").Op("==").Lit("")).Block(
					jen.Id("res").Dot("ResultType").Op("=").Lit(completeValue),
				),
			)
		}
		if g.isInterface(me.Result) {
			body = append(body, jen.Return(jen.Id("rpcResultOf").Call(jen.Id("res"), jen.Err())))
		} else {
			body = append(body, jen.Return(jen.Id("rpcResult").Call(jen.Id("res"), jen.Err())))
		}
		if me.TaskAugmentable && hasAlternative(me, createTaskDef) {
			// Only an implementation that runs the method as a task makes
			// its task-augmented requests tasks; for any other, tasks.mdx
			// says the task member is ignored, so the request stays
			// cancellable with the notification.
			inner = append(inner, jen.If(jen.List(jen.Id("_"), jen.Id("ok")).Op(":=").Id("impl").Op(".").Parens(jen.Id(base+"TaskHandler")), jen.Id("ok")).Block(
				jen.Id("conn").Dot("AcceptTasks").Call(jen.Id(methodConstName(me))),
			))
		}
		if jsonArgs {
			resType, _ := g.goType(me.Result)
			pt, _ := g.goType(pname)
			fn := jen.Func().Params(jen.Qual("context", "Context"), pt, jen.Qual("encoding/json", "RawMessage")).Params(resType, jen.Error())
			f.Commentf("callToolJSONHandler is a %sHandler that binds the arguments of %q", base, me.Name)
			f.Comment("from their JSON itself (the Handler mcpgen tools generates): the function")
			f.Comment("CallToolJSONFor(impl) returns, when not nil, answers the call with the params")
			f.Comment("decoded without their arguments and the arguments object as the request's")
			f.Comment("bytes, so no map of its members is built.")
			f.Type().Id("callToolJSONHandler").Interface(jen.Id("CallToolJSONFor").Params(jen.Id("impl").Any()).Add(fn.Clone()))
			inner = append(inner,
				jen.Var().Id("callJSON").Add(fn),
				jen.If(jen.List(jen.Id("j"), jen.Id("ok")).Op(":=").Id("impl").Op(".").Parens(jen.Id("callToolJSONHandler")), jen.Id("ok")).Block(
					jen.Id("callJSON").Op("=").Id("j").Dot("CallToolJSONFor").Call(jen.Id("impl"))))
		}
		inner = append(inner, jen.Id("conn").Dot("Handle").Call(jen.Id(methodConstName(me)),
			jen.Func().Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("req").Op("*").Add(rt("Request"))).Params(jen.Any(), jen.Error()).Block(body...)))
		stmts = append(stmts, registerIf(me, inner))
	}
	// The …Handler interfaces registration looks for, for the check.
	var types []jen.Code
	for _, me := range methods {
		types = append(types, jen.Qual("reflect", "TypeFor").Types(jen.Id(methodBase(me)+"Handler")).Call())
		if me.Kind == schema.Request && me.TaskAugmentable && hasAlternative(me, createTaskDef) {
			types = append(types, jen.Qual("reflect", "TypeFor").Types(jen.Id(methodBase(me)+"TaskHandler")).Call())
		}
	}
	list := lowerFirst(register) + "Handlers"
	f.Commentf("%s are the …Handler interfaces %s looks for in impl.", list, register)
	f.Var().Id(list).Op("=").Index().Qual("reflect", "Type").Values(types...)
	f.Commentf("%s reports the methods of impl that %s would silently skip", checkName(register), register)
	f.Comment("(genimpl.CheckHandlers): named like a method of one of its …Handler interfaces,")
	f.Comment("case aside, but with another signature, or on the pointer of an impl passed by")
	f.Comment("value. Nil when there is none.")
	f.Func().Id(checkName(register)).Params(jen.Id("impl").Any()).Error().Block(
		jen.Return(jen.Qual(genimplPkg, "CheckHandlers").Call(jen.Lit(g.opts.Package+"."+register), jen.Id("impl"), jen.Id(list))),
	)
	f.Commentf("%s registers on conn the handlers of the methods impl implements: each", register)
	f.Commentf("request and notification the %s receives in revision %s whose …Handler", s.role, g.m.Revision)
	f.Comment("interface impl satisfies (a type assertion: nothing else about impl counts). It")
	f.Comment("returns those methods; with a nil conn it registers nothing and only lists them,")
	f.Comment("which is how the session learns the capabilities before any connection. Params")
	f.Comment("are decoded into their typed form (a request whose params do not decode gets")
	f.Comment("-32602 with the reason; a notification whose params do not decode is dropped)")
	f.Comment("and results are encoded back. Create conn with")
	f.Comment("jsonrpc2.WithPolicy(Policy(jsonrpc2." + s.runtimeID + ")) so the revision's cancellation")
	f.Comment("rules apply; call it before conn.Start.")
	if g.anyResultType() && s.name == "Server" {
		f.Comment("A result returned with an empty ResultType is sent as \"" + completeValue + "\".")
	}
	f.Comment("A method of impl named like a method of those interfaces (case aside) that does")
	f.Comment("not satisfy its interface, which would register nothing, makes it panic with")
	f.Commentf("the error of %s, naming the signature found and the one expected: the method", checkName(register))
	f.Comment("set is fixed when the program is compiled, so this is a programming error every")
	f.Comment("run meets at once (NewServer calls it at construction), like a conflicting")
	f.Comment("pattern given to net/http.ServeMux, not a condition to handle at run time.")
	stmts = append([]jen.Code{
		jen.If(jen.Err().Op(":=").Id(checkName(register)).Call(jen.Id("impl")), jen.Err().Op("!=").Nil()).Block(jen.Panic(jen.Err())),
		jen.Var().Id("methods").Index().String(),
	}, stmts...)
	stmts = append(stmts, jen.Return(jen.Id("methods")))
	f.Func().Id(register).Params(jen.Id("conn").Op("*").Add(rt("Conn")), jen.Id("impl").Any()).Index().String().Block(stmts...)
	if s.name == "Server" {
		emitRegisterHelpers(f)
	}
}

// registerIf wraps one method's registration in the type assertion on its
// handler interface, and lists the method.
func registerIf(me *schema.Method, register []jen.Code) jen.Code {
	return jen.If(jen.List(jen.Id("h"), jen.Id("ok")).Op(":=").Id("impl").Assert(jen.Id(methodBase(me)+"Handler")), jen.Id("ok")).Block(
		jen.Id("methods").Op("=").Append(jen.Id("methods"), jen.Id(methodConstName(me))),
		jen.If(jen.Id("conn").Op("!=").Nil()).Block(register...),
	)
}

// withMissing adds the "params are required" branch to a params decode.
func withMissing(me *schema.Method, decode *jen.Statement) *jen.Statement {
	if !me.ParamsRequired {
		return decode
	}
	return decode.Else().Block(missingParams(me))
}

func invalidParams(me *schema.Method) jen.Code {
	if me.Kind == schema.Notification {
		return jen.Return()
	}
	return jen.Return(jen.Nil(), jen.Qual(RuntimePath, "NewInvalidParamsError").Call(jen.Lit(me.Name+": ").Op("+").Err().Dot("Error").Call()))
}

func missingParams(me *schema.Method) jen.Code {
	if me.Kind == schema.Notification {
		return jen.Return()
	}
	return jen.Return(jen.Nil(), jen.Qual(RuntimePath, "NewInvalidParamsError").Call(jen.Lit(me.Name+": params are required")))
}

// emitRegisterHelpers writes the unexported helpers the Register and caller
// functions share (once per package, in server.go).
func emitRegisterHelpers(f *jen.File) {
	f.Comment("rpcAbsent reports whether a params member is absent or null.")
	f.Func().Id("rpcAbsent").Params(jen.Id("raw").Qual("encoding/json", "RawMessage")).Bool().Block(
		jen.Id("raw").Op("=").Qual("bytes", "TrimSpace").Call(jen.Id("raw")),
		jen.Return(jen.Len(jen.Id("raw")).Op("==").Lit(0).Op("||").String().Parens(jen.Id("raw")).Op("==").Lit("null")),
	)
	f.Comment("rpcResult turns a typed handler result into the runtime's: a nil pointer is sent")
	f.Comment("as {} rather than null, and errors pass through.")
	f.Func().Id("rpcResult").Types(jen.Id("T").Any()).Params(jen.Id("res").Op("*").Id("T"), jen.Err().Error()).Params(jen.Any(), jen.Error()).Block(
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.If(jen.Id("res").Op("==").Nil()).Block(jen.Return(jen.Nil(), jen.Nil())),
		jen.Return(jen.Id("res"), jen.Nil()),
	)
	f.Comment("rpcResultOf is rpcResult for union results, whose Go type is an interface.")
	f.Func().Id("rpcResultOf").Params(jen.Id("res").Any(), jen.Err().Error()).Params(jen.Any(), jen.Error()).Block(
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Return(jen.Id("res"), jen.Nil()),
	)
	f.Comment("rpcHasMember reports whether the params object raw has a top-level member key")
	f.Comment("(matched exactly, unlike encoding/json's case-insensitive field matching).")
	f.Func().Id("rpcHasMember").Params(jen.Id("raw").Qual("encoding/json", "RawMessage"), jen.Id("key").String()).Bool().Block(
		jen.Var().Id("m").Map(jen.String()).Qual("encoding/json", "RawMessage"),
		jen.If(jen.Qual("encoding/json", "Unmarshal").Call(jen.Id("raw"), jen.Op("&").Id("m")).Op("!=").Nil()).Block(jen.Return(jen.False())),
		jen.List(jen.Id("_"), jen.Id("ok")).Op(":=").Id("m").Index(jen.Id("key")),
		jen.Return(jen.Id("ok")),
	)
	f.Comment("rpcParams is what a caller hands the runtime for params: nothing for a nil")
	f.Comment("optional params, an empty object for nil required params, else params.")
	f.Func().Id("rpcParams").Params(jen.Id("params").Any(), jen.Id("isNil").Bool(), jen.Id("required").Bool()).Any().Block(
		jen.If(jen.Op("!").Id("isNil")).Block(jen.Return(jen.Id("params"))),
		jen.If(jen.Id("required")).Block(jen.Return(jen.Qual("encoding/json", "RawMessage").Call(jen.Lit("{}")))),
		jen.Return(jen.Nil()),
	)
}

// emitCaller writes ServerCaller/ClientCaller: the interface of side s
// implemented over a jsonrpc2.Conn, for the peer to call.
func emitCaller(g *gen, f *jen.File, s side, methods []*schema.Method, caller, newCaller, iface string) {
	rt := func(n string) *jen.Statement { return jen.Qual(RuntimePath, n) }
	json := func(n string) *jen.Statement { return jen.Qual("encoding/json", n) }
	recv := func() *jen.Statement { return f.Func().Params(jen.Id("c").Op("*").Id(caller)) }
	f.Commentf("%s calls an MCP %s of revision %s over a jsonrpc2.Conn. It implements", caller, s.role, g.m.Revision)
	f.Commentf("%s, so the %s's call is one method call, e.g. peer.%s(ctx, params), and", iface, s.peer, exampleMethod(methods))
	f.Comment("ending ctx is the MCP cancellation: the call returns ctx's error at once and")
	f.Comment("the runtime sends notifications/cancelled as the revision's Policy says (never")
	f.Comment("for initialize or a task-augmented request). A JSON-RPC error answer is")
	f.Comment("returned as a *jsonrpc2.Error.")
	f.Type().Id(caller).Struct(
		jen.Id("conn").Op("*").Add(rt("Conn")),
		jen.Id("opts").Index().Add(rt("CallOption")),
	)
	f.Commentf("%s returns a %s over conn; opts (timeouts, progress) apply to every call.", newCaller, caller)
	f.Func().Id(newCaller).Params(jen.Id("conn").Op("*").Add(rt("Conn")), jen.Id("opts").Op("...").Add(rt("CallOption"))).Op("*").Id(caller).Block(
		jen.Return(jen.Op("&").Id(caller).Values(jen.Dict{jen.Id("conn"): jen.Id("conn"), jen.Id("opts"): jen.Id("opts")})),
	)
	f.Comment("WithCallOptions returns a copy of c whose calls also use opts, e.g.")
	f.Comment("c.WithCallOptions(jsonrpc2.WithTimeout(time.Second)).")
	recv().Id("WithCallOptions").Params(jen.Id("opts").Op("...").Add(rt("CallOption"))).Op("*").Id(caller).Block(
		jen.Return(jen.Op("&").Id(caller).Values(jen.Dict{
			jen.Id("conn"): jen.Id("c").Dot("conn"),
			jen.Id("opts"): jen.Append(jen.Qual("slices", "Clip").Call(jen.Id("c").Dot("opts")), jen.Id("opts").Op("...")),
		})),
	)
	f.Comment("Conn returns the connection the calls go over.")
	recv().Id("Conn").Params().Op("*").Add(rt("Conn")).Block(jen.Return(jen.Id("c").Dot("conn")))

	for _, me := range methods {
		base := methodBase(me)
		pname := paramsTypeName(me)
		params := []jen.Code{jen.Id("ctx").Qual("context", "Context")}
		arg := jen.Code(jen.Nil())
		if pname != "" {
			pt, _ := g.goType(pname)
			params = append(params, jen.Id("params").Add(pt))
			arg = jen.Id("rpcParams").Call(jen.Id("params"), jen.Id("params").Op("==").Nil(), jen.Lit(me.ParamsRequired))
		}
		if me.Kind == schema.Notification {
			f.Commentf("%s sends the notification %q.", base, me.Name)
			recv().Id(base).Params(params...).Error().Block(
				jen.Return(jen.Id("c").Dot("conn").Dot("Notify").Call(jen.Id("ctx"), jen.Id(methodConstName(me)), arg)),
			)
			continue
		}
		resType, resIface := g.goType(me.Result)
		body := g.callerBody(me, arg, resIface)
		f.Commentf("%s sends the request %q and returns its result.", base, me.Name)
		if hasAlternative(me, inputRequiredDef) {
			f.Comment("When the server answers with an InputRequiredResult, it returns a nil result")
			f.Comment("and an *InputRequiredError holding it.")
		}
		if me.TaskAugmentable {
			f.Commentf("params must not carry the %q member: use %sAsTask for a task.", g.m.Facts.TaskMember, base)
		}
		if !me.Cancellable {
			f.Commentf("%q is never cancelled: ending ctx only stops waiting for the answer.", me.Name)
		}
		recv().Id(base).Params(params...).Params(resType, jen.Error()).Block(body...)
		if s.name == "Server" && argumentsAsJSON(g, me) {
			arg := jen.Id(callToolJSONType).Values(jen.Dict{jen.Id("name"): jen.Id("name"), jen.Id("arguments"): jen.Id("arguments")})
			emitCallToolJSON(g, f, recv, base, resType, g.callerBody(me, arg, resIface))
		}
		call := func(result jen.Code) jen.Code {
			return jen.If(jen.Err().Op(":=").Id("c").Dot("conn").Dot("Call").Call(jen.Id("ctx"), jen.Id(methodConstName(me)), arg, result, jen.Id("c").Dot("opts").Op("...")), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Err()),
			)
		}
		if me.TaskAugmentable && hasAlternative(me, createTaskDef) {
			f.Commentf("%sAsTask sends %q as a task-augmented request: params must carry", base, me.Name)
			f.Commentf("the %q member (a TaskMetadata). The %s answers at once with a", g.m.Facts.TaskMember, s.role)
			f.Comment("CreateTaskResult; follow the task with tasks/get and tasks/result and cancel it")
			f.Commentf("with %s. Ending ctx only stops waiting for the CreateTaskResult: no", g.m.Facts.TaskCancelMethod)
			f.Comment("notifications/cancelled is sent for a task-augmented request.")
			recv().Id(base+"AsTask").Params(params...).Params(jen.Op("*").Id(TypeName(createTaskDef)), jen.Error()).Block(
				jen.Id("out").Op(":=").New(jen.Id(TypeName(createTaskDef))),
				call(jen.Id("out")),
				jen.Return(jen.Id("out"), jen.Nil()),
			)
		}
	}
	f.Var().Id("_").Id(iface).Op("=").Parens(jen.Op("*").Id(caller)).Parens(jen.Nil())

	if s.name == "Server" && g.anyResultType() {
		f.Comment("rpcResultKind returns the resultType of a result (\"" + completeValue + "\" when absent, as the")
		f.Comment("revision says for results of servers of earlier revisions, in which case it")
		f.Comment("is added to raw so that the result decodes).")
		f.Comment("It scans raw with the codec's decoder (no allocation for results of up to 16")
		f.Comment("members) and appends the member when absent: every call's result passes here.")
		f.Func().Id("rpcResultKind").Params(jen.Id("raw").Add(json("RawMessage"))).Params(json("RawMessage"), jen.String()).Block(
			jen.Var().Id("d").Add(gi("Decoder")),
			jen.If(jen.Id("d").Dot("Init").Call(jen.Lit(""), jen.Id("raw")).Op("!=").Nil()).Block(jen.Return(jen.Id("raw"), jen.Lit(""))),
			jen.If(jen.List(jen.Id("rt"), jen.Id("ok")).Op(":=").Id("d").Dot("Take").Call(jen.Lit("resultType"), jen.False(), jen.True()), jen.Id("ok")).Block(
				jen.Comment("Anything but a string reads as \"\", as encoding/json leaves a string it cannot fill."),
				jen.If(jen.Id("rt").Index(jen.Lit(0)).Op("!=").LitRune('"')).Block(jen.Return(jen.Id("raw"), jen.Lit(""))),
				jen.Return(jen.Id("raw"), gi("StringValue").Call(jen.Id("rt"))),
			),
			jen.Id("t").Op(":=").Add(gi("Trim")).Call(jen.Id("raw")),
			jen.Id("out").Op(":=").Make(jen.Index().Byte(), jen.Lit(0), jen.Len(jen.Id("t")).Op("+").Lit(len(`,"resultType":"`+completeValue+`"}`))),
			jen.Id("out").Op("=").Append(jen.Id("out"), jen.Id("t").Index(jen.Empty(), jen.Len(jen.Id("t")).Op("-").Lit(1)).Op("...")),
			jen.If(jen.Len(gi("Trim").Call(jen.Id("t").Index(jen.Lit(1), jen.Len(jen.Id("t")).Op("-").Lit(1)))).Op(">").Lit(0)).Block(
				jen.Id("out").Op("=").Append(jen.Id("out"), jen.LitRune(',')),
			),
			jen.Return(jen.Append(jen.Id("out"), jen.Lit(`"resultType":"`+completeValue+`"}`).Op("...")), jen.Lit(completeValue)),
		)
	}
}

// anyResultType reports whether some result declares resultType.
func (g *gen) anyResultType() bool {
	for _, me := range g.m.Methods {
		if me.Kind == schema.Request && g.hasResultType(me.Result) {
			return true
		}
	}
	return false
}

func exampleMethod(methods []*schema.Method) string {
	for _, me := range methods {
		if me.Name == "tools/call" {
			return methodBase(me)
		}
	}
	for _, me := range methods {
		if me.Kind == schema.Request {
			return methodBase(me)
		}
	}
	if len(methods) > 0 {
		return methodBase(methods[0])
	}
	return "Method"
}

// checkName is the generated function that checks impl for register
// (RegisterServer → CheckServer).
func checkName(register string) string { return "Check" + strings.TrimPrefix(register, "Register") }

// lowerFirst is s with its first letter in lower case.
func lowerFirst(s string) string { return strings.ToLower(s[:1]) + s[1:] }

// callerBody is the body of a caller's method sending me with the params
// expression arg: the call, then the result decoded (an input-required
// answer as an *InputRequiredError).
func (g *gen) callerBody(me *schema.Method, arg jen.Code, resIface bool) []jen.Code {
	json := func(n string) *jen.Statement { return jen.Qual("encoding/json", n) }
	call := func(result jen.Code) jen.Code {
		return jen.If(jen.Err().Op(":=").Id("c").Dot("conn").Dot("Call").Call(jen.Id("ctx"), jen.Id(methodConstName(me)), arg, result, jen.Id("c").Dot("opts").Op("...")), jen.Err().Op("!=").Nil()).Block(
			jen.Return(jen.Nil(), jen.Err()),
		)
	}
	decodeErr := func() jen.Code {
		return jen.Return(jen.Nil(), jen.Qual("fmt", "Errorf").Call(jen.Lit("%s: decoding the result: %w"), jen.Id(methodConstName(me)), jen.Err()))
	}
	var body []jen.Code
	switch {
	case hasAlternative(me, inputRequiredDef) || g.hasResultType(me.Result) || resIface:
		body = append(body, jen.Var().Id("raw").Add(json("RawMessage")), call(jen.Op("&").Id("raw")))
		if g.hasResultType(me.Result) {
			body = append(body, jen.List(jen.Id("raw"), jen.Id("kind")).Op(":=").Id("rpcResultKind").Call(jen.Id("raw")))
			if hasAlternative(me, inputRequiredDef) {
				body = append(body, jen.If(jen.Id("kind").Op("==").Lit(inputRequiredValue)).Block(
					jen.Id("ir").Op(":=").New(jen.Id(TypeName(inputRequiredDef))),
					jen.If(jen.Err().Op(":=").Id("ir").Dot("UnmarshalJSON").Call(jen.Id("raw")), jen.Err().Op("!=").Nil()).Block(decodeErr()),
					jen.Return(jen.Nil(), jen.Op("&").Id("InputRequiredError").Values(jen.Dict{jen.Id("Result"): jen.Id("ir")})),
				))
			} else {
				body = append(body, jen.Id("_").Op("=").Id("kind"))
			}
		}
		if resIface {
			body = append(body,
				jen.List(jen.Id("out"), jen.Err()).Op(":=").Id("Decode"+TypeName(me.Result)).Call(jen.Id("raw")),
				jen.If(jen.Err().Op("!=").Nil()).Block(decodeErr()),
				jen.Return(jen.Id("out"), jen.Nil()),
			)
		} else {
			body = append(body,
				jen.Id("out").Op(":=").New(jen.Id(TypeName(me.Result))),
				// raw is valid JSON (the Conn validated the message), so json.Unmarshal
				// would only check it again before calling the generated decoder.
				jen.If(jen.Err().Op(":=").Id("out").Dot("UnmarshalJSON").Call(jen.Id("raw")), jen.Err().Op("!=").Nil()).Block(decodeErr()),
				jen.Return(jen.Id("out"), jen.Nil()),
			)
		}
	default:
		body = append(body,
			jen.Id("out").Op(":=").New(jen.Id(TypeName(me.Result))),
			call(jen.Id("out")),
			jen.Return(jen.Id("out"), jen.Nil()),
		)
	}
	return body
}

// callToolJSONType is the params of ServerCaller.CallToolJSON: a tool's name
// and its arguments object as JSON.
const callToolJSONType = "callToolJSON"

// argumentsAsJSON reports whether me is tools/call with params naming a tool
// and carrying its arguments object, so the ServerCaller also gets
// CallToolJSON.
func argumentsAsJSON(g *gen, me *schema.Method) bool {
	if me.Name != "tools/call" || me.Kind != schema.Request || me.Params == nil {
		return false
	}
	t := g.resolve(me.Params)
	return t != nil && hasProperty(t.Properties, "arguments") && hasProperty(t.Properties, "name")
}

// emitCallToolJSON writes ServerCaller.CallToolJSON, whose body (built by
// callerBody) sends callToolJSON params, and that type: a typed caller
// (mcpgen tools' Caller) writes its arguments straight to JSON, and a map
// of one member per argument (a Go map of a few entries costs 400 bytes)
// would be built only to be written out again.
func emitCallToolJSON(g *gen, f *jen.File, recv func() *jen.Statement, base string, resType jen.Code, body []jen.Code) {
	json := func(n string) *jen.Statement { return jen.Qual("encoding/json", n) }
	pt := TypeName(paramsTypeName(g.method("tools/call")))
	f.Commentf("%sJSON is %s(ctx, &%s{Name: name, Arguments: ...}) with the", base, base, pt)
	f.Comment("arguments given as one JSON object, written into the request as they are")
	f.Comment("(compacted): a typed caller (mcpgen tools' Caller) writes its arguments as")
	f.Comment("JSON, and no map stands between them and the request. arguments must be one")
	f.Comment("JSON object; nil sends {}.")
	recv().Id(base+"JSON").Params(jen.Id("ctx").Qual("context", "Context"), jen.Id("name").String(), jen.Id("arguments").Add(json("RawMessage"))).
		Params(resType, jen.Error()).Block(body...)
	f.Commentf("%s is the params of %sJSON, written as %s{Name: name} with", callToolJSONType, base, pt)
	f.Comment("arguments as its first member.")
	f.Type().Id(callToolJSONType).Struct(jen.Id("name").String(), jen.Id("arguments").Add(json("RawMessage")))
	f.Comment("MarshalJSON is AppendJSON to no buffer: the Conn marshals params it must")
	f.Comment("edit (a progress token added to _meta).")
	f.Func().Params(jen.Id("x").Id(callToolJSONType)).Id("MarshalJSON").Params().Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Return(jen.Id("x").Dot("AppendJSON").Call(jen.Nil())))
	f.Comment("AppendJSON writes the arguments (compacted, refused unless one object), then")
	f.Commentf("the members %s{Name: x.name} writes.", pt)
	f.Func().Params(jen.Id("x").Id(callToolJSONType)).Id("AppendJSON").Params(jen.Id("buf").Index().Byte()).Params(jen.Index().Byte(), jen.Error()).Block(
		jen.Id("args").Op(":=").Add(json("RawMessage")).Call(jen.Lit("{}")),
		jen.If(jen.Id("x").Dot("arguments").Op("!=").Nil()).Block(jen.Id("args").Op("=").Id("x").Dot("arguments")),
		jen.If(jen.Id("t").Op(":=").Qual(genimplPkg, "Trim").Call(jen.Id("args")), jen.Len(jen.Id("t")).Op("==").Lit(0).Op("||").Id("t").Index(jen.Lit(0)).Op("!=").LitRune('{')).Block(
			jen.Return(jen.Nil(), jen.Qual("errors", "New").Call(jen.Lit("encoding "+pt+": member \"arguments\" is not one JSON object")))),
		jen.Var().Id("e").Qual(genimplPkg, "Encoder"),
		jen.Id("e").Dot("Init").Call(jen.Lit(pt), jen.Id("buf")),
		jen.Id("e").Dot("RawValue").Call(jen.Lit("\"arguments\":"), jen.Id("args")),
		jen.List(jen.Id("b"), jen.Err()).Op(":=").Id("e").Dot("Bytes").Call(),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Comment("The rest of the object follows the arguments: its opening brace"),
		jen.Comment("becomes the comma after them (it always has the name member)."),
		jen.Id("mark").Op(":=").Len(jen.Id("b")).Op("-").Lit(1),
		jen.List(jen.Id("b"), jen.Err()).Op("=").Id(pt).Values(jen.Dict{jen.Id("Name"): jen.Id("x").Dot("name")}).Dot("AppendJSON").Call(jen.Id("b").Index(jen.Empty(), jen.Id("mark"))),
		jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
		jen.Id("b").Index(jen.Id("mark")).Op("=").LitRune(','),
		jen.Return(jen.Id("b"), jen.Nil()),
	)
}
