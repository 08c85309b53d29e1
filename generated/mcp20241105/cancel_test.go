package mcp20241105

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/canceltest"
)

const revision = "2024-11-05"

func validateNotification(data []byte) error { return ValidateCancelledNotification(data) }
func validateParams(data []byte) error       { return ValidateCancelledNotificationParams(data) }

func decodeNotification(data []byte) error {
	_, err := DecodeCancelledNotification(data)
	return err
}

func decodeParams(data []byte) error {
	_, err := DecodeCancelledNotificationParams(data)
	return err
}

// TestCancelledDifferential feeds the corpus (official examples, hand-made
// negatives, systematic mutations) to the generated validators and to
// jsonschema/v5 compiled from the same schema; the verdicts must agree.
func TestCancelledDifferential(t *testing.T) {
	for _, c := range []struct {
		def      string
		validate canceltest.Validate
		decode   func([]byte) error
	}{
		{canceltest.Notification, validateNotification, decodeNotification},
		{canceltest.Params, validateParams, decodeParams},
	} {
		t.Run(c.def, func(t *testing.T) {
			ref := canceltest.NewReference(t, revision, c.def)
			corpus := canceltest.Corpus(t, c.def)
			compared, valid := 0, 0
			var noVerdict []string
			for _, in := range corpus {
				if canceltest.Agree(t, in, c.validate, c.decode, ref) {
					compared++
					if c.validate(in) == nil {
						valid++
					}
				} else {
					noVerdict = append(noVerdict, string(in))
				}
			}
			t.Logf("%s %s: %d inputs, %d compared (%d valid), %d without a jsonschema/v5 verdict (it panics on exponents beyond 10^6, e.g. %q)",
				revision, c.def, len(corpus), compared, valid, len(noVerdict), noVerdict[:min(1, len(noVerdict))])
			if compared < 1000 {
				t.Errorf("only %d inputs compared, want at least 1000", compared)
			}
			if valid == 0 || valid == compared {
				t.Errorf("corpus is one-sided: %d of %d valid", valid, compared)
			}
		})
	}
}

// TestCancelledDecodeMatchesUnmarshal: for every valid input of the corpus
// the decoder builds the same value as the types' UnmarshalJSON.
func TestCancelledDecodeMatchesUnmarshal(t *testing.T) {
	n := 0
	for _, in := range canceltest.Corpus(t, canceltest.Notification) {
		if canceltest.SameAsUnmarshal(t, in, DecodeCancelledNotification) {
			n++
		}
	}
	for _, in := range canceltest.Corpus(t, canceltest.Params) {
		if canceltest.SameAsUnmarshal(t, in, DecodeCancelledNotificationParams) {
			n++
		}
	}
	t.Logf("%d decoded values compared", n)
	if n < 1000 {
		t.Errorf("only %d values compared", n)
	}
}

// TestCancelledErrorPointers checks that rejections name the JSON pointer of
// the offending value.
func TestCancelledErrorPointers(t *testing.T) {
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
		err := ValidateCancelledNotification([]byte(in))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", in, err, want)
		}
	}
	if _, err := DecodeCancelledNotificationParams([]byte(`{"requestId":{}}`)); err == nil || err.Error() != "/requestId: must be a string or an integer" {
		t.Errorf("params: got %v", err)
	}
}

// TestCancelledExamples decodes the official examples.
func TestCancelledExamples(t *testing.T) {
	for _, ex := range canceltest.Examples(t, canceltest.Notification) {
		if _, err := DecodeCancelledNotification(ex); err != nil {
			t.Errorf("%s: %v", ex, err)
		}
	}
	for _, ex := range canceltest.Examples(t, canceltest.Params) {
		if _, err := DecodeCancelledNotificationParams(ex); err != nil {
			t.Errorf("%s: %v", ex, err)
		}
	}
}

// TestCancelledIntegerForms: numbers JSON Schema counts as integers (1e2,
// 7.0) are accepted, as jsonschema/v5 does, and decoded as the integer they
// denote; strings stay strings, and -0 stays as written.
func TestCancelledIntegerForms(t *testing.T) {
	for in, want := range map[string]string{
		`1e2`: `100`, `7.0`: `7`, `-0.5e1`: `-5`, `100e-2`: `1`, `0.0`: `0`, `1E+3`: `1000`,
		`12345678901234567890123`: `12345678901234567890123`, `"7"`: `"7"`, `-0`: `-0`,
		`1e40`: `1` + strings.Repeat("0", 40),
	} {
		p, err := DecodeCancelledNotificationParams([]byte(`{"requestId":` + in + `}`))
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

// benchInputs are the official example and a message whose params carry
// _meta (with this revision's typed and untyped keys).
var benchInputs = []struct{ name, data string }{
	{"example", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"123","reason":"User requested cancellation"}}`},
	{"meta", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"123","reason":"User requested cancellation","_meta":{"io.modelcontextprotocol/subscriptionId":42,"com.example/trace":"abc"}}}`},
}

// BenchmarkCancelled compares, on the same messages, the generated
// validator and decoder with jsonschema/v5 (which needs the document decoded
// into interface values first), alone and followed by the typed
// UnmarshalJSON that a decoder built on it would need.
func BenchmarkCancelled(b *testing.B) {
	ref := canceltest.NewReference(b, revision, canceltest.Notification)
	for _, in := range benchInputs {
		data := []byte(in.data)
		b.Run(in.name+"/generated-validate", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := ValidateCancelledNotification(data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(in.name+"/generated-decode", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := DecodeCancelledNotification(data); err != nil {
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
				var n CancelledNotification
				if err := json.Unmarshal(data, &n); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
