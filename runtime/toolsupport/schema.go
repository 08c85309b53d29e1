package toolsupport

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// Schemas from the wild. A tools package generated from a server's snapshot
// binds to json.RawMessage what it cannot give a Go type (oneOf of objects,
// a list of types, a recursive $ref, prefixItems, not, ...; the list is in
// docs/typed-callers.md). Those values are not left unchecked: the package
// keeps the tool's schema as the server published it (a Schema) and checks
// each raw value against its fragment with this interpreter, in the Caller
// before anything is sent (CheckArguments), in the Handler's bind functions
// and when a structured result is decoded (Schema.Check).
//
// The interpreter implements the assertions of JSON Schema 2020-12 and
// draft-07 that apply to one value: type (a name or a list), enum, const,
// allOf, anyOf, oneOf, not, if/then/else, local $ref (to "#" and "#/..."
// pointers, recursion included; siblings ignored in draft-07 and before),
// properties, required, additionalProperties, patternProperties,
// propertyNames, min/maxProperties, dependentRequired, dependentSchemas and
// draft-07 dependencies, items (a schema or a draft-07 tuple),
// prefixItems, additionalItems, contains with min/maxContains,
// min/maxItems, uniqueItems, min/maxLength, pattern, the numeric bounds
// (draft-04's boolean exclusive bounds too) and multipleOf. It does not
// assert what would need more than the value and the document: format (an
// annotation in 2020-12), a $ref to another document or to an $anchor,
// $dynamicRef, unevaluatedProperties and unevaluatedItems (they need every
// annotation of the value), and a pattern Go's regexp cannot compile
// (ECMA-262 lookaround): the server, which owns the schema, checks those.
// So it never rejects what the schema admits, and rejects what it can.

// Schema is a tool's input or output schema, as the server published it,
// kept by a generated package for the values it binds to json.RawMessage.
// It is parsed on first use; the zero value is not usable (NewSchema).
type Schema struct {
	src  string
	once sync.Once
	root any
	err  error
	// legacyRef: the document declares draft-07 or earlier, where
	// the siblings of $ref are ignored.
	legacyRef bool
	patterns  sync.Map // pattern → *regexp.Regexp, nil when Go cannot compile it
}

// NewSchema returns the schema document src (JSON), parsed when first
// used.
func NewSchema(src string) *Schema { return &Schema{src: src} }

func (s *Schema) load() error {
	s.once.Do(func() {
		s.root, s.err = Parse([]byte(s.src))
		if m, ok := s.root.(map[string]any); ok {
			d, _ := m["$schema"].(string)
			s.legacyRef = strings.Contains(d, "draft-0")
		}
	})
	return s.err
}

// Check checks v, a value decoded as Parse decodes, against the fragment of
// the document at the JSON pointer at ("" is the whole document); p is v's
// own pointer, which violations are reported at and under.
func (s *Schema) Check(v any, at, p string) error {
	if err := s.load(); err != nil {
		return fmt.Errorf("toolsupport: the schema kept for %s does not parse: %w", at, err)
	}
	frag, ok := lookup(s.root, at)
	if !ok {
		return fmt.Errorf("toolsupport: the schema kept has nothing at %q", at)
	}
	c := &checker{s: s, budget: checkBudget}
	return c.check(frag, v, p)
}

// CheckMembers checks the value of every member of m against the fragment
// at at (an additionalProperties schema, of an object bound to
// map[string]json.RawMessage), reporting every member at fault, in key
// order; p is m's pointer.
func (s *Schema) CheckMembers(m map[string]any, at, p string) error {
	var errs Violations
	for _, k := range sortedKeys(m) {
		errs.Add(s.Check(m[k], at, p+"/"+esc(k)))
	}
	return errs.Err()
}

// Step is one step down from a tool's arguments towards a value a RawCheck
// checks: the member Name, or with Each every item of an array and every
// member of an object.
type Step struct {
	Name string
	Each bool
}

// RawCheck says where a value bound to json.RawMessage sits in a tool's
// arguments (Path; empty: the arguments themselves) and which fragment of
// Schema (the JSON pointer At) it must match.
type RawCheck struct {
	Path   []Step
	Schema *Schema
	At     string
}

// CheckArguments checks the arguments of tools/call, as a generated
// Caller is about to send them, against the raw-JSON checks of the tool,
// so a value the schema rejects is a *ValidationError (ValidationErrors
// for several) naming its pointer in the arguments, not a round trip. A
// path that does not reach a value (an absent optional member) checks
// nothing.
func CheckArguments(args map[string]json.RawMessage, checks []RawCheck) error {
	var errs Violations
	decoded := map[string]any{}
	for _, c := range checks {
		var v any
		path := c.Path
		if len(path) > 0 && !path[0].Each {
			raw, ok := args[path[0].Name]
			if !ok {
				continue
			}
			if v, ok = decoded[path[0].Name]; !ok {
				x, err := Parse(raw)
				if err != nil {
					err.(*ValidationError).Pointer = "/" + esc(path[0].Name)
					errs.Add(err)
					continue
				}
				decoded[path[0].Name], v = x, x
			}
			walk(v, path[1:], "/"+esc(path[0].Name), func(x any, p string) { errs.Add(c.Schema.Check(x, c.At, p)) })
			continue
		}
		all, err := arguments(args)
		if err != nil {
			errs.Add(err)
			continue
		}
		walk(all, path, "", func(x any, p string) { errs.Add(c.Schema.Check(x, c.At, p)) })
	}
	return errs.Err()
}

// walk calls f with every value path reaches from v (at pointer p).
func walk(v any, path []Step, p string, f func(any, string)) {
	if len(path) == 0 {
		f(v, p)
		return
	}
	st := path[0]
	switch x := v.(type) {
	case map[string]any:
		if !st.Each {
			if w, ok := x[st.Name]; ok {
				walk(w, path[1:], p+"/"+esc(st.Name), f)
			}
			return
		}
		for _, k := range sortedKeys(x) {
			walk(x[k], path[1:], p+"/"+esc(k), f)
		}
	case []any:
		if st.Each {
			for i, w := range x {
				walk(w, path[1:], p+"/"+strconv.Itoa(i), f)
			}
		}
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// lookup follows the JSON pointer at from root.
func lookup(root any, at string) (any, bool) {
	if at == "" {
		return root, true
	}
	if at[0] != '/' {
		return nil, false
	}
	cur := root
	for _, tok := range strings.Split(at[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[tok]
			if !ok {
				return nil, false
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// checkBudget bounds the schema applications of one Check: a schema whose
// $refs fan out exponentially is not checked past it (accepted, for the
// server to decide) rather than hanging the caller.
const checkBudget = 200000

// checker is one Check: the $refs being applied to each instance location
// (a $ref cycle that consumes nothing, such as {"$ref": "#"} at the root,
// adds no constraint and is cut) and the budget left.
type checker struct {
	s      *Schema
	active map[string]bool // ref + "\x00" + instance pointer
	budget int
}

func (c *checker) check(sch any, v any, p string) error {
	if c.budget--; c.budget < 0 {
		return nil
	}
	m, ok := sch.(map[string]any)
	if !ok {
		if b, ok := sch.(bool); ok && !b {
			return Invalid(p, "no value is allowed here (the schema is false)")
		}
		return nil
	}
	if ref, ok := m["$ref"].(string); ok {
		if err := c.ref(ref, v, p); err != nil {
			return err
		}
		if c.s.legacyRef {
			return nil
		}
	}
	if t, ok := m["type"]; ok {
		if err := checkType(t, v, p); err != nil {
			return err
		}
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		if err := OneOf(v, e, p); err != nil {
			return err
		}
	}
	if k, ok := m["const"]; ok && !equal(v, k) {
		return Invalid(p, "must be %s", Raw(k))
	}
	if err := c.applicators(m, v, p); err != nil {
		return err
	}
	switch x := v.(type) {
	case string:
		return c.str(m, x, p)
	case json.Number:
		return number(m, x, p)
	case []any:
		return c.array(m, x, p)
	case map[string]any:
		return c.object(m, x, p)
	}
	return nil
}

// ref applies the local $ref ref; one it cannot resolve checks nothing.
func (c *checker) ref(ref string, v any, p string) error {
	if !strings.HasPrefix(ref, "#") {
		return nil // another document: not fetched
	}
	frag := ref[1:]
	if strings.Contains(frag, "%") {
		u, err := url.PathUnescape(frag)
		if err != nil {
			return nil
		}
		frag = u
	}
	target, ok := lookup(c.s.root, frag)
	if !ok {
		return nil // an $anchor, or nowhere
	}
	key := ref + "\x00" + p
	if c.active[key] {
		return nil
	}
	if c.active == nil {
		c.active = map[string]bool{}
	}
	c.active[key] = true
	defer delete(c.active, key)
	return c.check(target, v, p)
}

func (c *checker) applicators(m map[string]any, v any, p string) error {
	for _, sub := range asList(m["allOf"]) {
		if err := c.check(sub, v, p); err != nil {
			return err
		}
	}
	if alts := asList(m["anyOf"]); len(alts) > 0 {
		var first error
		for _, sub := range alts {
			err := c.check(sub, v, p)
			if err == nil {
				first = nil
				break
			}
			if first == nil {
				first = err
			}
		}
		if first != nil {
			return Invalid(p, "must match at least one schema of anyOf (the first says %s)", first)
		}
	}
	if alts := asList(m["oneOf"]); len(alts) > 0 {
		n := 0
		var first error
		for _, sub := range alts {
			if err := c.check(sub, v, p); err == nil {
				n++
			} else if first == nil {
				first = err
			}
		}
		switch {
		case n == 0:
			return Invalid(p, "must match exactly one schema of oneOf, matches none (the first says %s)", first)
		case n > 1:
			return Invalid(p, "must match exactly one schema of oneOf, matches %d", n)
		}
	}
	if not, ok := m["not"]; ok && c.check(not, v, p) == nil {
		return Invalid(p, "must not match the schema of not")
	}
	if cond, ok := m["if"]; ok {
		branch := "else"
		if c.check(cond, v, p) == nil {
			branch = "then"
		}
		if sub, ok := m[branch]; ok {
			if err := c.check(sub, v, p); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkType checks "type", a name or a list of names.
func checkType(t any, v any, p string) error {
	var names []string
	switch t := t.(type) {
	case string:
		names = []string{t}
	case []any:
		for _, n := range t {
			if s, ok := n.(string); ok {
				names = append(names, s)
			}
		}
	default:
		return nil
	}
	got := kind(v)
	for _, n := range names {
		if n == got {
			return nil
		}
		if n == "integer" && got == "number" {
			if r := rat(string(v.(json.Number))); r != nil && r.IsInt() {
				return nil
			}
		}
	}
	if len(names) == 0 {
		return nil
	}
	if got == "number" {
		got = "number " + string(v.(json.Number))
	}
	return Invalid(p, "want %s, got %s", strings.Join(names, " or "), got)
}

func (c *checker) str(m map[string]any, s string, p string) error {
	if n, ok := count(m["minLength"]); ok && utf8.RuneCountInString(s) < n {
		return Invalid(p, "must be at least %d characters long, got %d", n, utf8.RuneCountInString(s))
	}
	if n, ok := count(m["maxLength"]); ok && utf8.RuneCountInString(s) > n {
		return Invalid(p, "must be at most %d characters long, got %d", n, utf8.RuneCountInString(s))
	}
	if pat, ok := m["pattern"].(string); ok {
		if re := c.s.pattern(pat); re != nil && !re.MatchString(s) {
			return Invalid(p, "must match the pattern %s", strconv.Quote(pat))
		}
	}
	return nil
}

// pattern is pat compiled, or nil when Go's regexp cannot (ECMA-262 only).
func (s *Schema) pattern(pat string) *regexp.Regexp {
	if re, ok := s.patterns.Load(pat); ok {
		return re.(*regexp.Regexp)
	}
	re, err := regexp.Compile(pat)
	if err != nil {
		re = nil
	}
	s.patterns.Store(pat, re)
	return re
}

func number(m map[string]any, n json.Number, p string) error {
	r := rat(string(n))
	if r == nil {
		return nil
	}
	bound := func(k, op string) error {
		switch b := m[k].(type) {
		case json.Number:
			if rat(string(b)) != nil {
				return Bound(r, op, string(b), p)
			}
		case bool: // draft-04: exclusiveMinimum/Maximum qualify minimum/maximum
		}
		return nil
	}
	min, max := ">=", "<="
	if b, _ := m["exclusiveMinimum"].(bool); b {
		min = ">"
	}
	if b, _ := m["exclusiveMaximum"].(bool); b {
		max = "<"
	}
	for _, b := range []struct{ k, op string }{{"minimum", min}, {"maximum", max}, {"exclusiveMinimum", ">"}, {"exclusiveMaximum", "<"}} {
		if err := bound(b.k, b.op); err != nil {
			return err
		}
	}
	if d, ok := m["multipleOf"].(json.Number); ok {
		if dr := rat(string(d)); dr != nil && dr.Sign() > 0 {
			return MultipleOf(r, string(d), p)
		}
	}
	return nil
}

func (c *checker) array(m map[string]any, a []any, p string) error {
	if n, ok := count(m["minItems"]); ok && len(a) < n {
		return Invalid(p, "must have at least %d items, got %d", n, len(a))
	}
	if n, ok := count(m["maxItems"]); ok && len(a) > n {
		return Invalid(p, "must have at most %d items, got %d", n, len(a))
	}
	if u, _ := m["uniqueItems"].(bool); u {
		if err := Unique(a, p); err != nil {
			return err
		}
	}
	item := func(i int) string { return p + "/" + strconv.Itoa(i) }
	// The items a tuple (prefixItems, or draft-07's items as an array)
	// describes one by one; the rest get items (2020-12) or
	// additionalItems (draft-07).
	tuple, rest := asList(m["prefixItems"]), m["items"]
	if t, ok := m["items"].([]any); ok {
		tuple, rest = t, m["additionalItems"]
	}
	for i, sub := range tuple {
		if i >= len(a) {
			break
		}
		if err := c.check(sub, a[i], item(i)); err != nil {
			return err
		}
	}
	if rest != nil {
		for i := len(tuple); i < len(a); i++ {
			if err := c.check(rest, a[i], item(i)); err != nil {
				return err
			}
		}
	}
	if sub, ok := m["contains"]; ok {
		n := 0
		for _, w := range a {
			if c.check(sub, w, p) == nil {
				n++
			}
		}
		min, ok := count(m["minContains"])
		if !ok {
			min = 1
		}
		if n < min {
			return Invalid(p, "must contain at least %d items matching contains, has %d", min, n)
		}
		if max, ok := count(m["maxContains"]); ok && n > max {
			return Invalid(p, "must contain at most %d items matching contains, has %d", max, n)
		}
	}
	return nil
}

func (c *checker) object(m map[string]any, o map[string]any, p string) error {
	var req []string
	for _, r := range asList(m["required"]) {
		if s, ok := r.(string); ok {
			req = append(req, s)
		}
	}
	if err := Required(o, p, req...); err != nil {
		return err
	}
	if n, ok := count(m["minProperties"]); ok && len(o) < n {
		return Invalid(p, "must have at least %d properties, got %d", n, len(o))
	}
	if n, ok := count(m["maxProperties"]); ok && len(o) > n {
		return Invalid(p, "must have at most %d properties, got %d", n, len(o))
	}
	props, _ := m["properties"].(map[string]any)
	patterns, _ := m["patternProperties"].(map[string]any)
	patKeys := sortedKeys(patterns)
	for _, k := range sortedKeys(o) {
		v, at := o[k], p+"/"+esc(k)
		if names, ok := m["propertyNames"]; ok {
			if err := c.check(names, k, at); err != nil {
				return Invalid(at, "property name %q: %s", k, err)
			}
		}
		matched := false
		if sub, ok := props[k]; ok {
			matched = true
			if err := c.check(sub, v, at); err != nil {
				return err
			}
		}
		for _, pat := range patKeys {
			if re := c.s.pattern(pat); re != nil && re.MatchString(k) {
				matched = true
				if err := c.check(patterns[pat], v, at); err != nil {
					return err
				}
			} else if re == nil {
				matched = true // the server decides whether it matches
			}
		}
		if sub, ok := m["additionalProperties"]; ok && !matched {
			if b, ok := sub.(bool); ok && !b {
				return Invalid(at, "property %q is not allowed", k)
			}
			if err := c.check(sub, v, at); err != nil {
				return err
			}
		}
	}
	deps := func(k string, sub any) error {
		if _, present := o[k]; !present {
			return nil
		}
		if names, ok := sub.([]any); ok {
			var need []string
			for _, n := range names {
				if s, ok := n.(string); ok {
					need = append(need, s)
				}
			}
			if err := Required(o, p, need...); err != nil {
				return Invalid(p, "with %q present: %s", k, err)
			}
			return nil
		}
		return c.check(sub, o, p)
	}
	for _, kw := range []string{"dependentRequired", "dependentSchemas", "dependencies"} {
		d, _ := m[kw].(map[string]any)
		for _, k := range sortedKeys(d) {
			if err := deps(k, d[k]); err != nil {
				return err
			}
		}
	}
	return nil
}

// count is a non-negative integer keyword's value.
func count(v any) (int, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	r := rat(string(n))
	if r == nil || !r.IsInt() || r.Sign() < 0 || !r.Num().IsInt64() || r.Num().Int64() > 1<<31 {
		return 0, false
	}
	return int(r.Num().Int64()), true
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}
