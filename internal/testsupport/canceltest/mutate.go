package canceltest

import (
	"bytes"
	"encoding/json"
	"strings"
)

// value is a JSON value whose object members keep their order (and may
// repeat), so mutations can write exactly the text they mean.
type value struct {
	members []member // an object when obj is set
	obj     bool
	raw     string // any other value, as JSON text
}

type member struct {
	key string // as JSON text, quotes included
	val value
}

func raw(s string) value { return value{raw: s} }

func obj(kv ...any) value {
	v := value{obj: true}
	for i := 0; i < len(kv); i += 2 {
		m := member{key: quote(kv[i].(string))}
		switch x := kv[i+1].(type) {
		case value:
			m.val = x
		case string:
			m.val = raw(x)
		}
		v.members = append(v.members, m)
	}
	return v
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func (v value) String() string {
	if !v.obj {
		return v.raw
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, m := range v.members {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(m.key)
		b.WriteByte(':')
		b.WriteString(m.val.String())
	}
	b.WriteByte('}')
	return b.String()
}

func (v value) clone() value {
	if !v.obj {
		return v
	}
	c := value{obj: true, members: make([]member, len(v.members))}
	for i, m := range v.members {
		c.members[i] = member{key: m.key, val: m.val.clone()}
	}
	return c
}

// alternatives are values of every JSON kind, with the edge cases of each:
// integers written as fractions and exponents, huge and signed integers,
// strings with escapes and non-ASCII text, empty and nested containers.
var alternatives = []string{
	`null`, `true`, `false`,
	`0`, `-0`, `1`, `-1`, `7`, `1.0`, `1.5`, `-1.5`, `0.0`, `1e2`, `1E2`, `1e+2`, `1e-2`, `1.5e1`, `100e-2`, `0.1e1`,
	`1e400`, `-1e400`, `1e-400`, `123456789012345678901234567890`, `9007199254740993`, `-9223372036854775809`,
	`18446744073709551616`, `0.000000000000000000001e21`, `1e1000001`,
	`""`, `"x"`, `"123"`, `"7"`, `"2.0"`, `"1.0"`, `"notifications/cancelled"`, `"notifications/cancelled "`,
	`"Notifications/cancelled"`, `"notifications\/cancelled"`, `"notifications\u002fcancelled"`, `"2\u002e0"`,
	`"\u00e9"`, `"é"`, `"日本語"`, `"\ud83d\ude00"`, `"\ud800"`, `"a\nb"`, `"\u0000"`,
	`{}`, `[]`, `[1]`, `["x"]`, `[null]`, `{"a":1}`, `{"a":{"b":[{}]}}`,
	`{"io.modelcontextprotocol/subscriptionId":1}`, `{"io.modelcontextprotocol/subscriptionId":"s"}`,
	`{"io.modelcontextprotocol/subscriptionId":1.5}`, `{"io.modelcontextprotocol/subscriptionId":null}`,
	`{"io.modelcontextprotocol/subscriptionId":true}`, `{"io.modelcontextprotocol/subscriptionId":{}}`,
	`{"io.modelcontextprotocol/subscriptionId":1,"io.modelcontextprotocol/subscriptionId":[]}`,
	`{"io.modelcontextprotocol/subscriptionId":[],"io.modelcontextprotocol/subscriptionId":2}`,
	`{"io.modelcontextprotocol\/subscriptionId":false}`, `{"io.modelcontextprotocol~1subscriptionId":false}`,
	`{"io.modelcontextprotocol/progressToken":1.5}`,
}

// keyVariants are other spellings of a member name: escapes that decode to
// the same name, and near misses that do not.
func keyVariants(k string) []string {
	name := k[1 : len(k)-1]
	if name == "" {
		return nil
	}
	out := []string{
		`"\u00` + hex2(name[0]) + name[1:] + `"`, // the same name, escaped
		quote(strings.ToUpper(name[:1]) + name[1:]),
		quote(name + " "),
		quote(name + "\u0000"),
	}
	return out
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}

// path addresses a member: the indexes of members from the root.
type path []int

func (v value) at(p path) *member {
	var m *member
	cur := v
	for _, i := range p {
		m = &cur.members[i]
		cur = m.val
	}
	return m
}

// paths lists every member of v, depth first.
func (v value) paths(prefix path) []path {
	var out []path
	for i, m := range v.members {
		p := append(append(path(nil), prefix...), i)
		out = append(out, p)
		if m.val.obj {
			out = append(out, m.val.paths(p)...)
		}
	}
	return out
}

// objects lists the paths of every object in v (the root is the empty path).
func (v value) objects(prefix path) []path {
	out := []path{append(path(nil), prefix...)}
	for i, m := range v.members {
		if m.val.obj {
			out = append(out, m.val.objects(append(append(path(nil), prefix...), i))...)
		}
	}
	return out
}

// edit returns the text of a copy of base changed by fn.
func edit(base value, fn func(v *value)) string {
	c := base.clone()
	fn(&c)
	return c.String()
}

func objectAt(v *value, p path) *value {
	cur := v
	for _, i := range p {
		cur = &cur.members[i].val
	}
	return cur
}

// mutate returns systematic mutations of base: every member dropped,
// replaced by every alternative, duplicated (valid first or last), renamed,
// nested; every object extended with unknown members of every kind; the
// root replaced; and the text variants of mutateText.
func mutate(base value) []string {
	out := []string{base.String()}
	for _, p := range base.paths(nil) {
		p := p
		parent, idx := p[:len(p)-1], p[len(p)-1]
		out = append(out, edit(base, func(v *value) {
			o := objectAt(v, parent)
			o.members = append(o.members[:idx:idx], o.members[idx+1:]...)
		}))
		for _, alt := range alternatives {
			out = append(out, edit(base, func(v *value) { v.at(p).val = raw(alt) }))
			out = append(out, edit(base, func(v *value) { // the original repeated after: it counts
				o := objectAt(v, parent)
				m := o.members[idx]
				o.members = append(o.members, member{key: m.key, val: m.val})
				o.members[idx].val = raw(alt)
			}))
			out = append(out, edit(base, func(v *value) { // the alternative repeated after: it counts
				o := objectAt(v, parent)
				o.members = append(o.members, member{key: o.members[idx].key, val: raw(alt)})
			}))
		}
		orig := base.at(p)
		for _, k := range keyVariants(orig.key) {
			out = append(out, edit(base, func(v *value) { v.at(p).key = k }))
		}
		out = append(out,
			edit(base, func(v *value) { v.at(p).val = raw("[" + orig.val.String() + "]") }),
			edit(base, func(v *value) { v.at(p).val = raw(`{"value":` + orig.val.String() + "}") }),
		)
	}
	for _, p := range base.objects(nil) {
		p := p
		for _, alt := range alternatives {
			out = append(out, edit(base, func(v *value) {
				o := objectAt(v, p)
				o.members = append(o.members, member{key: `"x-unknown"`, val: raw(alt)})
			}))
		}
		for _, k := range []string{`"_meta"`, `"requestId"`, `"reason"`, `"params"`, `"jsonrpc"`, `"method"`, `""`, `"é"`} {
			out = append(out, edit(base, func(v *value) {
				o := objectAt(v, p)
				o.members = append(o.members, member{key: k, val: raw(`{}`)})
			}))
		}
	}
	out = append(out, alternatives...)
	for _, t := range mutateText([]byte(base.String())) {
		out = append(out, string(t))
	}
	return out
}

// mutateText returns text variants of a valid document: other whitespace,
// surrounding whitespace, trailing garbage, a byte-order mark and every
// truncation (each invalid JSON).
func mutateText(doc []byte) [][]byte {
	var out [][]byte
	var pretty bytes.Buffer
	if json.Indent(&pretty, doc, "", "  ") == nil {
		out = append(out, pretty.Bytes())
		out = append(out, bytes.ReplaceAll(pretty.Bytes(), []byte("\n"), []byte("\r\n")))
		out = append(out, bytes.ReplaceAll(pretty.Bytes(), []byte("  "), []byte("\t")))
	}
	var compact bytes.Buffer
	if json.Compact(&compact, doc) == nil {
		doc = compact.Bytes()
		out = append(out, doc)
	}
	cat := func(parts ...string) []byte { return []byte(strings.Join(parts, "")) }
	s := string(doc)
	out = append(out,
		cat(" \t\r\n", s, " \n"),
		cat(s, "\n"),
		cat("\ufeff", s),
		cat(s, "x"),
		cat(s, " {}"),
		cat(s, ","),
		cat(s, "]"),
		cat(s, "}"),
		cat("[", s, "]"),
		cat(s, "\x00"),
		cat("\x00", s),
	)
	for i := 0; i < len(doc); i++ {
		out = append(out, append([]byte(nil), doc[:i]...))
	}
	return out
}

func notificationBases() []value {
	var out []value
	for _, p := range paramsBases() {
		out = append(out,
			obj("jsonrpc", `"2.0"`, "method", `"notifications/cancelled"`, "params", p),
			obj("method", `"notifications/cancelled"`, "params", p),
		)
	}
	out = append(out,
		obj("jsonrpc", `"2.0"`, "id", `1`, "method", `"notifications/cancelled"`, "params", obj("requestId", `1`)),
		obj("params", obj("requestId", `"a"`), "method", `"notifications/cancelled"`, "jsonrpc", `"2.0"`, "extra", `[1,{"x":null}]`),
	)
	return out
}

func paramsBases() []value {
	return []value{
		obj("requestId", `"123"`, "reason", `"User requested cancellation"`),
		obj("requestId", `7`),
		obj("requestId", `7`, "reason", `"r"`, "_meta", obj("io.modelcontextprotocol/subscriptionId", `"s1"`, "x", `1`)),
		obj(),
		obj("reason", `"no id"`, "_meta", obj()),
	}
}

// handMade are negatives (and a few positives) written to hit one rule each.
func handMade(def string) []string {
	params := []string{
		`{"requestId":1.5}`, `{"requestId":true}`, `{"requestId":null}`, `{"requestId":[]}`, `{"requestId":{}}`,
		`{"requestId":1,"reason":null}`, `{"requestId":1,"reason":5}`, `{"requestId":1,"reason":["r"]}`,
		`{"requestId":1,"_meta":null}`, `{"requestId":1,"_meta":[]}`, `{"requestId":1,"_meta":"m"}`,
		`{"requestId":1,"_meta":{"io.modelcontextprotocol/subscriptionId":1.5}}`,
		`{"requestId":1e2}`, `{"requestId":1.0}`, `{"requestId":-0}`, `{"requestId":123456789012345678901234567890}`,
		`{"requestID":1}`, `{"RequestId":1}`, `{"request_id":1}`, `{"reason":"r"}`, `{}`, `[]`, `null`, `""`, `1`,
		`{"requestId":"1","requestId":1.5}`, `{"requestId":1.5,"requestId":"1"}`,
		`{"requestId":1,}`, `{"requestId" 1}`, `{requestId:1}`, `{'requestId':1}`, `{"requestId":01}`, `{"requestId":1.}`,
		`{"requestId":.5}`, `{"requestId":+1}`, `{"requestId":1e}`, `{"requestId":0x10}`, `{"requestId":NaN}`,
		`{"requestId":"\x"}`, `{"requestId":"\u12"}`, "{\"requestId\":\"a\tb\"}", `{"requestId":"a"`, ``, ` `,
		`{"requestId":tru}`, `{"requestId":nulll}`, `{"requestId":1}}`, `{"requestId":1} {"requestId":2}`,
	}
	if def == Params {
		return params
	}
	var out []string
	for _, p := range params {
		out = append(out, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":`+p+`}`)
	}
	out = append(out,
		`{"jsonrpc":"2.0","method":"notifications/cancelled"}`,
		`{"jsonrpc":"2.0","params":{"requestId":1}}`,
		`{"jsonrpc":"1.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":2.0,"method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":null}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":[1]}`,
		`{"jsonrpc":"2.0","method":null,"params":{"requestId":1}}`,
	)
	return out
}

// depthProbes nest arrays inside an open member right at encoding/json's
// depth limit of 10000.
func depthProbes(def string) []string {
	var out []string
	for _, n := range []int{9997, 9998, 9999, 10000} {
		deep := strings.Repeat("[", n) + strings.Repeat("]", n)
		if def == Params {
			out = append(out, `{"requestId":1,"x":`+deep+`}`)
		} else {
			out = append(out, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"x":`+deep+`}}`)
		}
	}
	return out
}
