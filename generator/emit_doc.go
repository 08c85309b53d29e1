package generator

import (
	"fmt"
	"strings"

	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/internal/toolversion"
	"github.com/mcpgen/mcpgen/schema"
	"github.com/mcpgen/mcpgen/templates"
)

func init() { register("doc.go", emitDoc) }

// emitDoc writes the package documentation from templates/doc.tmpl.
func emitDoc(g *gen, f *jen.File) (bool, error) {
	var requests, notifications int
	for _, m := range g.m.Methods {
		if m.Kind == schema.Request {
			requests++
		} else {
			notifications++
		}
	}
	text, err := templates.Render("doc.tmpl", map[string]any{
		"Package":             g.opts.Package,
		"Revision":            g.m.Revision,
		"SchemaFile":          g.opts.SchemaFile,
		"Definitions":         len(g.m.Definitions),
		"Requests":            requests,
		"Notifications":       notifications,
		"CancellationSummary": cancellationSummary(g.m.Facts),
		"Tasks":               len(g.taskMethods(serverSide))+len(g.taskMethods(clientSide)) > 0,
		"Errata":              g.m.Errata,
	})
	if err != nil {
		return false, err
	}
	for _, line := range strings.Split(strings.TrimRight(string(text), "\n"), "\n") {
		f.PackageComment(line)
	}
	emitGuard(f)
	return true, nil
}

// emitGuard writes the package's one reference to the support packages'
// version guard.
func emitGuard(f *jen.File) {
	f.Comment("A compile error on these lines (a negative constant converted to")
	f.Comment("genimpl.EnforceVersion) means these bindings and the module")
	f.Comment("github.com/mcpgen/mcpgen they are built with do not match: on the first line the")
	f.Comment("bindings are older than the module still serves, on the second newer than it")
	f.Comment("provides. Regenerate the bindings with the mcpgen of the module you build with,")
	f.Comment("or require the mcpgen version the header names.")
	EmitEnforceVersion(f)
}

// EmitEnforceVersion writes the two-sided guard (runtime/genimpl's
// EnforceVersion) for the version of generated code this mcpgen writes,
// toolversion.GeneratedCode. The typed-tools generator writes it too.
func EmitEnforceVersion(f *jen.File) {
	ev := func(c jen.Code) jen.Code {
		return jen.Id("_").Op("=").Qual(toolversion.GuardImport, "EnforceVersion").Call(c)
	}
	n := jen.Lit(toolversion.GeneratedCode)
	f.Const().Defs(
		ev(jen.Add(n).Op("-").Qual(toolversion.GuardImport, "MinVersion")),
		ev(jen.Qual(toolversion.GuardImport, "MaxVersion").Op("-").Add(n)),
	)
}

// cancellationSummary states the revision's rules in one paragraph.
func cancellationSummary(f schema.Facts) string {
	var parts []string
	switch {
	case f.ServerMayCancel:
		parts = append(parts, "either side may cancel a request it issued with "+f.CancelledMethod+".")
	case len(f.ServerCancelsOnly) > 0:
		parts = append(parts, fmt.Sprintf("only the client cancels requests with %s; the server sends it only to end %s.", f.CancelledMethod, strings.Join(f.ServerCancelsOnly, ", ")))
	default:
		parts = append(parts, "only the client cancels requests with "+f.CancelledMethod+".")
	}
	if len(f.NeverCancellable) > 0 {
		parts = append(parts, strings.Join(f.NeverCancellable, ", ")+" is never cancelled.")
	}
	if f.TaskCancelMethod != "" {
		parts = append(parts, "A task-augmented request is cancelled with "+f.TaskCancelMethod+", never with the notification.")
	}
	if !f.CancelRequestIDRequired {
		parts = append(parts, "The notification's requestId is optional in this revision's schema.")
	}
	if f.HTTPDisconnectCancels {
		parts = append(parts, "On Streamable HTTP, closing a request's response stream is its cancellation.")
	} else {
		parts = append(parts, "On HTTP, a disconnect is not a cancellation.")
	}
	return strings.Join(parts, " ")
}
