package schema

import (
	"sort"
	"strings"
)

// analyser derives methods, unions and revision facts from the
// normalised definitions.
type analyser struct {
	m    *Model
	file string
}

func newAnalyser(m *Model, file string) *analyser {
	m.index() // once, here, so the finished Model is safe for concurrent readers
	return &analyser{m: m, file: file}
}

func (a *analyser) run() error {
	a.collectUnions()
	if err := a.collectMethods(); err != nil {
		return err
	}
	a.deriveFacts()
	for _, me := range a.m.Methods {
		me.Cancellable = me.Kind == Request && !contains(a.m.Facts.NeverCancellable, me.Name) && !onlyEmbedded(me)
	}
	return nil
}

// resolve follows references (and alias chains) to the schema they name.
func (a *analyser) resolve(t *Type) *Type { return a.m.Resolve(t) }

func (a *analyser) collectUnions() {
	var walk func(t *Type, def string)
	walk = func(t *Type, def string) {
		if t == nil {
			return
		}
		if t.Union != nil {
			t.Union.Definition = def
			a.m.Unions = append(a.m.Unions, t.Union)
			for _, b := range t.Union.Branches {
				walk(b, "")
			}
		}
		for _, p := range t.Properties {
			walk(p.Type, "")
		}
		walk(t.Items, "")
		walk(t.Additional, "")
	}
	for _, d := range a.m.Definitions {
		walk(d.Type, d.Name)
	}
	sort.Slice(a.m.Unions, func(i, j int) bool { return a.m.Unions[i].Pointer < a.m.Unions[j].Pointer })
	for _, u := range a.m.Unions {
		a.chooseStrategy(u)
	}
}

// directionUnions are the definitions that say who sends what.
var directionUnions = []struct {
	name string
	kind MethodKind
	dir  Direction
}{
	{"ClientRequest", Request, ClientToServer},
	{"ServerRequest", Request, ServerToClient},
	{"InputRequest", Request, ServerToClientEmbedded},
	{"ClientNotification", Notification, ClientToServer},
	{"ServerNotification", Notification, ServerToClient},
}

func (a *analyser) collectMethods() error {
	byName := map[string]*Method{}
	for _, du := range directionUnions {
		d := a.m.Definition(du.name)
		if d == nil {
			continue
		}
		for _, member := range a.unionMembers(d) {
			md := a.m.Definition(member)
			name, ok := methodConst(md.Type)
			if !ok {
				return errAt(a.file, md.Pointer, "member of %s has no method constant", du.name)
			}
			key := string(du.kind) + " " + name
			me := byName[key]
			if me == nil {
				me = &Method{Name: name, Kind: du.kind, Definition: member}
				if p := md.Type.property("params"); p != nil {
					me.Params, me.ParamsRequired = p.Type, p.Required
				}
				byName[key] = me
				a.m.Methods = append(a.m.Methods, me)
			}
			if !containsDir(me.Directions, du.dir) {
				me.Directions = append(me.Directions, du.dir)
			}
		}
	}
	sort.Slice(a.m.Methods, func(i, j int) bool {
		x, y := a.m.Methods[i], a.m.Methods[j]
		if x.Kind != y.Kind {
			return x.Kind == Request
		}
		return x.Name < y.Name
	})
	for _, me := range a.m.Methods {
		sort.Slice(me.Directions, func(i, j int) bool { return me.Directions[i] < me.Directions[j] })
		if me.Kind == Request {
			if err := a.findResult(me); err != nil {
				return err
			}
		}
	}
	return nil
}

// unionMembers lists the definitions a direction union stands for. Where a
// revision inlines its only member (2026-07-28 ClientNotification is a copy
// of CancelledNotification), the member is found by shape.
func (a *analyser) unionMembers(d *Definition) []string {
	t := d.Type
	if t.Kind == KindUnion {
		var out []string
		for _, b := range t.Union.Branches {
			if b.Kind == KindRef {
				out = append(out, b.Ref)
			}
		}
		return out
	}
	if t.Kind == KindRef {
		return []string{t.Ref}
	}
	if _, ok := methodConst(t); ok {
		for _, other := range a.m.Definitions {
			if other != d && sameShape(other.Type, t) {
				return []string{other.Name}
			}
		}
		return []string{d.Name}
	}
	return nil
}

func methodConst(t *Type) (string, bool) {
	if t == nil {
		return "", false
	}
	p := t.property("method")
	if p == nil {
		return "", false
	}
	s, ok := p.Type.Const.(string)
	return s, ok
}

// resultException is one entry of the table of requests whose result the
// naming rule (XRequest → XResult, or XResultResponse.result in
// 2026-07-28) does not find, or finds only in part. schema-notes §1.4.
type resultException struct {
	result string
	why    string
}

var resultExceptions = map[string]resultException{
	"ping":                  {"EmptyResult", "no PingResult; basic/utilities/ping.mdx: the receiver answers with an empty result"},
	"logging/setLevel":      {"EmptyResult", "SetLevelRequest has no result definition; the server answers with an empty result"},
	"resources/subscribe":   {"EmptyResult", "SubscribeRequest has no result definition; the server answers with an empty result"},
	"resources/unsubscribe": {"EmptyResult", "UnsubscribeRequest has no result definition; the server answers with an empty result"},
	"tasks/result":          {"GetTaskPayloadResult", "an open Result: the real shape is the result of the request that created the task"},
	"tasks/get":             {"GetTaskResult", "structurally identical to CancelTaskResult; only the method tells them apart"},
	"tasks/cancel":          {"CancelTaskResult", "structurally identical to GetTaskResult; only the method tells them apart"},
	"subscriptions/listen":  {"SubscriptionsListenResult", "sent only when the server ends the stream gracefully, possibly long after the request"},
}

func (a *analyser) findResult(me *Method) error {
	base := strings.TrimSuffix(me.Definition, "Request")
	if rr := a.m.Definition(base + "ResultResponse"); rr != nil {
		if p := rr.Type.property("result"); p != nil {
			me.ResultRule = "response-envelope"
			switch p.Type.Kind {
			case KindRef:
				me.Result = p.Type.Ref
			case KindUnion:
				for _, b := range p.Type.Union.Branches {
					if b.Kind != KindRef {
						continue
					}
					if b.Ref == "InputRequiredResult" {
						me.ResultAlternatives = append(me.ResultAlternatives, b.Ref)
					} else {
						me.Result = b.Ref
					}
				}
			}
		}
	}
	if me.Result == "" && a.m.Definition(base+"Result") != nil {
		me.Result, me.ResultRule = base+"Result", "naming"
	}
	if ex, ok := resultExceptions[me.Name]; ok && a.m.Definition(ex.result) != nil {
		if me.Result == "" || me.Result == ex.result {
			me.Result, me.ResultRule = ex.result, "exception: "+ex.why
		}
	}
	if me.Result == "" {
		return errAt(a.file, a.m.Definition(me.Definition).Pointer, "cannot find the result of %q: no %sResult, no %sResultResponse and no entry in the exception table", me.Name, base, base)
	}
	for _, params := range a.leafObjects(me.Params) {
		if params.property("task") != nil {
			me.TaskAugmentable = true
		}
	}
	if me.TaskAugmentable && a.m.Definition("CreateTaskResult") != nil {
		me.ResultAlternatives = append(me.ResultAlternatives, "CreateTaskResult")
	}
	return nil
}

func (a *analyser) deriveFacts() {
	f := &a.m.Facts
	f.CancelledMethod = "notifications/cancelled"
	f.ProgressMethod = "notifications/progress"
	f.ClientMayCancel = true
	// The cancellation rules the schema cannot carry come from the
	// revision table (revisions.go).
	rule := factsFor(a.m.Revision)
	f.ServerMayCancel = rule.ServerMayCancel
	f.HTTPDisconnectCancels = rule.HTTPDisconnectCancels
	f.Source = rule.Source
	f.Headers = rule.Headers
	f.NameHeader = rule.NameHeader
	has := map[string]bool{}
	for _, me := range a.m.Methods {
		has[me.Name] = true
		if me.TaskAugmentable {
			f.TaskMember = "task"
		}
	}
	for _, m := range rule.ServerCancelsOnly {
		if has[m] {
			f.ServerCancelsOnly = append(f.ServerCancelsOnly, m)
		}
	}
	for _, m := range rule.RemovedMethods {
		if !has[m] {
			f.RemovedMethods = append(f.RemovedMethods, m)
		}
	}
	f.SSEPriming = rule.SSEPriming && rule.StreamableHTTP() && has["initialize"]
	f.CoreTasks = rule.CoreTasks && has["tasks/get"]
	if has["initialize"] {
		f.NeverCancellable = []string{"initialize"}
		f.Era = EraLegacy
	} else {
		f.Stateless = true
		f.Era = EraModern
	}
	for _, m := range LifecycleMethods {
		if has[m] {
			f.Lifecycle = append(f.Lifecycle, m)
		}
	}
	if has["tasks/cancel"] {
		f.TaskCancelMethod = "tasks/cancel"
	}
	if cn := a.m.Definition("CancelledNotification"); cn != nil {
		if p := cn.Type.property("params"); p != nil {
			if rid := a.resolve(p.Type).property("requestId"); rid != nil {
				f.CancelRequestIDRequired = rid.Required
			}
		}
	}
}

func onlyEmbedded(me *Method) bool {
	return len(me.Directions) == 1 && me.Directions[0] == ServerToClientEmbedded
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func containsDir(list []Direction, d Direction) bool {
	for _, x := range list {
		if x == d {
			return true
		}
	}
	return false
}
