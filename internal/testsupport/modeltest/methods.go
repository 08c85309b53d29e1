package modeltest

import (
	"reflect"
	"slices"
	"testing"

	"github.com/mcpgen/mcpgen/generator"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/schema"
)

// Method mirrors the MethodInfo type every generated package declares, field
// for field, so a package's table converts to it (modeltest.Method(info))
// and the checks below are written once. If the generator changes
// MethodInfo, that conversion stops compiling, which is the point.
type Method struct {
	Name               string
	Definition         string
	Notification       bool
	FromClient         bool
	FromServer         bool
	Embedded           bool
	Params             reflect.Type
	ParamsRequired     bool
	Result             reflect.Type
	ResultAlternatives []reflect.Type
	Cancellable        bool
	TaskAugmentable    bool
}

// MethodTable checks the generated table against the model it came from:
// every method, its Go params and result types, directions, cancellability
// and task augmentation.
func MethodTable(t *testing.T, rev string, methods []Method, lookup func(string) (Method, bool)) {
	m, _ := Load(t, rev)
	if len(methods) != len(m.Methods) {
		t.Fatalf("%d methods in the table, %d in the model", len(methods), len(m.Methods))
	}
	pkg := "" // the generated package, where every result type is declared
	for _, info := range methods {
		if info.Result != nil {
			pkg = info.Result.PkgPath()
			break
		}
	}
	for _, me := range m.Methods {
		info, ok := lookup(me.Name)
		if !ok {
			t.Errorf("%s: not in the table", me.Name)
			continue
		}
		if info.Name != me.Name || info.Definition != me.Definition || info.Notification != (me.Kind == schema.Notification) {
			t.Errorf("%s: %+v", me.Name, info)
		}
		if info.Cancellable != me.Cancellable || info.TaskAugmentable != me.TaskAugmentable || info.ParamsRequired != me.ParamsRequired {
			t.Errorf("%s: cancellable %v, task %v, params required %v; model says %v, %v, %v", me.Name,
				info.Cancellable, info.TaskAugmentable, info.ParamsRequired, me.Cancellable, me.TaskAugmentable, me.ParamsRequired)
		}
		dirs := map[schema.Direction]bool{}
		for _, d := range me.Directions {
			dirs[d] = true
		}
		if info.FromClient != dirs[schema.ClientToServer] || info.FromServer != dirs[schema.ServerToClient] || info.Embedded != dirs[schema.ServerToClientEmbedded] {
			t.Errorf("%s: directions %v %v %v, model %v", me.Name, info.FromClient, info.FromServer, info.Embedded, me.Directions)
		}
		wantParams := ""
		if me.Params != nil {
			if me.Params.Kind == schema.KindRef {
				wantParams = generator.TypeName(me.Params.Ref)
			} else {
				wantParams = generator.InlineName(generator.TypeName(me.Definition), "params")
			}
		}
		if info.Params == nil || info.Params.Name() != wantParams {
			t.Errorf("%s: params type %v, want %s", me.Name, info.Params, wantParams)
		}
		if me.Kind == schema.Request {
			if info.Result == nil || info.Result.PkgPath() != pkg {
				t.Errorf("%s: result type %v", me.Name, info.Result)
			}
			if len(info.ResultAlternatives) != len(me.ResultAlternatives) {
				t.Errorf("%s: %d result alternatives, model %d", me.Name, len(info.ResultAlternatives), len(me.ResultAlternatives))
			}
		} else if info.Result != nil {
			t.Errorf("%s: a notification with a result type", me.Name)
		}
	}
	if _, ok := lookup("no/such/method"); ok {
		t.Error("LookupMethod found an unknown method")
	}
	if !slices.IsSortedFunc(methods, func(a, b Method) int {
		if a.Notification != b.Notification {
			if a.Notification {
				return 1
			}
			return -1
		}
		if a.Name < b.Name {
			return -1
		}
		return 1
	}) {
		t.Error("Methods is not sorted (requests, then notifications, by name)")
	}
}

// Policy checks that Policy carries the revision's facts and that the
// runtime takes it.
func Policy(t *testing.T, rev string, policy func(jsonrpc2.Side) jsonrpc2.Policy) {
	m, _ := Load(t, rev)
	f := m.Facts
	for _, side := range []jsonrpc2.Side{jsonrpc2.SideClient, jsonrpc2.SideServer} {
		p := policy(side)
		if p.Side != side || p.CancelledMethod != f.CancelledMethod || p.ProgressMethod != f.ProgressMethod {
			t.Errorf("%v: %+v", side, p)
		}
		if p.ClientCancels.OwnRequests.All != f.ClientMayCancel || p.ServerCancels.OwnRequests.All != f.ServerMayCancel {
			t.Errorf("%v: who may cancel: %+v / %+v, facts %v / %v", side, p.ClientCancels, p.ServerCancels, f.ClientMayCancel, f.ServerMayCancel)
		}
		for _, m := range f.ServerCancelsOnly {
			if !p.ServerCancels.PeerRequests.Has(m) {
				t.Errorf("%v: the server may not end %s", side, m)
			}
		}
		if !slices.Equal(p.NeverCancellable, f.NeverCancellable) ||
			p.TaskCancelMethod != f.TaskCancelMethod || p.TaskParamsMember != f.TaskMember || p.DisconnectIsCancellation != f.HTTPDisconnectCancels {
			t.Errorf("%v: %+v does not match the facts %+v", side, p, f)
		}
		// The decoder is the schema's: a requestId-less params object is
		// valid exactly where the facts say requestId is optional.
		if p.Cancelled == nil {
			t.Errorf("%v: Policy has no Cancelled decoder", side)
		} else if got, err := p.Cancelled.Decode([]byte(`{}`)); (err == nil) == f.CancelRequestIDRequired || !got.RequestID.IsZero() {
			t.Errorf("%v: the decoder says %+v, %v for {}; facts: requestId required %v", side, got, err, f.CancelRequestIDRequired)
		}
		if !reflect.DeepEqual(policy(side), p) {
			t.Errorf("%v: Policy is not deterministic", side)
		}
		a, b := jsonrpc2.NewPipe()
		c := jsonrpc2.NewConn(a, jsonrpc2.WithPolicy(p))
		if !reflect.DeepEqual(c.Policy(), p) {
			t.Errorf("%v: the Conn holds %+v", side, c.Policy())
		}
		_ = a.Close()
		_ = b.Close()
	}
}

// InterfacesCoverTable checks that every request and notification a side receives
// has a method on that side's interface (and the caller implements it).
func InterfacesCoverTable(t *testing.T, methods []Method, server, client reflect.Type) {
	for _, info := range methods {
		if info.Name == "notifications/cancelled" || info.Name == "notifications/progress" {
			continue
		}
		name := info.Definition
		if info.Notification {
			name = name[:len(name)-len("Notification")]
		} else {
			name = name[:len(name)-len("Request")]
		}
		if _, ok := server.MethodByName(name); ok != info.FromClient {
			t.Errorf("%s: on Server %v, sent by the client %v", info.Name, ok, info.FromClient)
		}
		if _, ok := client.MethodByName(name); ok != info.FromServer {
			t.Errorf("%s: on Client %v, sent by the server %v", info.Name, ok, info.FromServer)
		}
	}
}
