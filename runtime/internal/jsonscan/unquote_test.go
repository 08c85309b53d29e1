package jsonscan

import (
	"encoding/json"
	"testing"
)

// TestUnquote: what Unquote decodes reads as encoding/json reads it, and it
// declines what it leaves to encoding/json.
func TestUnquote(t *testing.T) {
	for _, lit := range []string{`""`, `"plain"`, `"{\"text\":\"hello\"}"`, `"a\\b\/c\b\f\n\r\t"`, `"\\\""`} {
		got, ok := Unquote([]byte(lit))
		var want string
		if err := json.Unmarshal([]byte(lit), &want); err != nil || !ok || got != want {
			t.Errorf("%s: %q %v, want %q", lit, got, ok, want)
		}
	}
	for _, lit := range []string{`"\u0041"`, "\"é\"", "\"\xff\"", `x`, `"`} {
		if _, ok := Unquote([]byte(lit)); ok {
			t.Errorf("%s: decoded, want it left to encoding/json", lit)
		}
	}
}

func FuzzUnquote(f *testing.F) {
	f.Add(`"{\"a\":1}\n"`)
	f.Fuzz(func(t *testing.T, s string) {
		lit, _ := json.Marshal(s)
		got, ok := Unquote(lit)
		if ok && got != s {
			t.Errorf("%s: %q", lit, got)
		}
		if !Valid([]byte(s)) || len(s) < 2 || s[0] != '"' {
			return
		}
		got, ok = Unquote([]byte(s))
		var want string
		if ok && (json.Unmarshal([]byte(s), &want) != nil || got != want) {
			t.Errorf("%s: %q, encoding/json %q", s, got, want)
		}
	})
}
