package schema

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Change is one API-level difference between two revisions.
type Change struct {
	// Kind is what changed: "method added", "method removed", "method
	// changed", "type added", "type removed", "type changed", "field added",
	// "field removed", "field changed", "union member added", "union member
	// removed" or "fact changed".
	Kind string `json:"kind"`
	// Subject names it: a method ("tools/call"), a definition
	// ("CallToolRequest"), a member path ("CallToolRequestParams.task") or a
	// cancellation or lifecycle fact ("clientMayCancel").
	Subject string `json:"subject"`
	// Detail says how, for changes: "optional → required", "string → integer".
	Detail string `json:"detail,omitempty"`
}

// String reads "field changed: Tool.name: optional → required".
func (c Change) String() string {
	if c.Detail == "" {
		return c.Kind + ": " + c.Subject
	}
	return c.Kind + ": " + c.Subject + ": " + c.Detail
}

// Diff is what changed from one model to another, in a stable order:
// methods, then definitions and their members, then unions, then facts.
type Diff struct {
	From    string   `json:"from"`
	To      string   `json:"to"`
	Changes []Change `json:"changes"`
}

// Compare returns the API-level differences from a to b: what a user of the
// bindings generated from a meets when regenerating from b.
//
// When b is an extension (LoadExtension) and a a core revision, the
// comparison is scoped to what the extension is about: its own methods and
// definitions against a's methods of the same topics (tasks/get,
// notifications/tasks/status: "tasks") and the definitions those reach,
// leaving out the core definitions the extension copies (Result, Error)
// and any other definition of its core revision (PaginatedRequestParams):
// those are the core's, compared by a diff between core revisions. That is the diff a
// user of a's tasks meets when moving to the extension.
func Compare(a, b *Model) *Diff {
	if b.Extension != nil && a.Extension == nil {
		return compare(a, b, extensionScope(a, b))
	}
	return compare(a, b, nil)
}

// diffScope limits a comparison; nil compares everything.
type diffScope struct {
	methods    map[string]bool
	defsA      map[string]bool
	defsB      map[string]bool
	skipFacts  bool
	fromSuffix string
	toSuffix   string
}

// methodTopic is a method's first path segment past "notifications/":
// "tasks" for tasks/get and for notifications/tasks/status.
func methodTopic(name string) string {
	name = strings.TrimPrefix(name, "notifications/")
	topic, _, _ := strings.Cut(name, "/")
	return topic
}

func extensionScope(a, b *Model) *diffScope {
	ext := b.Extension
	sc := &diffScope{methods: map[string]bool{}, defsA: map[string]bool{}, defsB: map[string]bool{}, skipFacts: true,
		toSuffix: " + " + ext.Identifier}
	topics := map[string]bool{}
	for _, me := range b.Methods {
		topics[methodTopic(me.Name)] = true
		sc.methods[me.Name] = true
	}
	var roots []string
	for _, me := range a.Methods {
		if topics[methodTopic(me.Name)] {
			sc.methods[me.Name] = true
			roots = append(roots, me.Definition, me.Result)
			roots = append(roots, me.ResultAlternatives...)
			if me.Params != nil && me.Params.Kind == KindRef {
				roots = append(roots, me.Params.Ref)
			}
		}
	}
	roots = append(roots, ext.Own...)
	var visit func(name string)
	visit = func(name string) {
		d := a.Definition(name)
		if d == nil || sc.defsA[name] || ext.IsCore(name) || (ext.inCore[name] && !containsString(ext.Own, name)) {
			return
		}
		sc.defsA[name] = true
		walkRefs(d.Type, visit)
	}
	for _, r := range roots {
		visit(r)
	}
	for _, name := range ext.Own {
		sc.defsB[name] = true
	}
	return sc
}

// walkRefs calls fn with every definition t refers to.
func walkRefs(t *Type, fn func(string)) {
	if t == nil {
		return
	}
	if t.Kind == KindRef {
		fn(t.Ref)
		return
	}
	for _, r := range t.AllOf {
		fn(r)
	}
	for _, p := range t.Properties {
		walkRefs(p.Type, fn)
	}
	walkRefs(t.Items, fn)
	walkRefs(t.Additional, fn)
	if t.Union != nil {
		for _, br := range t.Union.Branches {
			walkRefs(br, fn)
		}
	}
}

func compare(a, b *Model, sc *diffScope) *Diff {
	d := &Diff{From: a.Revision, To: b.Revision, Changes: []Change{}}
	if sc != nil {
		d.From += sc.fromSuffix
		d.To += sc.toSuffix
	}
	add := func(kind, subject, detail string) {
		d.Changes = append(d.Changes, Change{Kind: kind, Subject: subject, Detail: detail})
	}

	am, bm := methodsByName(a), methodsByName(b)
	for _, name := range unionKeys(am, bm) {
		if sc != nil && !sc.methods[name] {
			continue
		}
		x, y := am[name], bm[name]
		switch {
		case x == nil:
			add("method added", name, string(y.Kind)+", "+directions(y))
		case y == nil:
			add("method removed", name, "")
		default:
			for _, c := range []struct{ what, from, to string }{
				{"kind", string(x.Kind), string(y.Kind)},
				{"direction", directions(x), directions(y)},
				{"params", shapeText(a, x.Params), shapeText(b, y.Params)},
				{"params", requiredText(x.ParamsRequired), requiredText(y.ParamsRequired)},
				{"result", x.Result, y.Result},
				{"result alternatives", strings.Join(x.ResultAlternatives, ", "), strings.Join(y.ResultAlternatives, ", ")},
				{"cancellable", fmt.Sprint(x.Cancellable), fmt.Sprint(y.Cancellable)},
				{"task-augmentable", fmt.Sprint(x.TaskAugmentable), fmt.Sprint(y.TaskAugmentable)},
			} {
				if c.from != c.to {
					add("method changed", name, fmt.Sprintf("%s %s → %s", c.what, orNone(c.from), orNone(c.to)))
				}
			}
		}
	}

	ad, bd := defsByName(a), defsByName(b)
	if sc != nil {
		ad, bd = only(ad, sc.defsA), only(bd, sc.defsB)
	}
	for _, name := range unionKeys(ad, bd) {
		x, y := ad[name], bd[name]
		switch {
		case x == nil:
			add("type added", name, "")
		case y == nil:
			add("type removed", name, "")
		default:
			compareTypes(add, a, b, name, x.Type, y.Type, 0)
		}
	}

	au, bu := unionMembers(a), unionMembers(b)
	if sc != nil {
		au, bu = only(au, sc.defsA), only(bu, sc.defsB)
	}
	for _, name := range unionKeys(au, bu) {
		if au[name] == nil || bu[name] == nil {
			continue // the definition's addition or removal says it
		}
		for _, m := range setDiff(bu[name], au[name]) {
			add("union member added", name, m)
		}
		for _, m := range setDiff(au[name], bu[name]) {
			add("union member removed", name, m)
		}
	}

	sortChanges(d.Changes)

	af, bf := factMap(a.Facts), factMap(b.Facts)
	if sc != nil && sc.skipFacts {
		// An extension has no cancellation or lifecycle facts of its own.
		af, bf = nil, nil
	}
	for _, k := range unionKeys(af, bf) {
		if k == "source" {
			continue
		}
		if af[k] != bf[k] {
			add("fact changed", k, orNone(af[k])+" → "+orNone(bf[k]))
		}
	}
	return d
}

// kindOrder is the order of the groups in a Diff.
var kindOrder = []string{"method added", "method removed", "method changed", "type added", "type removed",
	"type changed", "field added", "field removed", "field changed", "union member added", "union member removed", "fact changed"}

func sortChanges(cs []Change) {
	rank := map[string]int{}
	for i, k := range kindOrder {
		rank[k] = i
	}
	sort.SliceStable(cs, func(i, j int) bool { return rank[cs[i].Kind] < rank[cs[j].Kind] })
}

// shapeText is what a Go user sees of a method's params: an object (a struct,
// named after the method in every revision) or a union (an interface).
func shapeText(m *Model, t *Type) string {
	if t == nil {
		return ""
	}
	if r := m.Resolve(t); r != nil && r.Kind == KindUnion {
		return "union"
	}
	return "object"
}

// compareTypes reports the member-level changes between two versions of a
// type at path, descending into inline objects. An inline object and a
// reference to an object definition are the same API (the generator names
// both), so they are compared member by member.
func compareTypes(add func(kind, subject, detail string), a, b *Model, path string, x, y *Type, depth int) {
	if tx, ty := typeText(x), typeText(y); tx != ty {
		rx, ry := a.Resolve(x), b.Resolve(y)
		if depth < 4 && rx != nil && ry != nil && rx.Kind == KindObject && ry.Kind == KindObject && (x.Kind == KindObject || y.Kind == KindObject) {
			compareTypes(add, a, b, path, rx, ry, depth+1)
			return
		}
		add("type changed", path, tx+" → "+ty)
		return
	}
	if x == nil || y == nil || x.Kind != KindObject {
		return
	}
	xp, yp := propsByName(x), propsByName(y)
	for _, name := range unionKeys(xp, yp) {
		p, q := xp[name], yp[name]
		sub := path + "." + name
		switch {
		case p == nil:
			add("field added", sub, requiredText(q.Required)+" "+typeText(q.Type))
		case q == nil:
			add("field removed", sub, "")
		default:
			if p.Required != q.Required {
				add("field changed", sub, requiredText(p.Required)+" → "+requiredText(q.Required))
			}
			compareField(add, a, b, sub, p.Type, q.Type, depth)
		}
	}
}

// compareField reports a member's type change, looking through the
// difference between an inline object and a reference to one.
func compareField(add func(kind, subject, detail string), a, b *Model, path string, x, y *Type, depth int) {
	tx, ty := typeText(x), typeText(y)
	if tx == ty {
		compareTypes(add, a, b, path, x, y, depth+1)
		return
	}
	rx, ry := a.Resolve(x), b.Resolve(y)
	if depth < 4 && rx != nil && ry != nil && rx.Kind == KindObject && ry.Kind == KindObject && (x.Kind == KindObject || y.Kind == KindObject) {
		compareTypes(add, a, b, path, rx, ry, depth+1)
		return
	}
	add("field changed", path, tx+" → "+ty)
}

// typeText spells a type as the diff shows it: a definition's name, a scalar
// kind, "[]T", "object", "union" or an enum's values.
func typeText(t *Type) string {
	if t == nil {
		return ""
	}
	s := string(t.Kind)
	switch t.Kind {
	case KindRef:
		s = t.Ref
	case KindArray:
		s = "[]" + typeText(t.Items)
	case KindString:
		if len(t.Enum) > 0 {
			// A set: listing the same values in another order is no change.
			vals := append([]string(nil), t.Enum...)
			sort.Strings(vals)
			s = "enum(" + strings.Join(vals, "|") + ")"
		} else if t.Const != nil {
			s = fmt.Sprintf("const %v", t.Const)
		}
	case KindObject:
		if len(t.Properties) == 0 && t.Additional != nil {
			s = "map[string]" + typeText(t.Additional)
		}
	}
	if t.Nullable {
		s += "|null"
	}
	return s
}

func requiredText(r bool) string {
	if r {
		return "required"
	}
	return "optional"
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func directions(me *Method) string {
	var ds []string
	for _, d := range me.Directions {
		ds = append(ds, string(d))
	}
	return strings.Join(ds, ", ")
}

func methodsByName(m *Model) map[string]*Method {
	out := map[string]*Method{}
	for _, me := range m.Methods {
		out[me.Name] = me
	}
	return out
}

func defsByName(m *Model) map[string]*Definition {
	out := map[string]*Definition{}
	for _, d := range m.Definitions {
		out[d.Name] = d
	}
	return out
}

func propsByName(t *Type) map[string]*Property {
	out := map[string]*Property{}
	for _, p := range t.Properties {
		out[p.Name] = p
	}
	return out
}

// unionMembers maps each named union to the names of its branches.
func unionMembers(m *Model) map[string][]string {
	out := map[string][]string{}
	for _, u := range m.Unions {
		if u.Definition == "" {
			continue
		}
		var names []string
		for _, b := range u.Branches {
			names = append(names, typeText(b))
		}
		out[u.Definition] = names
	}
	return out
}

// factMap flattens Facts into its JSON members, so every fact added to the
// struct is compared without a change here.
func factMap(f Facts) map[string]string {
	data, _ := json.Marshal(f)
	var raw map[string]json.RawMessage
	json.Unmarshal(data, &raw)
	out := map[string]string{}
	for k, v := range raw {
		out[k] = strings.Trim(string(v), `"`)
	}
	return out
}

func setDiff(a, b []string) []string {
	in := map[string]bool{}
	for _, s := range b {
		in[s] = true
	}
	var out []string
	for _, s := range a {
		if !in[s] {
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// unionKeys is the sorted union of two maps' keys.
func unionKeys[V any](a, b map[string]V) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range []map[string]V{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				out = append(out, k)
			}
		}
	}
	sort.Strings(out)
	return out
}

// only keeps the entries of m whose key is in keep.
func only[V any](m map[string]V, keep map[string]bool) map[string]V {
	out := make(map[string]V, len(keep))
	for k, v := range m {
		if keep[k] {
			out[k] = v
		}
	}
	return out
}
