package generator

import (
	"fmt"
	"go/format"
	"go/token"
	"path"
	"regexp"
	"strings"

	"github.com/mcpgen/mcpgen/schema"
	"github.com/mcpgen/mcpgen/templates"
)

// ScaffoldOptions say what Scaffold writes.
type ScaffoldOptions struct {
	// Side is "server" or "client": which interface to implement.
	Side string
	// ImportPath is the import path of the generated bindings package.
	ImportPath string
	// Alias is the name the scaffold gives the bindings package. Default: the
	// bindings' package name; it is written into the import only when it
	// differs from the path's last element (example.com/my-mcp, …/mcp/v2).
	Alias string
	// Package is the package of the scaffold file (default "main").
	Package string
	// Type is the name of the implementing type (default "Server" or
	// "Client").
	Type string
	// Main adds a func main when Package is "main": a server type is served
	// on stdio (ServeStdio, 2 s shutdown bound), a client type connects to
	// the server command named by its arguments. The file then runs with
	// "go run ." at once, and a package main without a main never lands in
	// a module (it breaks "go build ./...").
	Main bool
	// Name is the Implementation name main reports (default "mcp-server" or
	// "mcp-client").
	Name string
}

// Scaffold returns a user-owned Go file with a type for one side and, for
// every method of that side the session does not answer itself (the
// lifecycle), a commented-out stub with the method's exact signature and a
// commented-out compile-time assertion of its handler interface, grouped by
// the capability serving it declares. Unedited, the type implements no
// handler interface, so the server declares no capability but logging;
// uncommenting a stub serves the method and declares its capability. It uses
// the same method list and names as server.go and client.go, so an
// uncommented stub compiles against the bindings generated from m. The bindings' package name is taken from ImportPath (its last element
// that is not a major version).
func Scaffold(m *schema.Model, opts ScaffoldOptions) ([]byte, error) {
	pkg := PackageFromImportPath(opts.ImportPath)
	g := newGen(m, Options{Package: pkg})
	b := &Bindings{Package: pkg, Revision: m.Revision, Interfaces: map[string][]BindingMethod{}, Capabilities: map[string]string{}}
	for _, s := range []side{serverSide, clientSide} {
		var ms []BindingMethod
		handled := g.handled(s)
		if s.name == "Client" {
			// The input requests of MRTR (2026-07-28) are the client's too.
			handled = append(handled, g.handled(inputSide)...)
		}
		for _, me := range handled {
			bm := BindingMethod{Name: methodBase(me), Method: me.Name, Request: me.Kind == schema.Request}
			if p := paramsTypeName(me); p != "" {
				// The stable name, so the scaffold builds against later revisions.
				bm.Params = stableParamsName(me)
				if !g.isInterface(p) {
					bm.Params = "*" + bm.Params
				}
			}
			if bm.Request {
				bm.Result = TypeName(me.Result)
				if !g.isInterface(me.Result) {
					bm.Result = "*" + bm.Result
				}
			}
			ms = append(ms, bm)
			if me.Kind == schema.Request && s.name == "Server" {
				if c := g.capabilityOf(me.Name, "ServerCapabilities"); c != "" {
					b.Capabilities[me.Name] = c
				}
			}
		}
		b.Interfaces[s.name] = ms
	}
	return ScaffoldBindings(b, opts)
}

// PackageFromImportPath is the package name Go tooling assumes for an import
// path: its last element, or the one before a major-version suffix (/v2).
func PackageFromImportPath(importPath string) string {
	base := path.Base(importPath)
	if majorVersion.MatchString(base) {
		base = path.Base(path.Dir(importPath))
	}
	return base
}

var majorVersion = regexp.MustCompile(`^v[0-9]+$`)

// ScaffoldBindings is Scaffold for bindings read from their Go source
// (ReadBindings): the file implements exactly the interface it will be
// compiled with.
func ScaffoldBindings(b *Bindings, opts ScaffoldOptions) ([]byte, error) {
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
	alias := opts.Alias
	if alias == "" {
		alias = b.Package
	}
	if !token.IsIdentifier(alias) || alias == "_" {
		return nil, fmt.Errorf("scaffold: the bindings' package name %q is not a Go identifier: give an alias", alias)
	}
	methods, ok := b.Interfaces[s.name]
	if !ok {
		return nil, fmt.Errorf("scaffold: the bindings have no %s interface", s.name)
	}
	type method struct {
		Name, Method, Params, Result string
		Request                      bool
	}
	type group struct {
		Capability string // "" for methods that declare none
		Methods    []method
	}
	var groups []*group
	byCap := map[string]*group{}
	for _, me := range methods {
		if lifecycle[s.name][me.Method] {
			continue // the session answers it
		}
		c := b.Capabilities[me.Method]
		if s.name == "Client" {
			c = clientCapabilities[me.Method]
		}
		gr := byCap[c]
		if gr == nil {
			gr = &group{Capability: c}
			byCap[c] = gr
			groups = append(groups, gr)
		}
		gr.Methods = append(gr.Methods, method{Name: me.Name, Method: me.Method, Request: me.Request,
			Params: qualifyType(alias, me.Params), Result: qualifyType(alias, me.Result)})
	}
	// Capabilities first, in order of appearance; the rest last.
	if gr := byCap[""]; gr != nil {
		for i, x := range groups {
			if x == gr {
				groups = append(append(groups[:i:i], groups[i+1:]...), gr)
				break
			}
		}
	}
	name := opts.Name
	if name == "" {
		name = "mcp-" + strings.ToLower(s.name)
	}
	importAlias := ""
	if alias != path.Base(opts.ImportPath) {
		importAlias = alias
	}
	src, err := templates.Render("scaffold.tmpl", map[string]any{
		"Package":     opts.Package,
		"ImportPath":  opts.ImportPath,
		"ImportAlias": importAlias,
		"Bindings":    alias,
		"Interface":   s.name,
		"Type":        opts.Type,
		"Receiver":    strings.ToLower(opts.Type[:1]),
		"Peer":        s.peer,
		"Revision":    b.Revision,
		"Groups":      groups,
		"Lifecycle":   lifecycleText[s.name],
		"Role":        s.role,
		"Anchor":      anchor[s.name],
		"Main":        opts.Main && opts.Package == "main",
		"Name":        name,
	})
	if err != nil {
		return nil, err
	}
	formatted, err := format.Source(src)
	if err != nil {
		return nil, fmt.Errorf("scaffold: the template produced invalid Go: %w", err)
	}
	return formatted, nil
}

// lifecycle lists, by side, the methods the session answers itself, whatever
// the implementation has: the scaffold writes no stub for them.
var lifecycle = map[string]map[string]bool{
	"Server": {"initialize": true, "ping": true, "notifications/initialized": true, "logging/setLevel": true, "server/discover": true},
	"Client": {"ping": true},
}

var lifecycleText = map[string]string{
	"Server": "initialize, ping, notifications/initialized, logging/setLevel and (modern) server/discover",
	"Client": "ping",
}

// anchor is a type of the bindings the unedited scaffold refers to, to use
// their import.
var anchor = map[string]string{"Server": "Server", "Client": "ClientSession"}

// clientCapabilities is the client capability answering a server request
// declares (session.Connect derives the same).
var clientCapabilities = map[string]string{
	"sampling/createMessage": "sampling",
	"elicitation/create":     "elicitation",
	"roots/list":             "roots",
}

// qualifyType prefixes the bindings' exported type in a generated parameter
// type ("*CallToolResult" → "*mcp.CallToolResult").
func qualifyType(alias, t string) string {
	if t == "" {
		return ""
	}
	i := 0
	for strings.HasPrefix(t[i:], "*") || strings.HasPrefix(t[i:], "[]") {
		if t[i] == '*' {
			i++
		} else {
			i += 2
		}
	}
	if rest := t[i:]; token.IsExported(rest) && token.IsIdentifier(rest) {
		return t[:i] + alias + "." + rest
	}
	return t
}
