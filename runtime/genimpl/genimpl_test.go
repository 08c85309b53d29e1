package genimpl

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"
)

var seeds = []string{
	`{}`, `[]`, `""`, `0`, `-0.5e+10`, `true`, `false`, `null`, ` {"a" : [1, 2 ,{"b":null}] } `,
	`{"a":1,"a":2}`, `{"a\u0062":"x"}`, `"\ud800"`, `"<&>\u2028"`, `"é\n"`, `"\u00e9\"x"`, "\"\xff\"", `01`, `1.`, `-`, `{"a":}`,
	`[1,]`, `{"a":1,}`, `"\x"`, "\"\t\"", `{"a" 1}`, `nul`, `1e`, `[[[]]]`, `{"type":"text","text":"hi"}`,
}

// FuzzValue: the scanner accepts exactly what encoding/json accepts.
func FuzzValue(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, ok := Value(data)
		if ok != json.Valid(data) {
			t.Fatalf("Value ok=%v, json.Valid=%v for %q", ok, !ok, data)
		}
	})
}

// FuzzDecodeObject: an object's members are what encoding/json finds.
func FuzzDecodeObject(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := DecodeObject(data)
		var want map[string]json.RawMessage
		werr := json.Unmarshal(data, &want)
		if Kind(data) != '{' {
			werr = errors.New("not an object")
		}
		if (err == nil) != (werr == nil) {
			t.Fatalf("DecodeObject err=%v, encoding/json err=%v for %q", err, werr, data)
		}
		if err == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("DecodeObject = %q, encoding/json = %q", got, want)
		}
	})
}

// FuzzDecodeInto: the reflection-free field decoders agree with
// encoding/json on every value.
func FuzzDecodeInto(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, ok := Value(data)
		if !ok {
			return
		}
		check := func(got, want any) {
			t.Helper()
			gerr := decodeInto(v, got)
			werr := json.Unmarshal(v, want)
			if (gerr == nil) != (werr == nil) {
				t.Fatalf("%T: err %v, encoding/json %v for %q", got, gerr, werr, v)
			}
			if gerr == nil && !reflect.DeepEqual(got, want) {
				t.Fatalf("%T: %#v, encoding/json %#v for %q", got, reflect.ValueOf(got).Elem(), reflect.ValueOf(want).Elem(), v)
			}
		}
		check(new(string), new(string))
		check(new(*string), new(*string))
		check(new(bool), new(bool))
		check(new(*bool), new(*bool))
		check(new(float64), new(float64))
		check(new(*float64), new(*float64))
		check(new(map[string]json.RawMessage), new(map[string]json.RawMessage))
		check(new(json.RawMessage), new(json.RawMessage))
		check(new([]string), new([]string))
		check(new(map[string]map[string]json.RawMessage), new(map[string]map[string]json.RawMessage))
	})
}

// FuzzAppendString: strings are written byte for byte as json.Marshal
// writes them.
func FuzzAppendString(f *testing.F) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("AppendString(%q) = %s, json.Marshal = %s", s, got, want)
		}
	})
}

// FuzzAppendValue: raw values (compacted, HTML-escaped), raw maps and
// numbers come out as json.Marshal writes them.
func FuzzAppendValue(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s), 1.5)
	}
	f.Add([]byte(`{"b":1,"a":[ "<" ]}`), 1e21)
	f.Add([]byte(`{}`), 1e-7)
	f.Fuzz(func(t *testing.T, data []byte, x float64) {
		for _, v := range []any{json.RawMessage(data), x, &x, len(data) > 3} {
			want, werr := json.Marshal(v)
			got, gerr := AppendValue(nil, v)
			if (gerr == nil) != (werr == nil) || gerr == nil && !bytes.Equal(got, want) {
				t.Fatalf("AppendValue(%T %v) = %s, %v; json.Marshal = %s, %v", v, v, got, gerr, want, werr)
			}
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(data, &m) == nil && m != nil {
			want, werr := json.Marshal(m)
			got, gerr := AppendValue(nil, m)
			if (gerr == nil) != (werr == nil) || gerr == nil && !bytes.Equal(got, want) {
				t.Fatalf("map: %s, %v; json.Marshal = %s, %v", got, gerr, want, werr)
			}
		}
	})
}

// FuzzDiscriminator: the peeked discriminator is the member encoding/json
// decodes (the last of duplicates).
func FuzzDiscriminator(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tag, present, isString, err := Discriminator(data, "type")
		m, werr := DecodeObject(data)
		if (err == nil) != (werr == nil) {
			t.Fatalf("err %v, DecodeObject err %v", err, werr)
		}
		if err != nil {
			return
		}
		raw, wpresent := m["type"]
		var s string
		wstring := wpresent && json.Unmarshal(raw, &s) == nil && Kind(raw) == '"'
		if present != wpresent || isString != wstring || isString && string(tag) != s {
			t.Fatalf("Discriminator = %q %v %v; want %q %v %v", tag, present, isString, s, wpresent, wstring)
		}
	})
}

func TestDecoder(t *testing.T) {
	var d Decoder
	if err := d.Init("T", []byte(`{"a":"x","b":null,"c":1,"a":"y","z":{"q":1}}`)); err != nil {
		t.Fatal(err)
	}
	var a string
	d.Field("a", true, false, &a)
	var c float64
	d.Field("c", true, false, &c)
	if d.Err() != nil || a != "y" || c != 1 {
		t.Fatalf("a=%q c=%v err=%v", a, c, d.Err())
	}
	var b *string
	d.Field("b", false, false, &b)
	var de *DecodeError
	if !errors.As(d.Err(), &de) || de.Member != "b" || !errors.Is(de, ErrNull) {
		t.Fatalf("null b: %v", d.Err())
	}
	rest := d.Rest()
	if len(rest) != 1 || string(rest["z"]) != `{"q":1}` {
		t.Fatalf("rest = %q", rest)
	}
	var d2 Decoder
	d2.Init("T", []byte(`{}`))
	d2.Field("a", true, false, &a)
	if !errors.Is(d2.Err(), ErrMissing) {
		t.Fatalf("missing: %v", d2.Err())
	}
	for _, bad := range []string{`[]`, `{"a":1`, `{"a":1} x`, ``} {
		var d Decoder
		if d.Init("T", []byte(bad)) == nil {
			t.Errorf("Init accepted %q", bad)
		}
	}
}

// TestDecoderManyMembers: past the 16 inline slots members still count.
func TestDecoderManyMembers(t *testing.T) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i := 0; i < 40; i++ {
		if i > 0 {
			buf.WriteByte(',')
		}
		fmt.Fprintf(&buf, `"k%d":%d`, i, i%10)
	}
	buf.WriteByte('}')
	var d Decoder
	if err := d.Init("T", buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	var x float64
	d.Field("k39", true, false, &x)
	if d.Err() != nil || x != 9 || len(d.Rest()) != 39 {
		t.Fatalf("x=%v rest=%d err=%v", x, len(d.Rest()), d.Err())
	}
}

func TestEncoderExtraSkipsWritten(t *testing.T) {
	var e Encoder
	e.Init("T", nil)
	e.Value(`"a":`, "x")
	e.Raw(`"type":`, `"text"`)
	e.Extra(map[string]json.RawMessage{"a": json.RawMessage(`1`), "z": json.RawMessage(` [ 1 ] `), "n": nil})
	got, err := e.Bytes()
	if err != nil || string(got) != `{"a":"x","type":"text","n":null,"z":[1]}` {
		t.Fatalf("%s %v", got, err)
	}
	var empty Encoder
	empty.Init("T", nil)
	if got, _ := empty.Bytes(); string(got) != `{}` {
		t.Fatalf("empty: %s", got)
	}
	if _, err := AppendFloat(nil, math.NaN()); err == nil {
		t.Fatal("NaN encoded")
	}
}

func TestParseInteger(t *testing.T) {
	for in, want := range map[string]int64{`1`: 1, `1.0`: 1, `1e3`: 1000, ` -2 `: -2} {
		if got, err := ParseInteger([]byte(in)); err != nil || got != want {
			t.Errorf("ParseInteger(%s) = %d, %v", in, got, err)
		}
	}
	for _, in := range []string{`1.5`, `"1"`, `1e400`, `1 2`} {
		if _, err := ParseInteger([]byte(in)); err == nil {
			t.Errorf("ParseInteger(%s) accepted", in)
		}
	}
}

type appenderT struct{ A string }

func (x appenderT) AppendJSON(buf []byte) ([]byte, error) { return AppendString(buf, x.A), nil }

// TestAppendValueNil: nil and typed nil pointers and maps encode as null,
// as json.Marshal writes them, without calling a method on nil.
func TestAppendValueNil(t *testing.T) {
	var p *appenderT
	var m map[string]json.RawMessage
	var s []string
	for _, v := range []any{nil, p, Appender(p), m, s, &appenderT{"x"}, appenderT{"y"}} {
		got, err := AppendValue(nil, v)
		if err != nil {
			t.Fatal(err)
		}
		want := map[bool]string{true: "null"}[v == nil]
		switch x := v.(type) {
		case *appenderT:
			if x != nil {
				want = `"x"`
			} else {
				want = "null"
			}
		case appenderT:
			want = `"y"`
		case map[string]json.RawMessage, []string:
			want = "null"
		}
		if string(got) != want {
			t.Errorf("AppendValue(%#v) = %s, want %s", v, got, want)
		}
	}
}

func TestIntegerNumberLiterals(t *testing.T) {
	for in, want := range map[string]bool{
		"7": true, "-7": true, " 0 ": true, "9223372036854775807": true,
		"9223372036854775808": false, "1.0": false, "1e3": false, "95.5": false, `"7"`: false, "true": false, "": false,
	} {
		if got := IsInt64Literal([]byte(in)); got != want {
			t.Errorf("IsInt64Literal(%q) = %v", in, got)
		}
	}
	for f, want := range map[float64]string{95: "95.0", 95.5: "95.5", -3: "-3.0", 0: "0.0", 1e21: "1e+21", 1e-7: "1e-7"} {
		got, err := AppendNumber(nil, f)
		if err != nil || string(got) != want {
			t.Errorf("AppendNumber(%v) = %s, %v; want %s", f, got, err, want)
		}
		if IsInt64Literal(got) {
			t.Errorf("AppendNumber(%v) = %s reads as an integer", f, got)
		}
	}
	if _, err := AppendNumber(nil, math.NaN()); err == nil {
		t.Error("NaN encoded")
	}
}
