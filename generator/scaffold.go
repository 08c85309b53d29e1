package generator

import (
	"fmt"
	"go/format"
	"path"
	"strings"

	"github.com/mcpgen/mcpgen/schema"
	"github.com/mcpgen/mcpgen/templates"
)

// ScaffoldOptions say what Scaffold writes.
type ScaffoldOptions struct {
	// Side is "server" or "client": which interface to implement.
	Side string
	// ImportPath is the import path of the generated bindings package; its
	// last element must be the package name.
	ImportPath string
	// Package is the package of the scaffold file (default "main").
	Package string
	// Type is the name of the implementing type (default "Server" or
	// "Client").
	Type string
}

// Scaffold returns a user-owned Go file with a type that implements one
// side's generated interface, every method stubbed and documented with how
// to honour ctx. It uses the same method list and names as server.go and
// client.go, so the stub always compiles against the bindings.
func Scaffold(m *schema.Model, opts ScaffoldOptions) ([]byte, error) {
	var s side
	switch opts.Side {
	case "server":
		s = serverSide
	case "client":
		s = clientSide
	default:
		return nil, fmt.Errorf("scaffold: side must be server or client, not %q", opts.Side)
	}
	if opts.ImportPath == "" {
		return nil, fmt.Errorf("scaffold: no import path for the bindings")
	}
	if opts.Package == "" {
		opts.Package = "main"
	}
	if opts.Type == "" {
		opts.Type = s.name
	}
	g := newGen(m, Options{Package: path.Base(opts.ImportPath)})
	bindings := path.Base(opts.ImportPath)
	qualify := func(name string) string {
		if g.isInterface(name) {
			return bindings + "." + TypeName(name)
		}
		return "*" + bindings + "." + TypeName(name)
	}
	type method struct {
		Name, Method, Params, Result string
		Request                      bool
	}
	var methods []method
	for _, me := range g.handled(s) {
		mm := method{Name: methodBase(me), Method: me.Name, Request: me.Kind == schema.Request}
		if p := paramsTypeName(me); p != "" {
			// The stable name, so the scaffold builds against later revisions.
			mm.Params = bindings + "." + stableParamsName(me)
			if !g.isInterface(p) {
				mm.Params = "*" + mm.Params
			}
		}
		if mm.Request {
			mm.Result = qualify(me.Result)
		}
		methods = append(methods, mm)
	}
	src, err := templates.Render("scaffold.tmpl", map[string]any{
		"Package":    opts.Package,
		"ImportPath": opts.ImportPath,
		"Bindings":   bindings,
		"Interface":  s.name,
		"Type":       opts.Type,
		"Receiver":   strings.ToLower(opts.Type[:1]),
		"Peer":       s.peer,
		"Revision":   m.Revision,
		"Methods":    methods,
	})
	if err != nil {
		return nil, err
	}
	out, err := format.Source(src)
	if err != nil {
		return nil, fmt.Errorf("scaffold: the template produced invalid Go: %w", err)
	}
	return out, nil
}
