package schema

import (
	"fmt"
	"sort"
	"strings"
)

// chooseStrategy decides how a union's values are told apart on decode.
// The order matters: the JSON-RPC envelope and result unions are known
// shapes whose structural analysis would mislead (every result matches the
// open Result), then the cheapest test that decides is preferred.
func (a *analyser) chooseStrategy(u *Union) {
	if a.isEnvelope(u) {
		u.Strategy = StrategyEnvelope
		u.Note = "JSON-RPC message: method and id → request, method alone → notification, result → response, error → error response"
		return
	}
	if a.inputRequiredPair(u) {
		return
	}
	if a.isResultUnion(u) {
		u.Strategy = StrategyByMethod
		u.Note = "result union: members overlap (Result matches every object), so the method of the request answered decides"
		return
	}
	if a.byJSONKind(u) {
		return
	}
	if a.byDiscriminator(u, allBranches(u)) {
		return
	}
	if a.byRequiredKey(u) {
		return
	}
	a.structural(u, "no discriminator or unique required key; branches are tried most constrained first")
}

func allBranches(u *Union) []int {
	idx := make([]int, len(u.Branches))
	for i := range idx {
		idx[i] = i
	}
	return idx
}

// objectOf returns the object a branch stands for, following references.
func (a *analyser) objectOf(t *Type) *Type {
	t = a.resolve(t)
	if t != nil && t.Kind == KindObject {
		return t
	}
	return nil
}

// jsonKind is the JSON kind a branch admits: integer and number are both
// "number"; a union whose members share one kind has that kind.
func (a *analyser) jsonKind(t *Type) string {
	t = a.resolve(t)
	switch t.Kind {
	case KindInteger, KindNumber:
		return "number"
	case KindUnion:
		k := ""
		for _, b := range t.Union.Branches {
			bk := a.jsonKind(b)
			if k != "" && bk != k {
				return "mixed"
			}
			k = bk
		}
		return k
	}
	return string(t.Kind)
}

func (a *analyser) isEnvelope(u *Union) bool {
	members := map[string]bool{}
	var objects int
	for _, b := range u.Branches {
		for _, o := range a.leafObjects(b) {
			if o.property("jsonrpc") == nil {
				return false
			}
			objects++
			for _, p := range o.Properties {
				members[p.Name] = true
			}
		}
	}
	return objects >= 2 && members["method"] && (members["result"] || members["error"]) && members["id"]
}

// leafObjects lists the objects a branch may be, looking through unions of
// objects; arrays (2025-03-26 batches) contribute nothing.
func (a *analyser) leafObjects(t *Type) []*Type {
	if t = a.resolve(t); t == nil {
		return nil
	}
	switch t.Kind {
	case KindObject:
		return []*Type{t}
	case KindUnion:
		var out []*Type
		for _, b := range t.Union.Branches {
			out = append(out, a.leafObjects(b)...)
		}
		return out
	}
	return nil
}

// inputRequiredPair handles 2026-07-28's `InputRequiredResult | XResult`:
// resultType is typed as a plain string, so the schema has no
// discriminator; the spec says "input_required" selects the first branch
// and anything else (or nothing) the complete result.
func (a *analyser) inputRequiredPair(u *Union) bool {
	if len(u.Branches) != 2 {
		return false
	}
	ir := -1
	for i, b := range u.Branches {
		if b.Kind == KindRef && b.Ref == "InputRequiredResult" {
			ir = i
		}
	}
	if ir < 0 || u.Branches[1-ir].Kind != KindRef {
		return false
	}
	u.Strategy = StrategyDiscriminator
	u.Discriminator = "resultType"
	u.Values = make([][]string, 2)
	u.Values[ir] = []string{"input_required"}
	u.Values[1-ir] = []string{}
	u.DefaultBranch = 1 - ir
	u.Note = `resultType is a plain string in the schema; per the spec "input_required" selects InputRequiredResult and any other value, or none, the complete result`
	return true
}

// isResultUnion is true for the direction result unions: every branch is
// a *Result definition and one branch is the open Result itself, or two
// branches have the same shape (GetTaskResult and CancelTaskResult).
func (a *analyser) isResultUnion(u *Union) bool {
	if len(u.Branches) < 2 {
		return false
	}
	overlap := false
	for i, b := range u.Branches {
		if b.Kind != KindRef || !strings.HasSuffix(b.Ref, "Result") {
			return false
		}
		if b.Ref == "Result" || b.Ref == "EmptyResult" {
			overlap = true
		}
		for _, c := range u.Branches[:i] {
			if sameShape(a.resolve(b), a.resolve(c)) {
				overlap = true
			}
		}
	}
	return overlap
}

func (a *analyser) byJSONKind(u *Union) bool {
	kinds := make([]string, len(u.Branches))
	seen := map[string]int{}
	var objects []int
	for i, b := range u.Branches {
		k := a.jsonKind(b)
		if k == "any" || k == "mixed" {
			return false
		}
		kinds[i] = k
		if k == "object" {
			objects = append(objects, i)
			continue
		}
		seen[k]++
	}
	for k, n := range seen {
		if n > 1 && (k != "number" || !a.integerNumberPair(u, kinds)) {
			return false
		}
	}
	if len(seen) == 0 || (len(seen) == 1 && len(objects) == 0) {
		return false
	}
	u.Strategy = StrategyJSONKind
	u.Kinds = kinds
	if len(objects) > 1 && !a.byDiscriminator(u, objects) {
		u.Note = "object branches have no discriminator; they are tried most constrained first"
		u.Order = a.specificityOrder(u, objects)
	}
	u.Strategy = StrategyJSONKind
	return true
}

// integerNumberPair is true when the union's number branches are exactly
// one integer and one number (["string","integer","number"] and the like):
// the literal then decides, an integer literal (no fraction, no exponent)
// selecting the integer branch and any other number the number branch.
// The integer branch's kind becomes "integer" in kinds.
func (a *analyser) integerNumberPair(u *Union, kinds []string) bool {
	integer, number := -1, -1
	for i, b := range u.Branches {
		if kinds[i] != "number" {
			continue
		}
		switch a.resolve(b).Kind {
		case KindInteger:
			if integer >= 0 {
				return false
			}
			integer = i
		case KindNumber:
			if number >= 0 {
				return false
			}
			number = i
		default:
			return false
		}
	}
	if integer < 0 || number < 0 {
		return false
	}
	kinds[integer] = "integer"
	return true
}

// byDiscriminator looks for a property that has a const (or enum) in
// every branch listed, with pairwise disjoint values, required in all but
// at most one branch (which then takes the value's absence).
func (a *analyser) byDiscriminator(u *Union, branches []int) bool {
	var objs []*Type
	for _, i := range branches {
		o := a.objectOf(u.Branches[i])
		if o == nil {
			return false
		}
		objs = append(objs, o)
	}
	var candidates []string
	for _, p := range objs[0].Properties {
		candidates = append(candidates, p.Name)
	}
	for _, name := range candidates {
		values := make([][]string, len(u.Branches))
		used := map[string]bool{}
		optional := -1
		ok := true
		for k, o := range objs {
			p := o.property(name)
			if p == nil {
				ok = false
				break
			}
			vals := constValues(a.resolve(p.Type))
			if len(vals) == 0 {
				ok = false
				break
			}
			for _, v := range vals {
				if used[v] {
					ok = false
				}
				used[v] = true
			}
			if !p.Required {
				if optional >= 0 {
					ok = false
				}
				optional = branches[k]
			}
			values[branches[k]] = vals
		}
		if !ok {
			continue
		}
		u.Strategy = StrategyDiscriminator
		u.Discriminator = name
		u.Values = values
		u.DefaultBranch = optional
		if optional >= 0 {
			u.Note = fmt.Sprintf("%s is optional in branch %d, which is chosen when it is absent", name, optional)
		}
		return true
	}
	return false
}

func constValues(t *Type) []string {
	if t == nil {
		return nil
	}
	switch c := t.Const.(type) {
	case string:
		return []string{c}
	case int64:
		return []string{fmt.Sprint(c)}
	}
	return t.Enum
}

// byRequiredKey: every branch but at most one has a required property
// that no other branch declares.
func (a *analyser) byRequiredKey(u *Union) bool {
	objs := make([]*Type, len(u.Branches))
	for i, b := range u.Branches {
		if objs[i] = a.objectOf(b); objs[i] == nil {
			return false
		}
	}
	values := make([][]string, len(u.Branches))
	fallback := -1
	for i, o := range objs {
		key := ""
		for _, p := range o.Properties {
			if !p.Required {
				continue
			}
			unique := true
			for j, other := range objs {
				if j != i && other.property(p.Name) != nil {
					unique = false
					break
				}
			}
			if unique {
				key = p.Name
				break
			}
		}
		if key == "" {
			if fallback >= 0 {
				return false
			}
			fallback = i
			values[i] = []string{}
			continue
		}
		values[i] = []string{key}
	}
	u.Strategy = StrategyRequiredKey
	u.Values = values
	u.DefaultBranch = fallback
	return true
}

func (a *analyser) structural(u *Union, note string) {
	u.Strategy = StrategyStructural
	u.Order = a.specificityOrder(u, allBranches(u))
	u.Note = note
}

// specificityOrder sorts branches by how much they demand (required
// members, constants, nested required members), most first, so the first
// branch whose demands a value meets is the most specific one.
func (a *analyser) specificityOrder(u *Union, idx []int) []int {
	order := append([]int(nil), idx...)
	score := func(i int) int {
		return a.demands(u.Branches[i], 2)
	}
	sort.SliceStable(order, func(x, y int) bool { return score(order[x]) > score(order[y]) })
	return order
}

func (a *analyser) demands(t *Type, depth int) int {
	o := a.objectOf(t)
	if o == nil || depth == 0 {
		return 0
	}
	n := 0
	for _, p := range o.Properties {
		pt := a.resolve(p.Type)
		if p.Required {
			n++
			if pt.Kind == KindArray && pt.Items != nil {
				n += a.demands(pt.Items, depth-1)
			}
			n += a.demands(pt, depth-1)
		}
		if pt.Const != nil {
			n++
		}
	}
	return n
}

func (t *Type) property(name string) *Property {
	for _, p := range t.Properties {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// sameShape compares two normalised types, ignoring where they are and
// what their descriptions say.
func sameShape(x, y *Type) bool {
	if x == nil || y == nil {
		return x == y
	}
	if x.Kind != y.Kind || x.Ref != y.Ref || fmt.Sprint(x.Const) != fmt.Sprint(y.Const) ||
		strings.Join(x.Enum, "\x00") != strings.Join(y.Enum, "\x00") || x.Nullable != y.Nullable ||
		len(x.Properties) != len(y.Properties) || !sameShape(x.Items, y.Items) || !sameShape(x.Additional, y.Additional) {
		return false
	}
	for i, p := range x.Properties {
		q := y.Properties[i]
		if p.Name != q.Name || p.Required != q.Required || !sameShape(p.Type, q.Type) {
			return false
		}
	}
	if x.Union != nil || y.Union != nil {
		if x.Union == nil || y.Union == nil || len(x.Union.Branches) != len(y.Union.Branches) {
			return false
		}
		for i := range x.Union.Branches {
			if !sameShape(x.Union.Branches[i], y.Union.Branches[i]) {
				return false
			}
		}
	}
	return true
}
