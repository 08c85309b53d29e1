package schema

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
)

// Extension describes an extension schema composed with the core revision
// it extends: which of its definitions are its own and which are copies of
// core definitions, which the generated bindings take from the core
// package instead of declaring again.
type Extension struct {
	// Name is the extension's short name ("tasks").
	Name string `json:"name"`
	// Identifier is its key in capabilities.extensions
	// ("io.modelcontextprotocol/tasks").
	Identifier string `json:"identifier"`
	// Core is the core revision it is composed with ("2026-07-28"); the
	// Model's Revision is the same.
	Core string `json:"core"`
	// ID is the schema document's $id, if any.
	ID string `json:"id,omitempty"`
	// CoreDefinitions are the definitions the extension schema carries as
	// copies of core definitions: each is equal (canonically) to the core
	// revision's definition of the same name. Sorted.
	CoreDefinitions []string `json:"coreDefinitions"`
	// Own are the extension's own definitions. Sorted.
	Own []string `json:"own"`

	core map[string]bool
	// inCore holds every definition name of the core revision.
	inCore map[string]bool
}

// IsCore reports whether definition name is a copy of a core definition,
// to be taken from the core revision's bindings.
func (e *Extension) IsCore(name string) bool { return e != nil && e.core[name] }

// ExtensionOptions name an extension schema for LoadExtension.
type ExtensionOptions struct {
	// Name is the extension's short name ("tasks"). Required.
	Name string
	// Identifier is its capabilities.extensions key. Required.
	Identifier string
}

// LoadExtension builds the Model of the extension schema in data composed
// with core, the Model of the core revision it extends. file names the
// extension schema in errors.
//
// An extension schema is a document of its own: its references are to its
// own $defs, so it carries copies of the core definitions it uses. Each
// definition whose name the core revision also defines must be equal to
// the core definition (canonically: formatting and key order aside, and a
// definition-level $schema aside); it is then a core definition, and the
// generator refers to the core package's type. A definition that shares a
// core name but differs is an error naming both places: silently taking
// either would be wrong for one of the documents.
//
// The Model's Methods are the extension's own: every own definition that
// is a JSON-RPC request or notification (an allOf over the core
// JSONRPCRequest or JSONRPCNotification with a method constant). Requests
// are sent by the client and the notifications by the server, as the only
// official extension (ext-tasks, specification/draft/tasks.md) has them;
// results are found by the naming rule (XRequest → XResult).
func LoadExtension(file string, data []byte, core *Model, opts ExtensionOptions) (*Model, error) {
	if core == nil || core.Extension != nil {
		return nil, errAt(file, "", "an extension is composed with a core revision's model")
	}
	if opts.Name == "" || opts.Identifier == "" {
		return nil, errAt(file, "", "an extension needs a name and an identifier")
	}
	root, err := parseRoot(file, data)
	if err != nil {
		return nil, err
	}
	// The extension's copies of core definitions are copies of the
	// published core; the core Model has mcpgen's errata applied
	// (errata.go), so the copies get the same corrections before they are
	// compared with it.
	published := data
	applied, data, err := applyCoreErrata(file, core.Revision, root, data)
	if err != nil {
		return nil, err
	}
	m, err := LoadBytes(file, data, Options{Revision: core.Revision})
	if err != nil {
		return nil, err
	}
	m.Errata = applied
	sum := sha256.Sum256(published) // the digest names the file as published
	m.SHA256 = hex.EncodeToString(sum[:])
	if m.Dialect != core.Dialect {
		return nil, errAt(file, "#/$schema", "the extension is JSON Schema %s, its core revision %s is %s", m.Dialect, core.Revision, core.Dialect)
	}
	ext := &Extension{Name: opts.Name, Identifier: opts.Identifier, Core: core.Revision, core: map[string]bool{}, inCore: map[string]bool{}}
	for _, d := range core.Definitions {
		ext.inCore[d.Name] = true
	}
	ext.ID, _ = root["$id"].(string)
	for _, d := range m.Definitions {
		cd := core.Definition(d.Name)
		if cd == nil {
			ext.Own = append(ext.Own, d.Name)
			continue
		}
		if m.defDigests[d.Name] != core.defDigests[d.Name] {
			return nil, errAt(file, d.Pointer, "definition %q is also a definition of core revision %s (%s) but differs from it: an extension may copy a core definition, not redefine it", d.Name, core.Revision, cd.Pointer)
		}
		ext.core[d.Name] = true
		ext.CoreDefinitions = append(ext.CoreDefinitions, d.Name)
	}
	if len(ext.Own) == 0 {
		return nil, errAt(file, "#/"+m.DefsKey, "the extension defines nothing of its own: every definition is a copy of core revision %s", core.Revision)
	}
	m.Extension = ext
	if err := shareDefinitions(m, root); err != nil {
		return nil, errAt(file, "", "%v", err)
	}
	// Union strategies were chosen over the inline branches; choose again
	// now that some branches are references.
	m.Unions = nil
	a := newAnalyser(m, file)
	a.collectUnions()

	// The methods are the extension's own; the unions are those in its
	// own definitions (the core package has the others).
	m.Methods = nil
	for _, name := range ext.Own {
		d := m.Definition(name)
		method, ok := methodConst(d.Type)
		if !ok {
			continue
		}
		var me *Method
		switch {
		case containsString(d.Type.AllOf, "JSONRPCRequest"):
			me = &Method{Name: method, Kind: Request, Definition: name, Directions: []Direction{ClientToServer}, Cancellable: true}
			base := strings.TrimSuffix(name, "Request")
			if m.Definition(base+"Result") == nil {
				return nil, errAt(file, d.Pointer, "cannot find the result of %q: no %sResult", method, base)
			}
			me.Result, me.ResultRule = base+"Result", "naming"
		case containsString(d.Type.AllOf, "JSONRPCNotification"):
			me = &Method{Name: method, Kind: Notification, Definition: name, Directions: []Direction{ServerToClient}}
		default:
			return nil, errAt(file, d.Pointer, "definition %q has a method constant but is neither a JSONRPCRequest nor a JSONRPCNotification", name)
		}
		if p := d.Type.property("params"); p != nil {
			me.Params, me.ParamsRequired = p.Type, p.Required
		}
		m.Methods = append(m.Methods, me)
	}
	sort.Slice(m.Methods, func(i, j int) bool {
		x, y := m.Methods[i], m.Methods[j]
		if x.Kind != y.Kind {
			return x.Kind == Request
		}
		return x.Name < y.Name
	})
	var unions []*Union
	for _, u := range m.Unions {
		if !ext.IsCore(definitionOfPointer(u.Pointer, m.DefsKey)) {
			unions = append(unions, u)
		}
	}
	m.Unions = unions
	return m, nil
}

// definitionOfPointer returns the definition a JSON pointer is inside.
func definitionOfPointer(ptr, defsKey string) string {
	rest, ok := strings.CutPrefix(ptr, "#/"+defsKey+"/")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "/")
	return strings.ReplaceAll(strings.ReplaceAll(name, "~1", "/"), "~0", "~")
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// String is a one-line summary for listings.
func (e *Extension) String() string {
	return fmt.Sprintf("%s (%s) composed with %s: %d definitions of its own, %d copied from the core", e.Name, e.Identifier, e.Core, len(e.Own), len(e.CoreDefinitions))
}

// shareDefinitions replaces every inline node of the extension's own
// definitions that spells out, exactly, the schema of one of its own
// definitions by a reference to that definition. The bundler that wrote
// ext-tasks inlines instead of referring (Task.status repeats TaskStatus,
// DetailedTask's branches repeat WorkingTask … CancelledTask,
// TaskStatusNotification.params repeats TaskStatusNotificationParams):
// one schema then gets one Go type, not one per place. Nodes that an allOf
// distribution built (GetTaskResult's branches: Result ∧ a task shape)
// are not what their pointer holds and are never replaced.
func shareDefinitions(m *Model, root map[string]any) error {
	byDigest := map[string]string{}
	for _, name := range m.Extension.Own {
		dg := m.defDigests[name]
		if prev, ok := byDigest[dg]; ok && prev < name {
			continue // two equal definitions: the first by name wins
		}
		byDigest[dg] = name
	}
	var walk func(t *Type, self string) (*Type, error)
	walk = func(t *Type, self string) (*Type, error) {
		if t == nil || t.Kind == KindRef {
			return t, nil
		}
		if !t.derived {
			if raw, ok := rawAt(root, t.Pointer); ok {
				dg, err := canonicalDigest(raw)
				if err != nil {
					return nil, err
				}
				if name, ok := byDigest[dg]; ok && name != self {
					return &Type{Kind: KindRef, Ref: name, Pointer: t.Pointer, Description: t.Description}, nil
				}
			}
		}
		var err error
		for _, p := range t.Properties {
			if p.Type, err = walk(p.Type, ""); err != nil {
				return nil, err
			}
		}
		if t.Items, err = walk(t.Items, ""); err != nil {
			return nil, err
		}
		if t.Additional, err = walk(t.Additional, ""); err != nil {
			return nil, err
		}
		if t.Union != nil {
			for i, b := range t.Union.Branches {
				if t.Union.Branches[i], err = walk(b, ""); err != nil {
					return nil, err
				}
			}
		}
		return t, nil
	}
	for _, name := range m.Extension.Own {
		d := m.Definition(name)
		// The root is the definition itself; its members may share.
		t, err := walk(d.Type, name)
		if err != nil {
			return err
		}
		d.Type = t
	}
	return nil
}

// rawAt follows a JSON pointer ("#/a/b/0") into a decoded document.
func rawAt(root any, ptr string) (any, bool) {
	rest, ok := strings.CutPrefix(ptr, "#")
	if !ok {
		return nil, false
	}
	cur := root
	for _, tok := range strings.Split(strings.TrimPrefix(rest, "/"), "/") {
		if tok == "" {
			continue
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch v := cur.(type) {
		case map[string]any:
			if cur, ok = v[tok]; !ok {
				return nil, false
			}
		case []any:
			var i int
			if _, err := fmt.Sscanf(tok, "%d", &i); err != nil || i < 0 || i >= len(v) {
				return nil, false
			}
			cur = v[i]
		default:
			return nil, false
		}
	}
	return cur, true
}
