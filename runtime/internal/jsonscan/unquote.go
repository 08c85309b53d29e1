package jsonscan

import "strings"

// Unquote decodes the valid JSON string literal v (quotes included) when
// it holds only ASCII and two-character escapes (\" \\ \/ \b \f \n \r \t):
// JSON written as text, the common escaped string, in one allocation.
// ok is false for a \u escape or a byte beyond ASCII, whose decoding
// (surrogates, invalid UTF-8 read as U+FFFD) is left to encoding/json so
// that it reads exactly as encoding/json reads it.
func Unquote(v []byte) (s string, ok bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	body := v[1 : len(v)-1]
	var b strings.Builder
	b.Grow(len(body))
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c >= 0x80 {
			return "", false
		}
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i++; i >= len(body) {
			return "", false
		}
		switch body[i] {
		case '"', '\\', '/':
			b.WriteByte(body[i])
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		default:
			return "", false
		}
	}
	return b.String(), true
}

// UnquoteKnown is Unquote that returns the element of known that v spells,
// when it spells one without escapes, instead of a new string: the
// protocol versions every request carries come from a short list, and
// copying one out per request was an allocation each.
func UnquoteKnown(v []byte, known []string) (s string, ok bool) {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		body := v[1 : len(v)-1]
		for _, k := range known {
			if string(body) == k {
				return k, true
			}
		}
	}
	return Unquote(v)
}
