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

// FuzzMembers holds the trusted walkers (EachMember, Member) and the
// validating Object iterator to encoding/json's reading of every valid
// object: the same members, in order, with the last duplicate winning.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"_meta":{"progressToken":"p"}}}`,
		`{}`, ` { "a" : [ 1 , {"b":"}"} ] , "a" : null } `, `{"\u005fmeta":{"x":"\"}"}}`, `{"k":"\\"}`,
		`[1]`, `"s"`, `{"a":1e5,"b":-0.5,"c":true}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want map[string]json.RawMessage
		if json.Unmarshal(data, &want) != nil || want == nil {
			// Not an object: the walkers must not panic, whatever they say.
			EachMember(data, func(k, v []byte) bool { return true })
			_ = Member(data, "a")
			return
		}
		got := map[string]json.RawMessage{}
		n := 0
		EachMember(data, func(k, v []byte) bool {
			var key string
			if err := json.Unmarshal(append(append([]byte{'"'}, k...), '"'), &key); err != nil {
				t.Fatalf("EachMember(%q): key %q does not decode: %v", data, k, err)
			}
			got[key] = v
			n++
			return true
		})
		o := NewObject(data, 0)
		m := 0
		for o.Next() {
			m++
		}
		if o.Bad() || m != n {
			t.Fatalf("%q: EachMember saw %d members, Object %d (bad %v)", data, n, m, o.Bad())
		}
		if len(got) != len(want) {
			t.Fatalf("%q: EachMember saw keys %v, encoding/json %v", data, got, want)
		}
		for k, w := range want {
			g := got[k]
			if g == nil || !json.Valid(g) || !sameJSON(g, w) {
				t.Fatalf("%q: member %q is %q, encoding/json says %q", data, k, g, w)
			}
			if mv := Member(data, k); !sameJSON(mv, w) {
				t.Fatalf("%q: Member(%q) = %q, encoding/json says %q", data, k, mv, w)
			}
		}
	})
}

func sameJSON(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

func TestEditObject(t *testing.T) {
	for _, c := range []struct {
		in   string
		keep bool
		want string
	}{
		{``, true, `{"_meta":{"k":1}}`},
		{`null`, true, `{"_meta":{"k":1}}`},
		{`{"b":2,"_meta":{"x":"y"}}`, true, `{"_meta":{"k":1,"x":"y"},"b":2}`},
		{`{"_meta":null}`, true, `{"_meta":{"k":1}}`},
		{`{"a":1,"_meta":{}}`, false, `{"a":1}`},
	} {
		got, err := EditObject([]byte(c.in), "_meta", func(m map[string]json.RawMessage) bool {
			m["k"] = json.RawMessage(`1`)
			return c.keep
		})
		if err != nil || string(got) != c.want {
			t.Errorf("EditObject(%q) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{`[]`, `1`, `{"_meta":[1]}`, `{"_meta":`} {
		if got, err := EditObject([]byte(bad), "_meta", func(map[string]json.RawMessage) bool { return true }); err == nil {
			t.Errorf("EditObject(%q) = %s, want an error", bad, got)
		}
	}
	got, err := WithMember([]byte(`{"a":1,"b":2}`), "a", nil)
	if err != nil || string(got) != `{"b":2}` {
		t.Errorf("WithMember removing a = %s, %v", got, err)
	}
	got, err = WithMember(nil, "task", []byte(`{}`))
	if err != nil || string(got) != `{"task":{}}` {
		t.Errorf("WithMember on absent params = %s, %v", got, err)
	}
}
