package session

import (
	"context"
	"slices"
	"testing"
)

type UnimplementedThing struct{}

func (UnimplementedThing) A(context.Context) error { return nil }
func (UnimplementedThing) B(context.Context) error { return nil }

type ptrImpl struct{ UnimplementedThing }

func (*ptrImpl) A(context.Context) error { return nil }

type valImpl struct{ UnimplementedThing }

func (valImpl) B(context.Context) error { return nil }

// TestProvided: a method the implementation declares counts, one inherited
// from the embedded Unimplemented type does not, for pointer and value
// receivers alike.
func TestProvided(t *testing.T) {
	methods := map[string]string{"a": "A", "b": "B"}
	for _, c := range []struct {
		name string
		impl any
		want []string
	}{
		{"pointer method", &ptrImpl{}, []string{"a"}},
		{"value method", valImpl{}, []string{"b"}},
		{"value method via pointer", &valImpl{}, []string{"b"}},
		{"only unimplemented", UnimplementedThing{}, nil},
		{"embedded only", &struct{ UnimplementedThing }{}, nil},
	} {
		got := Provided(c.impl, methods)
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: Provided = %v, want %v", c.name, got, c.want)
		}
	}
}
