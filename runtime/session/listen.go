package session

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"sync"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// The session serves subscriptions/listen itself (a modern base revision
// that has it, an implementation that does not provide it) whenever the
// server declares a capability whose notifications travel on it:
// tools/prompts/resources listChanged or resources subscribe
// (patterns/subscriptions.mdx). It acknowledges with the part of the
// client's filter the server honours, tags every notification with the
// subscription id, and keeps the stream open until the client closes it;
// NotifyListChanged and NotifyResourceUpdated deliver to the open streams
// whose filter asked for them, and nothing else is sent on them.

// listenCaps are the subscription-delivered capabilities the server
// declares.
type listenCaps struct {
	tools, prompts, resources, subscribe bool
}

func (c listenCaps) any() bool { return c.tools || c.prompts || c.resources || c.subscribe }

func (s *Server) listenCaps() listenCaps {
	var caps struct {
		Tools struct {
			ListChanged bool `json:"listChanged"`
		} `json:"tools"`
		Prompts struct {
			ListChanged bool `json:"listChanged"`
		} `json:"prompts"`
		Resources struct {
			ListChanged bool `json:"listChanged"`
			Subscribe   bool `json:"subscribe"`
		} `json:"resources"`
	}
	_ = json.Unmarshal(s.capabilities(s.base.Version, true), &caps) // listen is modern-only
	return listenCaps{tools: caps.Tools.ListChanged, prompts: caps.Prompts.ListChanged,
		resources: caps.Resources.ListChanged, subscribe: caps.Resources.Subscribe}
}

// servesListen reports whether the session answers subscriptions/listen.
func (s *Server) servesListen() bool {
	if !s.base.Modern || !s.base.HasLifecycle(MethodSubscriptionsListen) || s.provided[MethodSubscriptionsListen] {
		return false
	}
	if _, ok := s.overrides[MethodSubscriptionsListen]; ok {
		return false
	}
	return s.listenCaps().any() || len(s.hub.contributors) > 0
}

// ListenContributor takes part in the subscriptions/listen requests the
// session answers, for notifications the session does not own (the Tasks
// extension's notifications/tasks, whose filter member is
// notifications.taskIds). It is called once per request, after the
// stream is registered and before it is acknowledged, with the request's
// ctx and params (for its _meta) and send, which sends a notification on
// the stream: send waits for the acknowledgement, so nothing precedes it,
// and does nothing once the stream could not be acknowledged. It returns
// the members of the client's notifications filter it honours (merged
// into the acknowledgement's notifications object) and a stop function
// the session calls when the stream ends; or an error, which answers the
// request instead (a -32021 for a filter member whose extension the
// client did not declare). It must not call send before it returns.
type ListenContributor func(ctx context.Context, params json.RawMessage, send func(method string, params any) error) (accepted map[string]any, stop func(), err error)

// WithListenContributor adds c to the subscriptions/listen requests the
// session answers, which it then answers even when the server declares no
// list-changed or subscribe capability (tasks.WithTasks uses it).
func WithListenContributor(c ListenContributor) ServerOption {
	return func(s *Server) { s.hub.contributors = append(s.hub.contributors, c) }
}

// listenFilter is what one open stream receives.
type listenFilter struct {
	tools, prompts, resources bool
	uris                      map[string]bool
}

type listener struct {
	filter listenFilter
	// mu is held from registration until the acknowledgement is sent, so
	// that nothing precedes it on the stream; sub is nil until then, and
	// stays nil if it could not be sent.
	mu  sync.Mutex
	sub *Subscription
}

// notify sends on l's stream once it is acknowledged.
func (l *listener) notify(method string, params any) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.sub == nil {
		return nil
	}
	return l.sub.Notify(context.Background(), method, params)
}

// hub holds the open listen streams and the live legacy connections of
// one Server.
type hub struct {
	contributors []ListenContributor // WithListenContributor; fixed once the Server is built
	mu           sync.Mutex
	listeners    map[*listener]struct{}
	legacy       map[*jsonrpc2.Conn]*connState
}

func (h *hub) add(l *listener) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.listeners == nil {
		h.listeners = map[*listener]struct{}{}
	}
	h.listeners[l] = struct{}{}
}

func (h *hub) remove(l *listener) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.listeners, l)
}

// addLegacy tracks a legacy connection until it is done.
func (h *hub) addLegacy(c *jsonrpc2.Conn, st *connState) {
	h.mu.Lock()
	if h.legacy == nil {
		h.legacy = map[*jsonrpc2.Conn]*connState{}
	}
	h.legacy[c] = st
	h.mu.Unlock()
	go func() {
		<-c.Done()
		h.mu.Lock()
		delete(h.legacy, c)
		h.mu.Unlock()
	}()
}

// snapshot returns the listeners and legacy connections now open.
func (h *hub) snapshot() ([]*listener, []*jsonrpc2.Conn) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ls := make([]*listener, 0, len(h.listeners))
	for l := range h.listeners {
		ls = append(ls, l)
	}
	cs := make([]*jsonrpc2.Conn, 0, len(h.legacy))
	for c := range h.legacy {
		cs = append(cs, c)
	}
	return ls, cs
}

// listen is the session's subscriptions/listen handler.
func (st *connState) listen(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p struct {
		Notifications struct {
			ToolsListChanged      bool     `json:"toolsListChanged"`
			PromptsListChanged    bool     `json:"promptsListChanged"`
			ResourcesListChanged  bool     `json:"resourcesListChanged"`
			ResourceSubscriptions []string `json:"resourceSubscriptions"`
		} `json:"notifications"`
	}
	if len(req.Params) > 0 {
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, jsonrpc2.NewInvalidParamsError("subscriptions/listen: " + err.Error())
		}
	}
	caps, n := st.srv.listenCaps(), p.Notifications
	f := listenFilter{tools: n.ToolsListChanged && caps.tools, prompts: n.PromptsListChanged && caps.prompts,
		resources: n.ResourcesListChanged && caps.resources}
	accepted := map[string]any{}
	if f.tools {
		accepted["toolsListChanged"] = true
	}
	if f.prompts {
		accepted["promptsListChanged"] = true
	}
	if f.resources {
		accepted["resourcesListChanged"] = true
	}
	if caps.subscribe && len(n.ResourceSubscriptions) > 0 {
		f.uris = map[string]bool{}
		for _, u := range n.ResourceSubscriptions {
			f.uris[u] = true
		}
		accepted["resourceSubscriptions"] = n.ResourceSubscriptions
	}
	// Registered before the acknowledgement, so that no change between the
	// two is lost, and held until it is sent, so that nothing precedes it.
	l := &listener{filter: f}
	l.mu.Lock()
	st.srv.hub.add(l)
	defer st.srv.hub.remove(l)
	for _, c := range st.srv.hub.contributors {
		more, stop, err := c(ctx, req.Params, l.notify)
		if stop != nil {
			defer stop()
		}
		if err != nil {
			l.mu.Unlock()
			return nil, err
		}
		maps.Copy(accepted, more)
	}
	sub, err := Listen(ctx, accepted)
	if err == nil {
		l.sub = sub
	}
	l.mu.Unlock()
	if err != nil {
		return nil, err
	}
	<-ctx.Done()
	return nil, context.Cause(ctx)
}

// listChangedKinds maps NotifyListChanged's kind to its filter member.
var listChangedKinds = map[string]func(listenFilter) bool{
	"tools":     func(f listenFilter) bool { return f.tools },
	"prompts":   func(f listenFilter) bool { return f.prompts },
	"resources": func(f listenFilter) bool { return f.resources },
}

// NotifyListChanged tells clients that the server's list of kind ("tools",
// "prompts" or "resources") changed: notifications/<kind>/list_changed
// goes to every open subscriptions/listen stream whose filter asked for it
// (tagged with its subscription id) and to every live legacy session
// (on its standalone stream, where it has one); with WithBus, on every
// replica. Declare the capability
// (WithCapability("tools", json.RawMessage(`{"listChanged":true}`))) so
// that clients listen. Delivery is best effort: a stream that cannot take
// the notification is skipped, and the first such error is returned.
func (s *Server) NotifyListChanged(kind string) error {
	if _, ok := listChangedKinds[kind]; !ok {
		return fmt.Errorf("session: NotifyListChanged: unknown kind %q (want tools, prompts or resources)", kind)
	}
	err := s.deliverListChanged(kind)
	s.publish(NotifySubjectPrefix+"list_changed."+kind, fanout{Kind: kind})
	return err
}

// deliverListChanged is NotifyListChanged for this replica's streams.
func (s *Server) deliverListChanged(kind string) error {
	wants, ok := listChangedKinds[kind]
	if !ok {
		return fmt.Errorf("session: unknown list_changed kind %q", kind)
	}
	method := "notifications/" + kind + "/list_changed"
	ls, cs := s.hub.snapshot()
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	for _, l := range ls {
		if wants(l.filter) {
			keep(l.notify(method, nil))
		}
	}
	for _, c := range cs {
		keep(c.Notify(context.Background(), method, nil))
	}
	return first
}

// NotifyResourceUpdated sends notifications/resources/updated for uri to
// every open subscriptions/listen stream subscribed to it (with WithBus, on
// every replica). Legacy resources/subscribe is the implementation's to
// track (it has the session's Conn through ConnOf), except with WithBus,
// where the session tracks it and delivers to those sessions too.
func (s *Server) NotifyResourceUpdated(uri string) error {
	err := s.deliverResourceUpdated(uri)
	s.publish(NotifySubjectPrefix+"resources_updated", fanout{URI: uri})
	return err
}

// deliverResourceUpdated is NotifyResourceUpdated for this replica's
// streams.
func (s *Server) deliverResourceUpdated(uri string) error {
	ls, cs := s.hub.snapshot()
	var first error
	for _, l := range ls {
		if l.filter.uris[uri] {
			if err := l.notify("notifications/resources/updated", map[string]string{"uri": uri}); err != nil && first == nil {
				first = err
			}
		}
	}
	if s.bus == nil {
		return first // legacy subscriptions are the implementation's
	}
	for _, c := range cs {
		if st := s.hub.stateOf(c); st != nil && st.subscribed(uri) {
			if err := c.Notify(context.Background(), "notifications/resources/updated", map[string]string{"uri": uri}); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// stateOf is the lifecycle state of a live legacy connection.
func (h *hub) stateOf(c *jsonrpc2.Conn) *connState {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.legacy[c]
}

// removedMethods are the requests the modern base revision removed
// (Revision.RemovedMethods, generated from the revision table) that it
// does not define again: a modern request for one is answered Method not
// found even when a handler answers it for legacy clients.
func (s *Server) removedMethods() map[string]bool {
	out := map[string]bool{}
	if !s.base.Modern {
		return out
	}
	for _, m := range s.base.RemovedMethods {
		if _, ok := s.base.ServerMethods[m]; !ok && !s.base.HasLifecycle(m) {
			out[m] = true
		}
	}
	return out
}
