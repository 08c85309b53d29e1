// Package modeltest is the test helper shared by the generated packages'
// tests: it builds maximal JSON instances of any definition from the
// schema Model (no hand-written values), compares JSON documents
// semantically, validates them with jsonschema/v5, and runs the
// decode → encode → compare → validate round trip.
package modeltest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/official"
	"github.com/mcpgen/mcpgen/schema"
)

// SchemaPath is the module's copy of the official schema file of rev
// (official/schemas), relative to a generated package's directory
// (generated/mcpYYYYMMDD). The official examples are beside it in
// examples/ for 2026-07-28.
func SchemaPath(rev string) string {
	return filepath.Join("..", "..", "official", "schemas", rev, "schema.json")
}

// Load loads and compiles the schema of rev, failing the test when it
// cannot.
func Load(t testing.TB, rev string) (*schema.Model, *schema.Compiled) {
	t.Helper()
	path := SchemaPath(rev)
	m, err := schema.Load(path, schema.Options{})
	if err != nil {
		t.Fatalf("load %s: %v", path, err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := schema.Compile(path, data)
	if err != nil {
		t.Fatalf("compile %s: %v", path, err)
	}
	return m, c
}

// Decoder decodes data as the named definition (a generated package's
// DecodeDefinition).
type Decoder func(name string, data []byte) (any, error)

// RoundTrip decodes data as definition def, encodes the value again and
// returns the encoding, or an error saying which step failed: the
// encoding must be JSON-equal to data and valid against the definition.
func RoundTrip(c *schema.Compiled, decode Decoder, def string, data []byte) ([]byte, error) {
	v, err := decode(def, data)
	if err != nil {
		return nil, fmt.Errorf("decode: %w", err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	if err := Equal(data, out); err != nil {
		return out, fmt.Errorf("re-encoded JSON differs: %w\nin:  %s\nout: %s", err, compact(data), out)
	}
	if err := Validate(c, def, out); err != nil {
		return out, fmt.Errorf("re-encoded JSON is not a valid %s: %w", def, err)
	}
	return out, nil
}

func compact(b []byte) []byte {
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return b
	}
	return buf.Bytes()
}

// Validate validates data against definition def with jsonschema/v5.
func Validate(c *schema.Compiled, def string, data []byte) error {
	s, err := c.Definition(def)
	if err != nil {
		return err
	}
	v, err := decodeAny(data)
	if err != nil {
		return err
	}
	return s.Validate(v)
}

func decodeAny(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// Equal reports how two JSON documents differ, or nil when they are
// equal as JSON: same members (order aside), same array elements, same
// strings, numbers equal as numbers (so 1.0 equals 1 but 1 does not equal
// "1").
func Equal(a, b []byte) error {
	x, err := decodeAny(a)
	if err != nil {
		return fmt.Errorf("first document: %w", err)
	}
	y, err := decodeAny(b)
	if err != nil {
		return fmt.Errorf("second document: %w", err)
	}
	return equal("", x, y)
}

func equal(path string, x, y any) error {
	switch xv := x.(type) {
	case map[string]any:
		yv, ok := y.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: object vs %T", orRoot(path), y)
		}
		keys := map[string]bool{}
		for k := range xv {
			keys[k] = true
		}
		for k := range yv {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			a, inX := xv[k]
			b, inY := yv[k]
			switch {
			case !inX:
				return fmt.Errorf("%s/%s: member added", path, k)
			case !inY:
				return fmt.Errorf("%s/%s: member lost", path, k)
			}
			if err := equal(path+"/"+k, a, b); err != nil {
				return err
			}
		}
		return nil
	case []any:
		yv, ok := y.([]any)
		if !ok {
			return fmt.Errorf("%s: array vs %T", orRoot(path), y)
		}
		if len(xv) != len(yv) {
			return fmt.Errorf("%s: %d items vs %d", orRoot(path), len(xv), len(yv))
		}
		for i := range xv {
			if err := equal(fmt.Sprintf("%s/%d", path, i), xv[i], yv[i]); err != nil {
				return err
			}
		}
		return nil
	case json.Number:
		yv, ok := y.(json.Number)
		if !ok {
			return fmt.Errorf("%s: number %s vs %T", orRoot(path), xv, y)
		}
		a, ok1 := new(big.Rat).SetString(string(xv))
		b, ok2 := new(big.Rat).SetString(string(yv))
		if !ok1 || !ok2 || a.Cmp(b) != 0 {
			return fmt.Errorf("%s: %s vs %s", orRoot(path), xv, yv)
		}
		return nil
	}
	if x != y {
		return fmt.Errorf("%s: %#v vs %#v", orRoot(path), x, y)
	}
	return nil
}

func orRoot(p string) string {
	if p == "" {
		return "(root)"
	}
	return p
}

// IsMessageType reports whether a definition is a request, notification
// or result type: the types issue 2 wants populated values for.
func IsMessageType(name string) bool {
	for _, suffix := range []string{"Request", "Notification", "Result"} {
		if strings.HasSuffix(name, suffix) {
			return true
		}
	}
	return false
}

// LoadExtension loads the embedded extension schema called name composed
// with its core revision, as mcpgen generate --extension does, and
// compiles the extension schema (self-contained: it carries its copies of
// the core definitions) as the reference validator.
func LoadExtension(t testing.TB, name string) (*schema.Model, *schema.Compiled) {
	t.Helper()
	e, ok := official.LookupExtension(name)
	if !ok {
		t.Fatalf("no embedded extension %q", name)
	}
	coreData, err := official.Schema(e.Extends)
	if err != nil {
		t.Fatal(err)
	}
	core, err := schema.LoadBytes("official schema "+e.Extends, coreData, schema.Options{Revision: e.Extends})
	if err != nil {
		t.Fatal(err)
	}
	data, err := official.ExtensionSchema(name)
	if err != nil {
		t.Fatal(err)
	}
	file := "official extension " + name
	m, err := schema.LoadExtension(file, data, core, schema.ExtensionOptions{Name: e.Name, Identifier: e.Identifier})
	if err != nil {
		t.Fatalf("load %s: %v", file, err)
	}
	c, err := schema.Compile(file, data)
	if err != nil {
		t.Fatalf("compile %s: %v", file, err)
	}
	return m, c
}
