package runtime

// validJSON reports whether data is exactly one valid JSON value (with
// optional surrounding whitespace): json.Valid's answer, in one
// recursive-descent pass that is several times faster than encoding/json's
// byte-at-a-time state machine. Every message is checked once, before
// DecodeMessage trusts its structure; the check was 4-5 % of a round trip.
// It is a copy of runtime/genimpl's scanner (genimpl imports this package,
// so it cannot be shared from there); FuzzValidJSON holds both to
// json.Valid.
func validJSON(data []byte) bool {
	end := vSkip(data, 0, 0)
	return end >= 0 && skipWS(data, end) == len(data)
}

// vMaxDepth is encoding/json's nesting limit: deeper documents are invalid
// for it, so they are here too.
const vMaxDepth = 10000

func vSkip(data []byte, i, depth int) int {
	i = skipWS(data, i)
	if i >= len(data) {
		return -1
	}
	switch c := data[i]; c {
	case '{':
		if depth >= vMaxDepth {
			return -1
		}
		i = skipWS(data, i+1)
		if i < len(data) && data[i] == '}' {
			return i + 1
		}
		for {
			if i >= len(data) || data[i] != '"' {
				return -1
			}
			if i = vString(data, i); i < 0 {
				return -1
			}
			i = skipWS(data, i)
			if i >= len(data) || data[i] != ':' {
				return -1
			}
			if i = vSkip(data, i+1, depth+1); i < 0 {
				return -1
			}
			i = skipWS(data, i)
			if i >= len(data) {
				return -1
			}
			if data[i] == '}' {
				return i + 1
			}
			if data[i] != ',' {
				return -1
			}
			i = skipWS(data, i+1)
		}
	case '[':
		if depth >= vMaxDepth {
			return -1
		}
		i = skipWS(data, i+1)
		if i < len(data) && data[i] == ']' {
			return i + 1
		}
		for {
			if i = vSkip(data, i, depth+1); i < 0 {
				return -1
			}
			i = skipWS(data, i)
			if i >= len(data) {
				return -1
			}
			if data[i] == ']' {
				return i + 1
			}
			if data[i] != ',' {
				return -1
			}
			i++
		}
	case '"':
		return vString(data, i)
	case 't':
		return vLiteral(data, i, "true")
	case 'f':
		return vLiteral(data, i, "false")
	case 'n':
		return vLiteral(data, i, "null")
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			return vNumber(data, i)
		}
		return -1
	}
}

func vLiteral(data []byte, i int, lit string) int {
	if len(data)-i >= len(lit) && string(data[i:i+len(lit)]) == lit {
		return i + len(lit)
	}
	return -1
}

// skipString returns the index past the string starting at data[i] == '"'.
func vString(data []byte, i int) int {
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
					if !vIsHex(h) {
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

func vIsHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func vNumber(data []byte, i int) int {
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
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
	default:
		return -1
	}
	if i < len(data) && data[i] == '.' {
		i++
		start := i
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
		if i == start {
			return -1
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		start := i
		for i < len(data) && data[i] >= '0' && data[i] <= '9' {
			i++
		}
		if i == start {
			return -1
		}
	}
	return i
}
