package canceltest

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

// Subject is one generated package's notifications/cancelled decoder, as
// the shared tests see it: N is its CancelledNotification type and P its
// CancelledNotificationParams type. Each generated package declares one and
// calls the methods below from its own Test, Fuzz and Benchmark functions,
// so the checks are written once for every revision.
type Subject[N, P any] struct {
	// Revision is the schema revision the package was generated from.
	Revision string
	// DecodeNotification and DecodeParams are the generated decoders.
	DecodeNotification func([]byte) (*N, error)
	DecodeParams       func([]byte) (*P, error)
	// ValidateNotification and ValidateParams are the generated validators.
	ValidateNotification func([]byte) error
	ValidateParams       func([]byte) error
	// Policy is the generated Policy, whose Cancelled decoder the runtime
	// runs (RuntimeDifferential, FuzzRuntime).
	Policy func(jsonrpc2.Side) jsonrpc2.Policy
}

func (s Subject[N, P]) validator(def string) ValidatorFunc {
	if def == Notification {
		return s.ValidateNotification
	}
	return s.ValidateParams
}

func (s Subject[N, P]) decoder(def string) func([]byte) error {
	if def == Notification {
		return func(b []byte) error { _, err := s.DecodeNotification(b); return err }
	}
	return func(b []byte) error { _, err := s.DecodeParams(b); return err }
}

func (s Subject[N, P]) sameAsUnmarshal(t testing.TB, def string, data []byte) bool {
	if def == Notification {
		return SameAsUnmarshal(t, data, s.DecodeNotification)
	}
	return SameAsUnmarshal(t, data, s.DecodeParams)
}

// Differential feeds the corpus (official examples, hand-made negatives,
// systematic mutations) to the generated validators and to jsonschema/v5
// compiled from the same schema; the verdicts must agree on every input.
func (s Subject[N, P]) Differential(t *testing.T) {
	for _, def := range []string{Notification, Params} {
		t.Run(def, func(t *testing.T) {
			ref := NewReference(t, s.Revision, def)
			corpus := Corpus(t, def)
			validate := s.validator(def)
			compared, valid := 0, 0
			var noVerdict []string
			for _, in := range corpus {
				if Agree(t, in, validate, s.decoder(def), ref) {
					compared++
					if validate(in) == nil {
						valid++
					}
				} else {
					noVerdict = append(noVerdict, string(in))
				}
			}
			t.Logf("%s %s: %d inputs, %d compared (%d valid), %d without a jsonschema/v5 verdict (it panics on exponents beyond 10^6, e.g. %q)",
				s.Revision, def, len(corpus), compared, valid, len(noVerdict), noVerdict[:min(1, len(noVerdict))])
			if compared < 1000 {
				t.Errorf("only %d inputs compared, want at least 1000", compared)
			}
			if valid == 0 || valid == compared {
				t.Errorf("corpus is one-sided: %d of %d valid", valid, compared)
			}
		})
	}
}

// DecodeMatchesUnmarshal checks that for every valid input of the corpus
// the decoder builds the same value as the types' UnmarshalJSON.
func (s Subject[N, P]) DecodeMatchesUnmarshal(t *testing.T) {
	n := 0
	for _, def := range []string{Notification, Params} {
		for _, in := range Corpus(t, def) {
			if s.sameAsUnmarshal(t, def, in) {
				n++
			}
		}
	}
	t.Logf("%d decoded values compared", n)
	if n < 1000 {
		t.Errorf("only %d values compared", n)
	}
}

// ErrorPointers checks that rejections name the JSON pointer of the
// offending value.
func (s Subject[N, P]) ErrorPointers(t *testing.T) {
	for in, want := range map[string]string{
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1.5}}`:          "/params/requestId: must be a string or an integer",
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":true}}`:         "/params/requestId: must be a string or an integer",
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":5}}`: "/params/reason: must be a string",
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"requestId":1}}`:             `/method: must be "notifications/cancelled"`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled"}`:                                     `(root): missing required member "params"`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":[]}`:                         "/params: must be an object",
		`[]`:                "(root): must be an object",
		`{"jsonrpc":"2.0",`: "(root): not valid JSON",
		`{"a":1} {"a":2}`:   "(root): not valid JSON",
	} {
		err := s.ValidateNotification([]byte(in))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", in, err, want)
		}
	}
	if _, err := s.DecodeParams([]byte(`{"requestId":{}}`)); err == nil || err.Error() != "/requestId: must be a string or an integer" {
		t.Errorf("params: got %v", err)
	}
}

// Examples decodes the official examples.
func (s Subject[N, P]) Examples(t *testing.T) {
	for _, def := range []string{Notification, Params} {
		for _, ex := range Examples(t, def) {
			if err := s.decoder(def)(ex); err != nil {
				t.Errorf("%s: %v", ex, err)
			}
		}
	}
}

// IntegerForms checks that numbers JSON Schema counts as integers (1e2,
// 7.0) are accepted, as jsonschema/v5 does, and decoded as the integer they
// denote; strings stay strings, and -0 stays as written.
func (s Subject[N, P]) IntegerForms(t *testing.T) {
	for in, want := range map[string]string{
		`1e2`: `100`, `7.0`: `7`, `-0.5e1`: `-5`, `100e-2`: `1`, `0.0`: `0`, `1E+3`: `1000`,
		`12345678901234567890123`: `12345678901234567890123`, `"7"`: `"7"`, `-0`: `-0`,
		`1e40`: `1` + strings.Repeat("0", 40), `0e100000000`: `0`, `-0.0e999999999`: `0`,
	} {
		p, err := s.DecodeParams([]byte(`{"requestId":` + in + `}`))
		if err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		out, err := json.Marshal(p)
		if err != nil || !bytes.Contains(out, []byte(`"requestId":`+want)) {
			t.Errorf("%s: decoded as %s (%v), want requestId %s", in, out, err, want)
		}
	}
}

// Fuzz checks that the generated decoder of def never panics, never
// disagrees with jsonschema/v5 and builds what UnmarshalJSON builds. Seeds:
// a sample of the differential corpus (and the package's testdata/fuzz/).
func (s Subject[N, P]) Fuzz(f *testing.F, def string) {
	for _, in := range Seeds(f, def) {
		f.Add(in)
	}
	ref := NewReference(f, s.Revision, def)
	f.Fuzz(func(t *testing.T, data []byte) {
		Agree(t, data, s.validator(def), s.decoder(def), ref)
		s.sameAsUnmarshal(t, def, data)
	})
}

// benchInputs are the official example and a message whose params carry
// _meta (with typed and untyped keys).
var benchInputs = []struct{ name, data string }{
	{"example", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"123","reason":"User requested cancellation"}}`},
	{"meta", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"123","reason":"User requested cancellation","_meta":{"io.modelcontextprotocol/subscriptionId":42,"com.example/trace":"abc"}}}`},
}

// Benchmark compares, on the same messages, the generated validator and
// decoder with jsonschema/v5 (which needs the document decoded into
// interface values first), alone and followed by the typed UnmarshalJSON
// that a decoder built on it would need.
func (s Subject[N, P]) Benchmark(b *testing.B) {
	ref := NewReference(b, s.Revision, Notification)
	for _, in := range benchInputs {
		data := []byte(in.data)
		b.Run(in.name+"/generated-validate", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := s.ValidateNotification(data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(in.name+"/generated-decode", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := s.DecodeNotification(data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(in.name+"/jsonschema-v5-validate", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if ok, _ := ref.Verdict(data); !ok {
					b.Fatal("invalid")
				}
			}
		})
		b.Run(in.name+"/jsonschema-v5-validate-then-unmarshal", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if ok, _ := ref.Verdict(data); !ok {
					b.Fatal("invalid")
				}
				if err := json.Unmarshal(data, new(N)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
