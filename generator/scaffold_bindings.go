package generator

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Bindings is what Scaffold needs to know about a generated package, read
// from its Go source: the scaffold is written against the code it must
// compile with, not against a schema that may have moved on since.
type Bindings struct {
	// Package is the package clause of the bindings.
	Package string
	// Revision is the value of the ProtocolVersion constant.
	Revision string
	// Interfaces maps "Server" and "Client" to their methods, in source order
	// (the handler interfaces ServerHandler and ClientHandler embed).
	Interfaces map[string][]BindingMethod
	// Capabilities maps a server request to the capability serving it
	// declares (the generated Revision's Capabilities), e.g. "tools/call" →
	// "tools".
	Capabilities map[string]string
}

// BindingMethod is one method of a generated Server or Client interface.
type BindingMethod struct {
	// Name is the Go method name, e.g. "CallTool".
	Name string
	// Method is the wire name from the matching Method constant, e.g. "tools/call".
	Method string
	// Params and Result are the Go types as written in the bindings
	// (unqualified, e.g. "*CallToolRequestParams"); empty when absent.
	Params, Result string
	// Request is false for notifications (a method that returns only error).
	Request bool
}

// fullInterfaces are the generated interfaces made of one handler
// interface per method, by the side they describe.
// InputHandler (2026-07-28) holds the input requests a modern server embeds
// in an InputRequiredResult: the client answers them too.
var fullInterfaces = map[string]string{"ServerHandler": "Server", "ClientHandler": "Client", "InputHandler": "Client"}

// ReadBindings parses the generated package in dir. It fails naming the
// directory when dir does not hold mcpgen bindings.
func ReadBindings(dir string) (*Bindings, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	b := &Bindings{Interfaces: map[string][]BindingMethod{}, Capabilities: map[string]string{}}
	consts := map[string]string{}
	handlers := map[string]BindingMethod{} // the single-method interfaces, by name
	embeds := map[string][]string{}        // the full interfaces' embedded names
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		b.Package = f.Name.Name
		for _, decl := range f.Decls {
			gd, ok := decl.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range gd.Specs {
				switch s := spec.(type) {
				case *ast.ValueSpec:
					for i, n := range s.Names {
						if i < len(s.Values) {
							if lit, ok := s.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
								consts[n.Name], _ = strconv.Unquote(lit.Value)
							}
						}
					}
				case *ast.TypeSpec:
					it, ok := s.Type.(*ast.InterfaceType)
					if !ok {
						continue
					}
					if side, ok := fullInterfaces[s.Name.Name]; ok {
						for _, field := range it.Methods.List {
							if id, ok := field.Type.(*ast.Ident); ok && len(field.Names) == 0 {
								embeds[side] = append(embeds[side], id.Name)
							}
						}
						continue
					}
					if !strings.HasSuffix(s.Name.Name, "Handler") || len(it.Methods.List) != 1 {
						continue
					}
					field := it.Methods.List[0]
					ft, ok := field.Type.(*ast.FuncType)
					if !ok || len(field.Names) == 0 {
						continue
					}
					m := BindingMethod{Name: field.Names[0].Name}
					if ft.Params != nil && len(ft.Params.List) > 1 {
						m.Params = exprString(ft.Params.List[1].Type)
					}
					if ft.Results != nil && len(ft.Results.List) == 2 {
						m.Request = true
						m.Result = exprString(ft.Results.List[0].Type)
					}
					handlers[s.Name.Name] = m
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			kv, ok := n.(*ast.KeyValueExpr)
			if !ok {
				return true
			}
			if id, isID := kv.Key.(*ast.Ident); !isID || id.Name != "Capabilities" {
				return true
			}
			if lit, ok := kv.Value.(*ast.CompositeLit); ok {
				for _, e := range lit.Elts {
					if pair, ok := e.(*ast.KeyValueExpr); ok {
						k, kok := pair.Key.(*ast.BasicLit)
						v, vok := pair.Value.(*ast.BasicLit)
						if kok && vok {
							ks, _ := strconv.Unquote(k.Value)
							vs, _ := strconv.Unquote(v.Value)
							b.Capabilities[ks] = vs
						}
					}
				}
			}
			return false
		})
	}
	for side, names := range embeds {
		var ms []BindingMethod
		seen := map[string]bool{}
		for _, n := range names {
			if m, ok := handlers[n]; ok && !seen[n] {
				seen[n] = true
				ms = append(ms, m)
			}
		}
		b.Interfaces[side] = ms
	}
	if len(b.Interfaces) == 0 {
		return nil, fmt.Errorf("%s: no generated ServerHandler or ClientHandler interface: not a directory of mcpgen bindings", dir)
	}
	b.Revision = consts["ProtocolVersion"]
	for side, ms := range b.Interfaces {
		for i := range ms {
			ms[i].Method = consts["Method"+ms[i].Name]
		}
		b.Interfaces[side] = ms
	}
	return b, nil
}

// exprString spells a parameter type of the bindings; generated signatures
// use only identifiers, pointers, slices and maps of them.
func exprString(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.StarExpr:
		return "*" + exprString(t.X)
	case *ast.ArrayType:
		return "[]" + exprString(t.Elt)
	case *ast.MapType:
		return "map[" + exprString(t.Key) + "]" + exprString(t.Value)
	case *ast.SelectorExpr:
		return exprString(t.X) + "." + t.Sel.Name
	}
	return "any"
}
