package tools

import (
	"encoding/json"
	"strings"
	"testing"
)

// rawRefsOf parses a snapshot and returns, per fallback and per map of raw
// members, "ptr-of-node -> at" (the pointer of the published fragment the
// generated code checks the value against).
func rawRefsOf(t *testing.T, doc string) map[string]string {
	t.Helper()
	toolsData, snap, err := readSnapshot([]byte(doc))
	if err != nil {
		t.Fatalf("readSnapshot: %v", err)
	}
	r, _ := lookupRevision("2025-11-25")
	tools, err := parseTools(toolsData, r, snap)
	if err != nil {
		t.Fatalf("parseTools: %v", err)
	}
	out := map[string]string{}
	var walk func(n *node)
	walk = func(n *node) {
		if n == nil {
			return
		}
		for _, ref := range []*rawRef{n.raw, n.values} {
			if ref == nil {
				continue
			}
			var root any
			if err := json.Unmarshal([]byte(ref.src.json), &root); err != nil {
				t.Fatalf("%s: the schema kept is not JSON: %v", n.ptr, err)
			}
			if _, ok := lookupPointer(root, ref.at); !ok {
				t.Errorf("%s: the pointer %q names nothing in %s", n.ptr, ref.at, ref.src.json)
			}
		}
		if n.raw != nil {
			out[n.ptr] = n.raw.at
		}
		if n.values != nil {
			out[n.ptr+" (members)"] = n.values.at
		}
		for _, p := range n.props {
			walk(p.n)
		}
		walk(n.items)
	}
	for _, tl := range tools {
		walk(tl.args)
		walk(tl.result)
	}
	return out
}

// lookupPointer follows a JSON pointer (as toolsupport's lookup does).
func lookupPointer(root any, at string) (any, bool) {
	if at == "" {
		return root, true
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
			found := false
			for i := range c {
				if tok == itoa(i) {
					cur, found = c[i], true
				}
			}
			if !found {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return cur, true
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestFallbackPointers: each fallback names the fragment of the published
// schema it stands for, also when normalize reached it through a $ref, a
// nullable input, an allOf member or a recursion, and each map of raw
// members its additionalProperties schema.
func TestFallbackPointers(t *testing.T) {
	doc := `{"mcpgenSnapshot":1,"protocolVersion":"2025-11-25","tools":[{"name":"t",
	"inputSchema":{"type":"object","$defs":{
		"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}}},
		"u":{"oneOf":[{"type":"string"},{"type":"object"}]}},
	  "properties":{
		"tree":{"$ref":"#/$defs/node"},
		"viaRef":{"$ref":"#/$defs/u"},
		"nullable":{"anyOf":[{"type":"null"},{"type":"object","properties":{"x":{"type":["string","integer"]}}}]},
		"merged":{"allOf":[{"type":"object","properties":{"a":{"not":{"const":1}}}},{"type":"object","properties":{"b":{"type":"string"}}}]},
		"tags":{"type":"object","additionalProperties":{"type":"string"}},
		"a/b":{"prefixItems":[{"type":"string"}]}}},
	"outputSchema":{"type":"object","properties":{"mean":{"type":["number","null"]}}}}]}`
	got := rawRefsOf(t, doc)
	want := map[string]string{
		"/tools/0/inputSchema/properties/tree/properties/kids/items": "/$defs/node/properties/kids/items",
		"/tools/0/inputSchema/properties/viaRef":                     "/$defs/u",
		"/tools/0/inputSchema/properties/nullable/properties/x":      "/properties/nullable/anyOf/1/properties/x",
		"/tools/0/inputSchema/properties/merged/properties/a":        "/properties/merged/allOf/0/properties/a",
		"/tools/0/inputSchema/properties/tags (members)":             "/properties/tags/additionalProperties",
		"/tools/0/inputSchema/properties/a~1b":                       "/properties/a~1b",
		"/tools/0/outputSchema/properties/mean":                      "/properties/mean",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: checked against %q, want %q", k, got[k], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d raw checks, want %d: %v", len(got), len(want), got)
	}
}
