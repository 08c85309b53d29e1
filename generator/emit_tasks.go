package generator

import (
	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/schema"
)

// TasksPath is the import path of the runtime's task package.
const TasksPath = "github.com/mcpgen/mcpgen/runtime/tasks"

func init() { register("tasks.go", emitTasks) }

// taskMethods lists the requests s handles that can run as tasks, with a
// struct result (a union result cannot be a type argument of Handle).
func (g *gen) taskMethods(s side) []*schema.Method {
	var out []*schema.Method
	for _, me := range g.handled(s) {
		if me.Kind == schema.Request && me.TaskAugmentable && hasAlternative(me, createTaskDef) && !g.isInterface(me.Result) {
			out = append(out, me)
		}
	}
	return out
}

// emitTasks writes tasks.go, for revisions with tasks: the methods each side
// may run as tasks (what a runtime/tasks Manager is configured with), and
// one Start method per task-augmentable request on the Caller of the side
// that handles it, returning a typed *tasks.Handle.
func emitTasks(g *gen, f *jen.File) (bool, error) {
	sides := []side{serverSide, clientSide}
	found := false
	for _, s := range sides {
		found = found || len(g.taskMethods(s)) > 0
	}
	if !found {
		return false, nil
	}
	f.ImportName(TasksPath, "tasks")
	for _, s := range sides {
		methods := g.taskMethods(s)
		names := make([]jen.Code, len(methods))
		for i, me := range methods {
			names[i] = jen.Id(methodConstName(me))
		}
		f.Commentf("%sTaskMethods are the requests a %s may run as tasks in revision %s: the", s.name, s.role, g.m.Revision)
		f.Commentf("Methods of a tasks.Manager serving a %s.", s.role)
		f.Var().Id(s.name + "TaskMethods").Op("=").Index().String().Values(names...)
	}
	for _, s := range sides {
		caller := s.name + "Caller"
		for _, me := range g.taskMethods(s) {
			base := methodBase(me)
			pt, _ := g.goType(paramsTypeName(me))
			res := jen.Id(TypeName(me.Result))
			f.Commentf("Start%s sends %q as a task-augmented request (adding the %q", base, me.Name, g.m.Facts.TaskMember)
			f.Commentf("member unless params has one) and returns the task's Handle: Status polls it,")
			f.Commentf("Result waits for the %s, Cancel sends %s. Ending ctx after the", TypeName(me.Result), g.m.Facts.TaskCancelMethod)
			f.Commentf("task exists sends %s, never notifications/cancelled.", g.m.Facts.TaskCancelMethod)
			f.Func().Params(jen.Id("c").Op("*").Id(caller)).Id("Start"+base).Params(
				jen.Id("ctx").Qual("context", "Context"),
				jen.Id("params").Add(pt),
				jen.Id("opts").Op("...").Qual(TasksPath, "StartOption"),
			).Params(jen.Op("*").Qual(TasksPath, "Handle").Types(res), jen.Error()).Block(
				jen.Id("opts").Op("=").Append(
					jen.Index().Qual(TasksPath, "StartOption").Values(jen.Qual(TasksPath, "WithCallOptions").Call(jen.Id("c").Dot("opts").Op("..."))),
					jen.Id("opts").Op("..."),
				),
				jen.Return(jen.Qual(TasksPath, "Start").Types(res).Call(
					jen.Id("ctx"), jen.Id("c").Dot("conn"), jen.Id(methodConstName(me)),
					jen.Id("rpcParams").Call(jen.Id("params"), jen.Id("params").Op("==").Nil(), jen.Lit(me.ParamsRequired)),
					jen.Id("opts").Op("..."),
				)),
			)
		}
	}
	return true, nil
}
