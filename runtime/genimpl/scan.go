package genimpl

// maxDepth is encoding/json's nesting limit: deeper documents are invalid
// for it, so they are for the scanner too.
const maxDepth = 10000

// isSpace reports whether c is JSON whitespace.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// skipSpace returns the index of the first non-space byte at or after i.
func skipSpace(data []byte, i int) int {
	for i < len(data) && isSpace(data[i]) {
		i++
	}
	return i
}

// Skip returns the index just past the JSON value that starts at data[i]
// (after optional whitespace), or -1 when there is no valid value there. It
// validates everything it passes over, as encoding/json would.
func Skip(data []byte, i int) int { return skip(data, i, 0) }

func skip(data []byte, i, depth int) int {
	i = skipSpace(data, i)
	if i >= len(data) {
		return -1
	}
	switch c := data[i]; c {
	case '{':
		if depth >= maxDepth {
			return -1
		}
		i = skipSpace(data, i+1)
		if i < len(data) && data[i] == '}' {
			return i + 1
		}
		for {
			if i >= len(data) || data[i] != '"' {
				return -1
			}
			if i = skipString(data, i); i < 0 {
				return -1
			}
			i = skipSpace(data, i)
			if i >= len(data) || data[i] != ':' {
				return -1
			}
			if i = skip(data, i+1, depth+1); i < 0 {
				return -1
			}
			i = skipSpace(data, i)
			if i >= len(data) {
				return -1
			}
			if data[i] == '}' {
				return i + 1
			}
			if data[i] != ',' {
				return -1
			}
			i = skipSpace(data, i+1)
		}
	case '[':
		if depth >= maxDepth {
			return -1
		}
		i = skipSpace(data, i+1)
		if i < len(data) && data[i] == ']' {
			return i + 1
		}
		for {
			if i = skip(data, i, depth+1); i < 0 {
				return -1
			}
			i = skipSpace(data, i)
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
		return skipString(data, i)
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

func literal(data []byte, i int, lit string) int {
	if len(data)-i >= len(lit) && string(data[i:i+len(lit)]) == lit {
		return i + len(lit)
	}
	return -1
}

// skipString returns the index past the string starting at data[i] == '"'.
func skipString(data []byte, i int) int {
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

// Value returns the one JSON value data holds, without surrounding
// whitespace, and whether data is exactly one valid value.
func Value(data []byte) ([]byte, bool) {
	start := skipSpace(data, 0)
	end := Skip(data, start)
	if end < 0 || skipSpace(data, end) != len(data) {
		return nil, false
	}
	return data[start:end], true
}

// Object iterates over the members of one JSON object, validating every
// byte it passes over. Start with NewObject, then call Next until it returns
// false; Err tells a malformed object from the end.
type Object struct {
	data  []byte
	i     int
	state uint8 // 0 before the first member, 1 between members, 2 done, 3 bad
	// Key is the current member's key between the quotes, still escaped.
	Key []byte
	// Value is the current member's value, without surrounding whitespace.
	Value []byte
}

// NewObject starts iterating over the object at data[i]; a value that is
// not an object makes the first Next return false and Bad true.
func NewObject(data []byte, i int) Object {
	i = skipSpace(data, i)
	o := Object{data: data, i: i}
	if i >= len(data) || data[i] != '{' {
		o.state = 3
	}
	return o
}

// Next moves to the next member.
func (o *Object) Next() bool {
	data, i := o.data, o.i
	switch o.state {
	case 0:
		i = skipSpace(data, i+1)
		if i < len(data) && data[i] == '}' {
			o.i, o.state = i+1, 2
			return false
		}
	case 1:
		i = skipSpace(data, i)
		if i >= len(data) {
			o.state = 3
			return false
		}
		if data[i] == '}' {
			o.i, o.state = i+1, 2
			return false
		}
		if data[i] != ',' {
			o.state = 3
			return false
		}
		i = skipSpace(data, i+1)
	default:
		return false
	}
	if i >= len(data) || data[i] != '"' {
		o.state = 3
		return false
	}
	ks := i
	if i = skipString(data, i); i < 0 {
		o.state = 3
		return false
	}
	o.Key = data[ks+1 : i-1]
	i = skipSpace(data, i)
	if i >= len(data) || data[i] != ':' {
		o.state = 3
		return false
	}
	vs := skipSpace(data, i+1)
	if i = skip(data, vs, 1); i < 0 {
		o.state = 3
		return false
	}
	o.Value = data[vs:i]
	o.i, o.state = i, 1
	return true
}

// Bad reports whether iteration stopped on malformed JSON.
func (o *Object) Bad() bool { return o.state == 3 }

// End is the index just past the object once Next has returned false.
func (o *Object) End() int { return o.i }

// Array iterates over the items of one JSON array like Object.
type Array struct {
	data  []byte
	i     int
	state uint8
	// Value is the current item, without surrounding whitespace.
	Value []byte
}

// NewArray starts iterating over the array at data[i].
func NewArray(data []byte, i int) Array {
	i = skipSpace(data, i)
	a := Array{data: data, i: i}
	if i >= len(data) || data[i] != '[' {
		a.state = 3
	}
	return a
}

// Next moves to the next item.
func (a *Array) Next() bool {
	data, i := a.data, a.i
	switch a.state {
	case 0:
		i = skipSpace(data, i+1)
		if i < len(data) && data[i] == ']' {
			a.i, a.state = i+1, 2
			return false
		}
	case 1:
		i = skipSpace(data, i)
		if i >= len(data) {
			a.state = 3
			return false
		}
		if data[i] == ']' {
			a.i, a.state = i+1, 2
			return false
		}
		if data[i] != ',' {
			a.state = 3
			return false
		}
		i++
	default:
		return false
	}
	vs := skipSpace(data, i)
	if i = skip(data, vs, 1); i < 0 {
		a.state = 3
		return false
	}
	a.Value = data[vs:i]
	a.i, a.state = i, 1
	return true
}

// Bad reports whether iteration stopped on malformed JSON.
func (a *Array) Bad() bool { return a.state == 3 }
