package mcp20250618

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/canceltest"
)

const revision = "2025-06-18"

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
			t.Logf("%s %s: %d inputs, %d compared (%d valid), %d without a jsonschema/v5 verdict (it panics): %q",
				revision, c.def, len(corpus), compared, valid, len(noVerdict), noVerdict)
			if compared < 1000 {
				t.Errorf("only %d inputs compared, want at least 1000", compared)
			}
			if valid == 0 || valid == compared {
				t.Errorf("corpus is one-sided: %d of %d valid", valid, compared)
			}
		})
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

var benchInput = []byte(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"123","reason":"User requested cancellation","_meta":{"io.modelcontextprotocol/subscriptionId":42,"com.example/trace":"abc"}}}`)

// BenchmarkCancelledValidate compares the generated validator with
// jsonschema/v5 (which needs the document decoded into interface values
// first) on the same message.
func BenchmarkCancelledValidate(b *testing.B) {
	b.Run("generated", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(benchInput)))
		for i := 0; i < b.N; i++ {
			if err := ValidateCancelledNotification(benchInput); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("generated-decode", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(benchInput)))
		for i := 0; i < b.N; i++ {
			if _, err := DecodeCancelledNotification(benchInput); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("jsonschema-v5", func(b *testing.B) {
		ref := canceltest.NewReference(b, revision, canceltest.Notification)
		b.ReportAllocs()
		b.SetBytes(int64(len(benchInput)))
		for i := 0; i < b.N; i++ {
			if ok, _ := ref.Verdict(benchInput); !ok {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("jsonschema-v5-validate-only", func(b *testing.B) {
		ref := canceltest.NewReference(b, revision, canceltest.Notification)
		dec := json.NewDecoder(bytes.NewReader(benchInput))
		dec.UseNumber()
		var doc any
		if err := dec.Decode(&doc); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if err := ref.ValidateValue(doc); err != nil {
				b.Fatal(err)
			}
		}
	})
}
