package jsonscan

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string exactly as encoding/json writes
// it: invalid UTF-8 replaced by U+FFFD, U+2028 and U+2029 escaped, and, when
// escapeHTML is set (encoding/json's default), <, > and & escaped as well;
// without it they are written as themselves, as an Encoder with
// SetEscapeHTML(false) does. The codec (runtime/genimpl) and the typed-tools
// support (runtime/toolsupport) both write strings through it.
func AppendString(buf []byte, s string, escapeHTML bool) []byte {
	safe := &safeNoHTML
	if escapeHTML {
		safe = &safeHTML
	}
	buf = append(buf, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if safe[b] {
				i++
				continue
			}
			buf = append(buf, s[start:i]...)
			switch b {
			case '\\', '"':
				buf = append(buf, '\\', b)
			case '\b':
				buf = append(buf, '\\', 'b')
			case '\f':
				buf = append(buf, '\\', 'f')
			case '\n':
				buf = append(buf, '\\', 'n')
			case '\r':
				buf = append(buf, '\\', 'r')
			case '\t':
				buf = append(buf, '\\', 't')
			default:
				buf = append(buf, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			buf = append(buf, s[start:i]...)
			buf = append(buf, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			buf = append(buf, s[start:i]...)
			buf = append(buf, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	buf = append(buf, s[start:]...)
	return append(buf, '"')
}

// safeHTML and safeNoHTML are true for the ASCII bytes AppendString writes
// unescaped, with and without HTML escaping.
var safeHTML, safeNoHTML = func() (html, plain [utf8.RuneSelf]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		plain[c] = c != '"' && c != '\\'
		html[c] = plain[c] && c != '<' && c != '>' && c != '&'
	}
	return html, plain
}()
