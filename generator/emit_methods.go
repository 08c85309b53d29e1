package generator

import (
	"fmt"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/schema"
)

func init() { register("methods.go", emitMethods) }

// Names shared by methods.go, server.go and client.go.

// methodBase is the Go name of a method without prefix: the definition's name
// minus "Request" or "Notification" (CallToolRequest → CallTool,
// CancelledNotification → Cancelled).
func methodBase(me *schema.Method) string {
	if me.Kind == schema.Request {
		return TypeName(strings.TrimSuffix(me.Definition, "Request"))
	}
	return TypeName(strings.TrimSuffix(me.Definition, "Notification"))
}

// methodConstName is the name of the method's string constant.
func methodConstName(me *schema.Method) string { return "Method" + methodBase(me) }

// paramsTypeName is the Go type of the method's params: the referenced
// definition, or the inline object named after its definition.
func paramsTypeName(me *schema.Method) string {
	if me.Params == nil {
		return ""
	}
	if me.Params.Kind == schema.KindRef {
		return TypeName(me.Params.Ref)
	}
	return InlineName(TypeName(me.Definition), "params")
}

// stableParamsName is the name every revision gives a method's params type:
// the definition's name + "Params" (PingRequestParams, ListToolsRequestParams).
// Revisions that share a params definition between methods (RequestParams,
// PaginatedRequestParams) get an alias under this name, so user code that
// names a method's params keeps compiling across revisions.
func stableParamsName(me *schema.Method) string {
	if me.Params == nil {
		return ""
	}
	return InlineName(TypeName(me.Definition), "params")
}

// emitParamsAliases declares stableParamsName as an alias of the shared params
// definition wherever the two differ.
func emitParamsAliases(g *gen, f *jen.File) error {
	var defs []jen.Code
	for _, me := range g.m.Methods {
		stable, actual := stableParamsName(me), paramsTypeName(me)
		if stable == actual {
			continue
		}
		if g.m.Definition(stable) != nil {
			return fmt.Errorf("methods.go: the params of %s are %s, but the schema also defines %s as another type", me.Name, actual, stable)
		}
		defs = append(defs,
			jen.Commentf("%s are the params of %q; the schema shares %s between methods.", stable, me.Name, actual),
			jen.Id(stable).Op("=").Id(actual),
		)
	}
	if len(defs) == 0 {
		return nil
	}
	f.Comment("Every request and notification has a params type named after it, in every revision,")
	f.Comment("so code that names one keeps compiling when a later revision shares or splits the definition.")
	f.Type().Defs(defs...)
	return nil
}

func hasDirection(me *schema.Method, d schema.Direction) bool {
	for _, x := range me.Directions {
		if x == d {
			return true
		}
	}
	return false
}

// runtimeHandled are the notifications the runtime consumes itself; they get
// no handler method in the generated interfaces.
func (g *gen) runtimeHandled(me *schema.Method) bool {
	return me.Kind == schema.Notification && (me.Name == g.m.Facts.CancelledMethod || me.Name == g.m.Facts.ProgressMethod)
}

// checkNames fails generation when one of the identifiers an emitter declares
// collides with a definition's type name.
func (g *gen) checkNames(file string, names ...string) error {
	for _, n := range names {
		if g.m.Definition(n) != nil {
			return fmt.Errorf("%s declares %s, which is also the name of a schema definition", file, n)
		}
	}
	return nil
}

func directionText(me *schema.Method) string {
	var parts []string
	for _, d := range me.Directions {
		switch d {
		case schema.ClientToServer:
			parts = append(parts, "client to server")
		case schema.ServerToClient:
			parts = append(parts, "server to client")
		case schema.ServerToClientEmbedded:
			parts = append(parts, "server to client, embedded in an InputRequiredResult")
		}
	}
	return strings.Join(parts, " and ")
}

// emitMethods writes methods.go: the method name constants, the method table
// and the revision's jsonrpc2.Policy.
func emitMethods(g *gen, f *jen.File) (bool, error) {
	if len(g.m.Methods) == 0 {
		return false, nil
	}
	if err := g.checkNames("methods.go", "MethodInfo", "Methods", "LookupMethod", "Policy", "methodIndex"); err != nil {
		return false, err
	}
	seen := map[string]string{}
	var consts []jen.Code
	for _, me := range g.m.Methods {
		name := methodConstName(me)
		if other, dup := seen[name]; dup {
			return false, fmt.Errorf("methods.go: %s and %s both map to the constant %s", other, me.Name, name)
		}
		seen[name] = me.Name
		if err := g.checkNames("methods.go", name); err != nil {
			return false, err
		}
		consts = append(consts,
			jen.Commentf("%s is the %s %q (%s, %s).", name, me.Kind, me.Name, me.Definition, directionText(me)),
			jen.Id(name).Op("=").Lit(me.Name),
		)
	}
	if err := g.checkNames("methods.go", "ProtocolVersion"); err != nil {
		return false, err
	}
	f.Commentf("ProtocolVersion is the revision these bindings implement, as it is written in")
	f.Comment("protocolVersion fields and the MCP-Protocol-Version header.")
	f.Const().Id("ProtocolVersion").Op("=").Lit(g.m.Revision)

	f.Comment("The method names of revision " + g.m.Revision + ", one constant per request and notification.")
	f.Const().Defs(consts...)

	if err := emitParamsAliases(g, f); err != nil {
		return false, err
	}

	f.Comment("MethodInfo describes one JSON-RPC method of this revision as the schema defines it.")
	f.Comment("The runtime and applications use the table (Methods, LookupMethod) to route,")
	f.Comment("decode and decide about cancellation without knowing the revision.")
	f.Type().Id("MethodInfo").Struct(
		jen.Comment("Name is the method string on the wire, e.g. \"tools/call\"."),
		jen.Id("Name").String(),
		jen.Comment("Definition is the schema definition that declares the method."),
		jen.Id("Definition").String(),
		jen.Comment("Notification is true for notifications, false for requests."),
		jen.Id("Notification").Bool(),
		jen.Comment("FromClient is true when the client sends it as a JSON-RPC message."),
		jen.Id("FromClient").Bool(),
		jen.Comment("FromServer is true when the server sends it as a JSON-RPC message."),
		jen.Id("FromServer").Bool(),
		jen.Comment("Embedded is true when the server sends it only embedded in an"),
		jen.Comment("InputRequiredResult, never as a JSON-RPC request (2026-07-28)."),
		jen.Id("Embedded").Bool(),
		jen.Comment("Params is the Go type of the params member (a struct or union type of this package)."),
		jen.Id("Params").Qual("reflect", "Type"),
		jen.Comment("ParamsRequired is true when the schema requires the params member."),
		jen.Id("ParamsRequired").Bool(),
		jen.Comment("Result is the Go type of a successful result; nil for notifications."),
		jen.Id("Result").Qual("reflect", "Type"),
		jen.Comment("ResultAlternatives are the other types a result may have: InputRequiredResult"),
		jen.Comment("(2026-07-28) or CreateTaskResult for a task-augmented request (2025-11-25)."),
		jen.Id("ResultAlternatives").Index().Qual("reflect", "Type"),
		jen.Comment("Cancellable is true for requests that may be cancelled with"),
		jen.Comment("notifications/cancelled; false for initialize, embedded requests and notifications."),
		jen.Id("Cancellable").Bool(),
		jen.Comment("TaskAugmentable is true when the params accept a task member; such a"),
		jen.Comment("request, once it became a task, is cancelled with tasks/cancel instead."),
		jen.Id("TaskAugmentable").Bool(),
	)

	typeOf := func(name string) jen.Code {
		if name == "" {
			return jen.Nil()
		}
		return jen.Qual("reflect", "TypeFor").Types(jen.Id(name)).Call()
	}
	var rows []jen.Code
	for _, me := range g.m.Methods {
		d := jen.Dict{
			jen.Id("Name"):       jen.Id(methodConstName(me)),
			jen.Id("Definition"): jen.Lit(me.Definition),
		}
		if me.Kind == schema.Notification {
			d[jen.Id("Notification")] = jen.True()
		}
		if hasDirection(me, schema.ClientToServer) {
			d[jen.Id("FromClient")] = jen.True()
		}
		if hasDirection(me, schema.ServerToClient) {
			d[jen.Id("FromServer")] = jen.True()
		}
		if hasDirection(me, schema.ServerToClientEmbedded) {
			d[jen.Id("Embedded")] = jen.True()
		}
		if p := paramsTypeName(me); p != "" {
			d[jen.Id("Params")] = typeOf(p)
		}
		if me.ParamsRequired {
			d[jen.Id("ParamsRequired")] = jen.True()
		}
		if me.Result != "" {
			d[jen.Id("Result")] = typeOf(TypeName(me.Result))
		}
		if len(me.ResultAlternatives) > 0 {
			var alts []jen.Code
			for _, a := range me.ResultAlternatives {
				alts = append(alts, typeOf(TypeName(a)))
			}
			d[jen.Id("ResultAlternatives")] = jen.Index().Qual("reflect", "Type").Values(alts...)
		}
		if me.Cancellable {
			d[jen.Id("Cancellable")] = jen.True()
		}
		if me.TaskAugmentable {
			d[jen.Id("TaskAugmentable")] = jen.True()
		}
		rows = append(rows, jen.Values(d))
	}
	f.Comment("Methods is the method table of revision " + g.m.Revision + ": every request, then every")
	f.Comment("notification, each sorted by name. Treat it as read-only.")
	f.Var().Id("Methods").Op("=").Index().Id("MethodInfo").Values(rows...)

	f.Var().Id("methodIndex").Op("=").Func().Params().Map(jen.String()).Op("*").Id("MethodInfo").Block(
		jen.Id("m").Op(":=").Make(jen.Map(jen.String()).Op("*").Id("MethodInfo"), jen.Len(jen.Id("Methods"))),
		jen.For(jen.Id("i").Op(":=").Range().Id("Methods")).Block(
			jen.Id("m").Index(jen.Id("Methods").Index(jen.Id("i")).Dot("Name")).Op("=").Op("&").Id("Methods").Index(jen.Id("i")),
		),
		jen.Return(jen.Id("m")),
	).Call()

	f.Comment("LookupMethod returns the table entry of the named method, or false when")
	f.Comment("revision " + g.m.Revision + " has no such method.")
	f.Func().Id("LookupMethod").Params(jen.Id("name").String()).Params(jen.Op("*").Id("MethodInfo"), jen.Bool()).Block(
		jen.List(jen.Id("m"), jen.Id("ok")).Op(":=").Id("methodIndex").Index(jen.Id("name")),
		jen.Return(jen.Id("m"), jen.Id("ok")),
	)

	// Method names must be unique across kinds for the index to be exact.
	names := map[string]bool{}
	for _, me := range g.m.Methods {
		if names[me.Name] {
			return false, fmt.Errorf("methods.go: method %q is both a request and a notification", me.Name)
		}
		names[me.Name] = true
	}

	emitPolicy(g, f)
	return true, nil
}

// emitPolicy writes Policy(side), the revision's cancellation rules as a
// jsonrpc2.Policy literal built from Model.Facts.
func emitPolicy(g *gen, f *jen.File) {
	fa := g.m.Facts
	rt := func(name string) *jen.Statement { return jen.Qual(RuntimePath, name) }
	methodSet := func(all bool, methods []string) jen.Code {
		d := jen.Dict{}
		if all {
			d[jen.Id("All")] = jen.True()
		}
		if len(methods) > 0 {
			ms := append([]string(nil), methods...)
			sort.Strings(ms)
			var lits []jen.Code
			for _, m := range ms {
				lits = append(lits, jen.Lit(m))
			}
			d[jen.Id("Methods")] = jen.Index().String().Values(lits...)
		}
		return rt("MethodSet").Values(d)
	}
	scope := func(ownAll bool, peer []string) jen.Code {
		d := jen.Dict{}
		if ownAll {
			d[jen.Id("OwnRequests")] = methodSet(true, nil)
		}
		if len(peer) > 0 {
			d[jen.Id("PeerRequests")] = methodSet(false, peer)
		}
		return rt("CancelScope").Values(d)
	}
	d := jen.Dict{
		jen.Id("Side"):            jen.Id("side"),
		jen.Id("CancelledMethod"): jen.Lit(fa.CancelledMethod),
		jen.Id("ProgressMethod"):  jen.Lit(fa.ProgressMethod),
		jen.Id("ClientCancels"):   scope(fa.ClientMayCancel, nil),
		jen.Id("ServerCancels"):   scope(fa.ServerMayCancel, fa.ServerCancelsOnly),
	}
	if len(fa.NeverCancellable) > 0 {
		var lits []jen.Code
		for _, m := range fa.NeverCancellable {
			lits = append(lits, jen.Lit(m))
		}
		d[jen.Id("NeverCancellable")] = jen.Index().String().Values(lits...)
	}
	if g.m.Definition("CancelledNotification") != nil {
		// cancel.go's decoder, generated from the same schema: the runtime
		// runs it on every notifications/cancelled the peer sends.
		d[jen.Id("Cancelled")] = jen.Id(cancelledDecoderType).Values()
	}
	if fa.TaskCancelMethod != "" {
		d[jen.Id("TaskCancelMethod")] = jen.Lit(fa.TaskCancelMethod)
		d[jen.Id("TaskParamsMember")] = jen.Lit(fa.TaskMember)
	}
	if fa.HTTPDisconnectCancels {
		d[jen.Id("DisconnectIsCancellation")] = jen.True()
	}
	f.Comment("Policy returns the cancellation rules of revision " + g.m.Revision + " for a Conn that")
	f.Comment("plays side; pass it to the runtime when creating the Conn. The values come")
	for _, line := range strings.Split(wrapComment("from the schema and the revision's prose ("+fa.Source+"):"), "\n") {
		f.Comment(line)
	}
	for _, line := range strings.Split(wrapComment(cancellationSummary(fa)), "\n") {
		f.Comment(line)
	}
	f.Func().Id("Policy").Params(jen.Id("side").Qual(RuntimePath, "Side")).Qual(RuntimePath, "Policy").Block(
		jen.Return(rt("Policy").Values(d)),
	)
}

// wrapComment wraps text at about 80 columns for a // comment.
func wrapComment(text string) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && len(line)+1+len(w) > 76 {
			lines = append(lines, line)
			line = w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	if line != "" {
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n")
}
