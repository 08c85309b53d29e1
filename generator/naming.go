package generator

import (
	"strings"
	"unicode"
)

// initialisms are the words Go spells in capitals (as golint and gopls do).
var initialisms = map[string]bool{
	"API": true, "HTTP": true, "HTTPS": true, "ID": true, "JSON": true, "MIME": true,
	"RPC": true, "SSE": true, "TTL": true, "UI": true, "URI": true, "URL": true, "UUID": true,
}

// TypeName is the Go name of a definition: the definition's own name, so
// users find CallToolRequest where the spec has it.
func TypeName(def string) string { return sanitize(def) }

// FieldName is the Go name of a JSON member: "_meta" → "Meta",
// "requestId" → "RequestID", "uri" → "URI", "mimeType" → "MIMEType",
// "io.modelcontextprotocol/protocolVersion" → "ProtocolVersion" (the
// reserved prefix says nothing the type does not).
func FieldName(json string) string {
	name := json
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	var b strings.Builder
	for _, w := range words(name) {
		if up := strings.ToUpper(w); initialisms[up] {
			b.WriteString(up)
			continue
		}
		r := []rune(w)
		r[0] = unicode.ToUpper(r[0])
		b.WriteString(string(r))
	}
	s := b.String()
	if s == "" {
		return "X"
	}
	if !unicode.IsLetter([]rune(s)[0]) {
		s = "X" + s
	}
	return s
}

// InlineName names an anonymous object or union nested in parent at the
// JSON member path: CallToolRequest + params → CallToolRequestParams. When
// parent already ends with the member's name it gets "Object" instead of a
// stutter: JSONRPCError + error → JSONRPCErrorObject (JSON-RPC's "error
// object"), not JSONRPCErrorError.
func InlineName(parent string, member string) string {
	f := FieldName(member)
	if strings.HasSuffix(parent, f) {
		return parent + "Object"
	}
	return parent + f
}

// words splits a JSON member name at punctuation and lower-to-upper case
// changes: "mimeType" → [mime Type], "list_changed" → [list changed].
func words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
		case unicode.IsUpper(r) && i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1])):
			flush()
			cur = append(cur, r)
		default:
			cur = append(cur, r)
		}
	}
	flush()
	return out
}

func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' {
			b.WriteRune(r)
		}
	}
	return b.String()
}
