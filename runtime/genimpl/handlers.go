package genimpl

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// CheckHandlers reports the methods of impl that a generated Register…
// (named by register, e.g. "mcp20260728.RegisterServer") would silently
// skip: registration is by type assertion on the per-method …Handler
// interfaces (handlers), so a method named like one of theirs, case
// aside, whose signature differs (CallTool taking a value where the
// interface wants a pointer, Calltool for CallTool) or that only the
// pointer has (impl passed by value, the method on *T) registers nothing
// and the method is answered -32601. CheckHandlers turns that into an
// error naming each such method with the signature found and the one
// expected. A nil impl, or one with no near miss, is nil. Unexported
// methods are not in impl's method set and cannot be seen.
func CheckHandlers(register string, impl any, handlers []reflect.Type) error {
	if impl == nil {
		return nil
	}
	t := reflect.TypeOf(impl)
	var msgs []string
	for _, h := range handlers {
		if t.Implements(h) {
			continue
		}
		for i := range h.NumMethod() {
			want := h.Method(i)
			for j := range t.NumMethod() {
				m := t.Method(j)
				if strings.EqualFold(m.Name, want.Name) {
					msgs = append(msgs, fmt.Sprintf("%s has %s %s, but %s wants %s %s", t, m.Name, methodType(m.Type), h.Name(), want.Name, want.Type))
				}
			}
			if t.Kind() != reflect.Pointer && reflect.PointerTo(t).Implements(h) {
				msgs = append(msgs, fmt.Sprintf("%s has no method %s (%s has it, with a pointer receiver): pass a pointer", t, want.Name, reflect.PointerTo(t)))
			}
		}
	}
	if len(msgs) == 0 {
		return nil
	}
	return errors.New(register + ": these methods would not be registered (their requests answered -32601): " + strings.Join(msgs, "; "))
}

// methodType is the type of a method of a method set, whose first
// parameter is the receiver, as the interface spells it: without it.
func methodType(ft reflect.Type) reflect.Type {
	in := make([]reflect.Type, 0, ft.NumIn()-1)
	for i := 1; i < ft.NumIn(); i++ {
		in = append(in, ft.In(i))
	}
	out := make([]reflect.Type, ft.NumOut())
	for i := range out {
		out[i] = ft.Out(i)
	}
	return reflect.FuncOf(in, out, ft.IsVariadic())
}
