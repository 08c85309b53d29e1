package jsonscan

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzValid holds Valid to json.Valid on any input (the runtime checks
// every message with it).
func FuzzValid(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
		` [1, -0.5e+3, "a\u00e9\n", true, false, null, {}] `, `01`, `1.`, `-`, `"\x"`, `"\u12"`, "\"\x01\"",
		`{"a" 1}`, `{"a":1,}`, `[1,]`, `tru`, `nul`, `{} {}`, "\xff", `"\xff"`, ``, ` `,
		strings.Repeat("[", 10000) + strings.Repeat("]", 10000),
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
		strings.Repeat(`{"a":`, 10001) + "1" + strings.Repeat("}", 10001),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := Valid(data), json.Valid(data); got != want {
			t.Fatalf("Valid(%q) = %v, json.Valid says %v", data, got, want)
		}
	})
}
