// Package jsonscan is the one home of the project's JSON scanning and
// member editing, below every support package that needs it (the JSON-RPC
// peer validates and picks apart each message with it, runtime/genimpl
// builds the generated codec on it, the session and tasks edit _meta with
// it). Standard library only.
//
// Two kinds of scanning live here. The validating scanner (Skip, Valid,
// Value, the Object and Array iterators) checks everything it passes over
// exactly as encoding/json does, without allocating. The trusted walkers
// (EachMember, Member) only step over input that has already been
// validated, which is what the decoder's hot path needs: it validates each
// message once and then picks its members out without checking again.
// Member editing (WithMember, EditObject) decodes and re-encodes through
// encoding/json: it runs off the hot path, where matching encoding/json's
// output (sorted keys) matters more than speed.
package jsonscan

// MaxDepth is encoding/json's nesting limit: deeper documents are invalid
// for it, so they are for the scanner too.
const MaxDepth = 10000

// IsSpace reports whether c is JSON whitespace.
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipSpace returns the index of the first non-space byte at or after i.
func SkipSpace(data []byte, i int) int {
	for i < len(data) && IsSpace(data[i]) {
		i++
	}
	return i
}

// Trim returns data without surrounding whitespace.
func Trim(data []byte) []byte {
	for len(data) > 0 && IsSpace(data[0]) {
		data = data[1:]
	}
	for len(data) > 0 && IsSpace(data[len(data)-1]) {
		data = data[:len(data)-1]
	}
	return data
}

// Value returns the one JSON value data holds, without surrounding
// whitespace, and whether data is exactly one valid value.
func Value(data []byte) ([]byte, bool) {
	start := SkipSpace(data, 0)
	end := Skip(data, start)
	if end < 0 || SkipSpace(data, end) != len(data) {
		return nil, false
	}
	return data[start:end], true
}

// Skip returns the index just past the JSON value that starts at data[i]
// (after optional whitespace), or -1 when there is no valid value there. It
// validates everything it passes over, as encoding/json would.
func Skip(data []byte, i int) int { return skip(data, i, 0) }

// SkipNested is Skip for a value that is already depth levels deep, so
// that the nesting limit counts from the document's root.
func SkipNested(data []byte, i, depth int) int { return skip(data, i, depth) }

// Valid reports whether data is exactly one valid JSON value with optional
// surrounding whitespace: json.Valid's answer, in one recursive-descent
// pass several times faster than encoding/json's state machine.
func Valid(data []byte) bool {
	end := skip(data, 0, 0)
	return end >= 0 && SkipSpace(data, end) == len(data)
}

func skip(data []byte, i, depth int) int {
	i = SkipSpace(data, i)
	if i >= len(data) {
		return -1
	}
	switch c := data[i]; c {
	case '{':
		if depth >= MaxDepth {
			return -1
		}
		i = SkipSpace(data, i+1)
		if i < len(data) && data[i] == '}' {
			return i + 1
		}
		for {
			if i >= len(data) || data[i] != '"' {
				return -1
			}
			if i = SkipString(data, i); i < 0 {
				return -1
			}
			i = SkipSpace(data, i)
			if i >= len(data) || data[i] != ':' {
				return -1
			}
			if i = skip(data, i+1, depth+1); i < 0 {
				return -1
			}
			var end bool
			if i, end = afterItem(data, i, '}'); end || i < 0 {
				return i
			}
			i = SkipSpace(data, i)
		}
	case '[':
		if depth >= MaxDepth {
			return -1
		}
		i = SkipSpace(data, i+1)
		if i < len(data) && data[i] == ']' {
			return i + 1
		}
		for {
			if i = skip(data, i, depth+1); i < 0 {
				return -1
			}
			var end bool
			if i, end = afterItem(data, i, ']'); end || i < 0 {
				return i
			}
		}
	case '"':
		return SkipString(data, i)
	case 't':
		return literal(data, i, "true")
	case 'f':
		return literal(data, i, "false")
	case 'n':
		return literal(data, i, "null")
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			return skipNumber(data, i)
		}
		return -1
	}
}

// afterItem steps over what follows a member or element ending at data[i]:
// the container's close (it returns the index past it and true), or a comma
// (the index past it and false); anything else is invalid (-1).
func afterItem(data []byte, i int, close byte) (int, bool) {
	i = SkipSpace(data, i)
	switch {
	case i >= len(data):
		return -1, false
	case data[i] == close:
		return i + 1, true
	case data[i] == ',':
		return i + 1, false
	}
	return -1, false
}

func literal(data []byte, i int, lit string) int {
	if len(data)-i >= len(lit) && string(data[i:i+len(lit)]) == lit {
		return i + len(lit)
	}
	return -1
}

// SkipString returns the index past the string starting at data[i] == '"'.
func SkipString(data []byte, i int) int {
	i++
	for i < len(data) {
		c := data[i]
		switch {
		case c == '"':
			return i + 1
		case c == '\\':
			if i+1 >= len(data) {
				return -1
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(data) {
					return -1
				}
				for _, h := range data[i+2 : i+6] {
					if !isHex(h) {
						return -1
					}
				}
				i += 6
			default:
				return -1
			}
		case c < 0x20:
			return -1
		default:
			i++
		}
	}
	return -1
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func skipNumber(data []byte, i int) int {
	if data[i] == '-' {
		i++
	}
	if i >= len(data) {
		return -1
	}
	switch {
	case data[i] == '0':
		i++
	case data[i] >= '1' && data[i] <= '9':
		i = skipDigits(data, i)
	default:
		return -1
	}
	if i < len(data) && data[i] == '.' {
		start := i + 1
		if i = skipDigits(data, start); i == start {
			return -1
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		start := i
		if i = skipDigits(data, i); i == start {
			return -1
		}
	}
	return i
}

// skipDigits returns the index of the first byte at or after i that is not
// a decimal digit.
func skipDigits(data []byte, i int) int {
	for i < len(data) && data[i] >= '0' && data[i] <= '9' {
		i++
	}
	return i
}
