package generator

import (
	"github.com/dave/jennifer/jen"
)

// extensionTaskRequests are the core requests an extension lets a server
// answer with a task: the Tasks extension's "Supported Methods" section
// (tools/call), which its schema does not express.
var extensionTaskRequests = map[string][]extensionTaskRequest{
	"io.modelcontextprotocol/tasks": {{Method: "tools/call", Base: "CallTool", Params: "CallToolRequestParams", Result: "CallToolResult"}},
}

// extensionTaskRequest is a core request and the names of its core Go types.
type extensionTaskRequest struct{ Method, Base, Params, Result string }

func init() { registerExtension("tasks.go", emitExtensionTasks) }

// emitExtensionTasks writes tasks.go for an extension that carries tasks:
// the requests a tasks.Manager runs as tasks, and a Start function per
// request that sends it with the extension's per-request opt-in through the
// core package's ServerCaller (a ClientSession embeds one) and returns a
// typed *tasks.Handle.
func emitExtensionTasks(g *gen, f *jen.File) (bool, error) {
	methods := extensionTaskRequests[g.m.Extension.Identifier]
	if len(methods) == 0 {
		return false, nil
	}
	core := g.opts.CorePackage
	f.ImportName(TasksPath, "tasks")
	var names []jen.Code
	for _, me := range methods {
		names = append(names, jen.Lit(me.Method))
	}
	f.Comment("TaskMethods are the core requests a server may answer with a task under this extension:")
	f.Comment("the Methods of a tasks.Manager (tasks.WithTasks serves them in both eras).")
	f.Var().Id("TaskMethods").Op("=").Index().String().Values(names...)
	for _, me := range methods {
		base := me.Base
		res := jen.Qual(core, me.Result)
		f.Commentf("Start%s sends %q with this extension in the request's client capabilities", base, me.Method)
		f.Commentf("(tasks.Extension) and returns the task's Handle: Status polls tasks/get, Result waits")
		f.Commentf("for the %s (the server may also answer it at once, without a task), Cancel", me.Result)
		f.Commentf("sends tasks/cancel. Ending ctx after the task exists sends tasks/cancel. c is the")
		f.Commentf("ServerCaller of a modern session (the ClientSession's).")
		f.Func().Id("Start"+base).Params(
			jen.Id("ctx").Qual("context", "Context"),
			jen.Id("c").Op("*").Qual(core, "ServerCaller"),
			jen.Id("params").Op("*").Qual(core, me.Params),
			jen.Id("opts").Op("...").Qual(TasksPath, "StartOption"),
		).Params(jen.Op("*").Qual(TasksPath, "Handle").Types(res), jen.Error()).Block(
			jen.Var().Id("p").Any().Op("=").Id("params"),
			jen.If(jen.Id("params").Op("==").Nil()).Block(jen.Id("p").Op("=").Map(jen.String()).Any().Values()),
			jen.Id("opts").Op("=").Append(jen.Index().Qual(TasksPath, "StartOption").Values(jen.Qual(TasksPath, "Extension").Call()), jen.Id("opts").Op("...")),
			jen.Return(jen.Qual(TasksPath, "Start").Types(res).Call(
				jen.Id("ctx"), jen.Id("c").Dot("Conn").Call(), jen.Lit(me.Method), jen.Id("p"), jen.Id("opts").Op("..."),
			)),
		)
	}
	return true, nil
}
