package genimpl

import "testing"

// TestKnownStringsDecodeWithoutAllocating checks that the protocol's
// discriminator values decode to themselves from the shared copies, and
// that other strings (and escaped spellings of known ones) still decode as
// before.
func TestKnownStringsDecodeWithoutAllocating(t *testing.T) {
	for _, s := range []string{"text", "complete", "input_required", "image", "audio", "resource", "resource_link", "user", "assistant"} {
		lit := []byte(`"` + s + `"`)
		if got := StringValue(lit); got != s {
			t.Errorf("StringValue(%s) = %q", lit, got)
		}
		if got, ok := stringValue(lit); !ok || got != s {
			t.Errorf("stringValue(%s) = %q, %v", lit, got, ok)
		}
		if n := testing.AllocsPerRun(10, func() { _ = StringValue(lit) }); n != 0 {
			t.Errorf("StringValue(%s): %v allocations, want 0", lit, n)
		}
	}
	for lit, want := range map[string]string{`"te\u0078t"`: "text", `"texts"`: "texts", `""`: "", `"Text"`: "Text"} {
		if got := StringValue([]byte(lit)); got != want {
			t.Errorf("StringValue(%s) = %q, want %q", lit, got, want)
		}
	}
}
