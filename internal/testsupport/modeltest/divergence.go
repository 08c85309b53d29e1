package modeltest

import (
	"encoding/json"
	"fmt"

	"github.com/mcpgen/mcpgen/schema"
)

// SpecDivergence explains why a document that jsonschema/v5 accepts as
// definition def may still be refused by the generated decoders, or
// returns "" when nothing does. There is one reason: an anyOf whose
// branches overlap, where the schema accepts the document through a
// branch that the protocol's decision rule does not pick:
//
//   - the JSON-RPC envelope (JSONRPCMessage): a message with "method" and
//     "id" is a request, even when a broken id or params would let it pass
//     as a notification (whose undeclared members are open);
//   - 2026-07-28's InputRequiredResult | XResult: resultType
//     "input_required" selects InputRequiredResult and anything else the
//     complete result, even when only InputRequiredResult (which matches
//     any result) validates.
//
// It walks data along the Model's types, applies those two rules where
// they occur, and reports the first place where the branch the rule
// selects does not validate.
func SpecDivergence(m *schema.Model, c *schema.Compiled, def string, data []byte) string {
	d := m.Definition(def)
	v, err := decodeAny(data)
	if err != nil || d == nil {
		return ""
	}
	w := &walker{m: m, c: c}
	return w.walk(d.Type, v, "")
}

type walker struct {
	m     *schema.Model
	c     *schema.Compiled
	depth int
}

func (w *walker) walk(t *schema.Type, v any, path string) string {
	if t == nil || w.depth > 64 {
		return ""
	}
	w.depth++
	defer func() { w.depth-- }()
	switch t.Kind {
	case schema.KindRef:
		return w.walk(w.m.Resolve(t), v, path)
	case schema.KindObject:
		obj, ok := v.(map[string]any)
		if !ok {
			return ""
		}
		for _, p := range t.Properties {
			if pv, ok := obj[p.Name]; ok {
				if r := w.walk(p.Type, pv, path+"/"+p.Name); r != "" {
					return r
				}
			}
		}
		if t.Additional != nil {
			for k, pv := range obj {
				if r := w.walk(t.Additional, pv, path+"/"+k); r != "" {
					return r
				}
			}
		}
	case schema.KindArray:
		arr, ok := v.([]any)
		if !ok {
			return ""
		}
		for i, x := range arr {
			if r := w.walk(t.Items, x, fmt.Sprintf("%s/%d", path, i)); r != "" {
				return r
			}
		}
	case schema.KindUnion:
		return w.union(t.Union, v, path)
	}
	return ""
}

func (w *walker) union(u *schema.Union, v any, path string) string {
	obj, ok := v.(map[string]any)
	if !ok {
		return ""
	}
	pick := -1
	rule := ""
	switch {
	case u.Strategy == schema.StrategyEnvelope:
		_, hasMethod := obj["method"]
		_, hasID := obj["id"]
		_, hasResult := obj["result"]
		_, hasError := obj["error"]
		for i, b := range u.Branches {
			bt := w.resolve(b)
			if bt == nil || bt.Kind != schema.KindObject {
				continue
			}
			has := map[string]bool{}
			req := map[string]bool{}
			for _, p := range bt.Properties {
				has[p.Name] = true
				req[p.Name] = p.Required
			}
			switch {
			case hasMethod && hasID && req["method"] && has["id"],
				hasMethod && !hasID && req["method"] && !has["id"],
				!hasMethod && hasResult && req["result"],
				!hasMethod && !hasResult && hasError && req["error"]:
				pick = i
			}
		}
		rule = "JSON-RPC decides by member presence"
	case u.Strategy == schema.StrategyDiscriminator && u.DefaultBranch >= 0 && len(u.Values[u.DefaultBranch]) == 0:
		tag, _ := obj[u.Discriminator].(string)
		pick = u.DefaultBranch
		for i, vals := range u.Values {
			for _, x := range vals {
				if x == tag {
					pick = i
				}
			}
		}
		rule = fmt.Sprintf("%q selects the branch", u.Discriminator)
	default:
		return ""
	}
	if pick < 0 {
		return ""
	}
	b := u.Branches[pick]
	if b.Kind == schema.KindRef {
		data, _ := json.Marshal(v)
		if err := Validate(w.c, b.Ref, data); err != nil {
			return fmt.Sprintf("%s is valid only through a branch the protocol does not select (%s: %s, which it is not)", orRoot(path), rule, b.Ref)
		}
	}
	return w.walk(b, v, path)
}

func (w *walker) resolve(t *schema.Type) *schema.Type { return w.m.Resolve(t) }
