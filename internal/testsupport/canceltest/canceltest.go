// Package canceltest checks a generated notifications/cancelled decoder
// against jsonschema/v5 compiled from the same schema file: the corpus of
// inputs (official examples, hand-made negatives, systematic mutations), the
// reference verdict and the agreement check the differential and fuzz tests
// of every generated package share.
package canceltest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/mcpgen/mcpgen/official"
)

// Definitions the decoders are checked against.
const (
	Notification = "CancelledNotification"
	Params       = "CancelledNotificationParams"
)

// SharedDir returns the module's official/ directory, which holds the
// official schemas and examples as schemas/<revision>/... (the layout the
// shared folder beside the module had before they moved in), found by walking
// up from the working directory to go.mod. $MCPGEN_SHARED overrides it.
// NewReference and Examples read the embedded copies instead; this is for
// tests that need the files on disk.
func SharedDir(tb testing.TB) string {
	tb.Helper()
	if d := os.Getenv("MCPGEN_SHARED"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "official")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			tb.Fatal("canceltest: no go.mod above the working directory")
		}
		dir = parent
	}
}

// Reference is jsonschema/v5's verdict on one definition of one revision.
type Reference struct {
	schema *jsonschema.Schema
}

// NewReference compiles the schema of revision with jsonschema/v5 and returns
// the validator of def: Notification, or Params (for revisions that inline
// the params object, the params member of CancelledNotification).
func NewReference(tb testing.TB, revision, def string) *Reference {
	tb.Helper()
	data, err := official.Schema(revision)
	if err != nil {
		tb.Fatal(err)
	}
	var root struct {
		Schema string `json:"$schema"`
	}
	if err := json.Unmarshal(data, &root); err != nil {
		tb.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	defsKey := "definitions"
	if strings.Contains(root.Schema, "2020-12") {
		c.Draft = jsonschema.Draft2020
		defsKey = "$defs"
	} else {
		c.Draft = jsonschema.Draft7
	}
	const url = "mcpgen:///schema.json"
	if err := c.AddResource(url, bytes.NewReader(data)); err != nil {
		tb.Fatal(err)
	}
	ptr := "#/" + defsKey + "/" + Notification
	if def == Params {
		ptr += "/properties/params"
	}
	s, err := c.Compile(url + ptr)
	if err != nil {
		tb.Fatal(err)
	}
	return &Reference{schema: s}
}

// Verdict is jsonschema/v5's answer for data, read by encoding/json with
// UseNumber as jsonschema/v5 reads documents (one value, nothing after it).
// known is false when jsonschema/v5 panics: it does for numbers whose
// exponent math/big refuses (big.Rat.SetString fails for |exponent| > 10^6,
// and v5 calls IsInt on the nil result), so it has no verdict to compare.
func (r *Reference) Verdict(data []byte) (valid, known bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return false, true
	}
	if _, err := dec.Token(); err != io.EOF {
		return false, true
	}
	defer func() {
		if recover() != nil {
			valid, known = false, false
		}
	}()
	return r.schema.Validate(v) == nil, true
}

// ValidatorFunc is the validator under test: nil or an error naming a JSON
// pointer.
type ValidatorFunc func(data []byte) error

// Agree fails t when validate and the reference disagree about data, when a
// rejection does not start with a JSON pointer, or when decode fails on an
// input validate accepted. It reports whether the reference had a verdict.
func Agree(t testing.TB, data []byte, validate ValidatorFunc, decode func([]byte) error, ref *Reference) bool {
	t.Helper()
	err := validate(data)
	want, known := ref.Verdict(data)
	if !known {
		return false
	}
	if got := err == nil; got != want {
		t.Errorf("disagreement on %s: decoder says %v (err %v), jsonschema/v5 says valid=%v", clip(data), got, err, want)
		return true
	}
	if err != nil {
		if msg := err.Error(); !strings.HasPrefix(msg, "/") && !strings.HasPrefix(msg, "(root): ") {
			t.Errorf("error for %s does not name a JSON pointer: %q", clip(data), msg)
		}
	} else if decode != nil {
		if err := decode(data); err != nil {
			t.Errorf("validated input %s does not decode: %v", clip(data), err)
		}
	}
	return true
}

func clip(b []byte) string {
	if len(b) > 200 {
		return fmt.Sprintf("%q… (%d bytes)", b[:200], len(b))
	}
	return fmt.Sprintf("%q", b)
}

// Examples returns the official examples of def (they ship with 2026-07-28
// only; they are valid instances in every revision that has jsonrpc).
func Examples(tb testing.TB, def string) [][]byte {
	tb.Helper()
	examples := official.Examples()
	entries, err := fs.ReadDir(examples, def)
	if err != nil {
		tb.Fatal(err)
	}
	var out [][]byte
	for _, e := range entries {
		b, err := fs.ReadFile(examples, def+"/"+e.Name())
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// Corpus returns the inputs of the differential test for def: the official
// examples, hand-made negatives and systematic mutations, deduplicated and
// in a stable order.
func Corpus(tb testing.TB, def string) [][]byte {
	tb.Helper()
	seen := map[string]bool{}
	var out [][]byte
	add := func(b []byte) {
		if !seen[string(b)] {
			seen[string(b)] = true
			out = append(out, b)
		}
	}
	for _, ex := range Examples(tb, def) {
		add(ex)
		for _, m := range mutateText(ex) {
			add(m)
		}
	}
	var bases []value
	if def == Notification {
		bases = notificationBases()
	} else {
		bases = paramsBases()
	}
	for _, b := range bases {
		for _, m := range mutate(b) {
			add([]byte(m))
		}
	}
	for _, s := range handMade(def) {
		add([]byte(s))
	}
	for _, s := range depthProbes(def) {
		add([]byte(s))
	}
	return out
}

// ValidateValue runs jsonschema/v5 alone on an already decoded document (for
// benchmarks that separate decoding from validation).
func (r *Reference) ValidateValue(doc any) error { return r.schema.Validate(doc) }

// Seeds returns a few hundred inputs of the corpus for a fuzz target: the
// examples, the hand-made cases and an even sample of the mutations (the
// fuzzer's baseline pass over all of Corpus would take most of a minute).
func Seeds(tb testing.TB, def string) [][]byte {
	tb.Helper()
	var out [][]byte
	out = append(out, Examples(tb, def)...)
	for _, s := range handMade(def) {
		out = append(out, []byte(s))
	}
	all := Corpus(tb, def)
	step := len(all)/300 + 1
	for i := 0; i < len(all); i += step {
		if len(all[i]) < 4096 {
			out = append(out, all[i])
		}
	}
	return out
}

// SameAsUnmarshal checks that the generated decoder, which fills the typed
// value straight from its scan, builds exactly what the type's own
// UnmarshalJSON builds from the same valid input. It reports whether the
// comparison was made (UnmarshalJSON refuses integers written as 1e2, which
// the decoder accepts as JSON Schema does).
func SameAsUnmarshal[T any](t testing.TB, data []byte, decode func([]byte) (*T, error)) bool {
	t.Helper()
	fast, err := decode(data)
	if err != nil {
		return false
	}
	slow := new(T)
	if json.Unmarshal(data, slow) != nil {
		return false
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Errorf("%s: the decoder built %+v, UnmarshalJSON %+v", clip(data), fast, slow)
	}
	return true
}
