package modeltest

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/mcpgen/mcpgen/schema"
)

// ExtraMember is the undeclared member Instance adds to every object that
// declares properties, so a round trip proves unknown members are kept.
const ExtraMember = "x-mcpgen-extra"

// maxDepth bounds the nesting of generated instances; past it, objects
// get their required members only, arrays and maps stay empty and unions
// prefer a scalar branch (JSONValue ↔ JSONObject is recursive).
const maxDepth = 8

// Instance builds a maximal valid JSON instance of definition def from
// the Model: every declared property, constants, enum values, formats,
// numbers within their bounds, two items per array, one entry per map,
// an undeclared member on every object with properties, and explicit
// false/0 values. variant varies the choices: union branch
// (variant mod branches), enum value, true or false, null for nullable
// members; so looping variant over 0..MaxBranches(m)-1 reaches every
// branch of every union at least once.
func Instance(m *schema.Model, def string, variant int) ([]byte, error) {
	return build(m, def, &builder{variant: variant})
}

// MinimalInstance is like Instance but with the required members only and
// no undeclared ones, so a round trip proves that absent members stay
// absent (no invented {}, [], false or 0).
func MinimalInstance(m *schema.Model, def string, variant int) ([]byte, error) {
	return build(m, def, &builder{variant: variant, minimal: true})
}

func build(m *schema.Model, def string, b *builder) ([]byte, error) {
	b.m = m
	d := m.Definition(def)
	if d == nil {
		return nil, fmt.Errorf("no definition %q", def)
	}
	v, err := b.value(d.Type, 0)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// MaxBranches is the largest number of branches of any union of m.
func MaxBranches(m *schema.Model) int {
	n := 1
	for _, u := range m.Unions {
		if len(u.Branches) > n {
			n = len(u.Branches)
		}
	}
	return n
}

type builder struct {
	m       *schema.Model
	variant int
	minimal bool
}

func (b *builder) resolve(t *schema.Type) *schema.Type { return b.m.Resolve(t) }

func (b *builder) value(t *schema.Type, depth int) (any, error) {
	if t.Nullable && b.variant%2 == 1 {
		return nil, nil
	}
	switch t.Kind {
	case schema.KindRef:
		d := b.m.Definition(t.Ref)
		if d == nil {
			return nil, fmt.Errorf("%s: unknown reference %q", t.Pointer, t.Ref)
		}
		return b.value(d.Type, depth+1)
	case schema.KindAny:
		if b.variant%4 == 3 {
			return nil, nil // null is a value too
		}
		// Exactness probes: a big integer, a fraction, null, nesting.
		return map[string]any{"n": json.Number("12345678901234567890"), "f": json.Number("0.1"), "z": nil, "l": []any{"a", false}}, nil
	case schema.KindString:
		switch {
		case t.Const != nil:
			return t.Const, nil
		case len(t.Enum) > 0:
			return t.Enum[b.variant%len(t.Enum)], nil
		}
		switch t.Format {
		case "uri":
			return "https://example.com/a/b?c=d", nil
		case "uri-template":
			return "file:///{path}", nil
		case "byte":
			return "aGVsbG8gd29ybGQ=", nil
		}
		return "example <&> text", nil
	case schema.KindInteger:
		if c, ok := t.Const.(int64); ok {
			return c, nil
		}
		v := 7.0
		if b.variant%3 == 2 {
			v = 0
		}
		return json.Number(strconv.FormatInt(int64(clamp(v, t)), 10)), nil
	case schema.KindNumber:
		v := 0.5
		if b.variant%3 == 2 {
			v = 0
		}
		return json.Number(strconv.FormatFloat(clamp(v, t), 'g', -1, 64)), nil
	case schema.KindBoolean:
		return b.variant%2 == 1, nil
	case schema.KindArray:
		out := []any{}
		if t.Items == nil || depth > maxDepth {
			return out, nil
		}
		if b.minimal && b.variant%2 == 0 {
			return out, nil
		}
		n := 2
		if t.MaxItems != nil && *t.MaxItems < n {
			n = *t.MaxItems
		}
		for i := 0; i < n; i++ {
			v, err := b.value(t.Items, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case schema.KindObject:
		out := map[string]any{}
		for _, p := range t.Properties {
			if (b.minimal || depth > maxDepth) && !p.Required {
				continue
			}
			v, err := b.value(p.Type, depth+1)
			if err != nil {
				return nil, err
			}
			out[p.Name] = v
		}
		if depth <= maxDepth && !b.minimal && !t.Closed {
			// A closed object (additionalProperties false) admits no
			// member beyond the declared ones.
			switch {
			case t.Additional != nil && t.Additional.Kind != schema.KindAny:
				v, err := b.value(t.Additional, depth+1)
				if err != nil {
					return nil, err
				}
				out["entry"] = v
			case len(t.Properties) > 0:
				out[ExtraMember] = map[string]any{"kept": []any{json.Number("1"), "two", nil}}
			default:
				out["com.example/entry"] = "value"
			}
		}
		return out, nil
	case schema.KindUnion:
		return b.union(t.Union, depth)
	}
	return nil, fmt.Errorf("%s: kind %q", t.Pointer, t.Kind)
}

func clamp(v float64, t *schema.Type) float64 {
	if t.Minimum != nil {
		v = math.Max(v, *t.Minimum)
	}
	if t.Maximum != nil {
		v = math.Min(v, *t.Maximum)
	}
	return v
}

func (b *builder) union(u *schema.Union, depth int) (any, error) {
	i := b.variant % len(u.Branches)
	if depth > maxDepth {
		// Prefer a branch that ends the recursion.
		for j, br := range u.Branches {
			if k := b.resolve(br).Kind; k != schema.KindObject && k != schema.KindArray && k != schema.KindUnion {
				i = j
				break
			}
		}
	}
	v, err := b.value(u.Branches[i], depth+1)
	if err != nil {
		return nil, err
	}
	// Make the discriminator say which branch this is.
	if obj, ok := v.(map[string]any); ok && u.Discriminator != "" && i < len(u.Values) {
		if vals := u.Values[i]; len(vals) > 0 {
			obj[u.Discriminator] = vals[b.variant%len(vals)]
		}
	}
	return v, nil
}
