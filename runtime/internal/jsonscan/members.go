package jsonscan

import "encoding/json"

// EachMember calls f with the raw key (between the quotes, still escaped)
// and the value (without surrounding whitespace) of each member of the
// object obj, in order, until f returns false. obj must be valid JSON (the
// decoder validates each message once, then walks it with this without
// checking again); on anything else EachMember stops early, without
// panicking, and what it reported so far means nothing.
func EachMember(obj []byte, f func(key, val []byte) bool) {
	// One loop with nothing to call but f: this runs for every message
	// the peer decodes.
	i := SkipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return
	}
	i = SkipSpace(obj, i+1)
	for i < len(obj) && obj[i] == '"' {
		kEnd := skipTrustedString(obj, i)
		if kEnd < 0 {
			return
		}
		k := obj[i+1 : kEnd-1]
		i = SkipSpace(obj, kEnd)
		if i >= len(obj) || obj[i] != ':' {
			return
		}
		i = SkipSpace(obj, i+1)
		vEnd := SkipTrusted(obj, i)
		if vEnd <= i || !f(k, obj[i:vEnd:vEnd]) {
			return
		}
		i = SkipSpace(obj, vEnd)
		if i >= len(obj) || obj[i] != ',' {
			return
		}
		i = SkipSpace(obj, i+1)
	}
}

// Member returns the value of the member key of the valid JSON object obj
// (the last one when the key repeats, as encoding/json keeps), or nil when
// obj has no such member or is not an object. Escaped keys are compared
// decoded, as encoding/json compares them.
func Member(obj []byte, key string) []byte {
	var found []byte
	EachMember(obj, func(k, v []byte) bool {
		if string(k) == key || (!plainKey(k) && escapedKeyIs(k, key)) {
			found = v
		}
		return true
	})
	return found
}

// KeyIs reports whether the raw (still escaped) member key k, as EachMember
// reports it, decodes to key.
func KeyIs(k []byte, key string) bool {
	return string(k) == key || (!plainKey(k) && escapedKeyIs(k, key))
}

// plainKey reports whether k reads as itself: no escape, nothing but
// ASCII. Almost every key is, so the decoding is only paid for the rare
// one that is not.
func plainKey(k []byte) bool {
	for _, c := range k {
		if c == '\\' || c >= 0x80 {
			return false
		}
	}
	return true
}

// escapedKeyIs reports whether k, which holds an escape or non-ASCII bytes
// (which encoding/json reads as U+FFFD when they are not UTF-8), decodes to
// key.
func escapedKeyIs(k []byte, key string) bool {
	var s string
	q := make([]byte, 0, len(k)+2)
	q = append(append(append(q, '"'), k...), '"')
	return json.Unmarshal(q, &s) == nil && s == key
}

// skipTrustedString returns the index just past the string literal at
// data[i] == '"', or -1 when it does not end.
func skipTrustedString(data []byte, i int) int {
	for j := i + 1; j < len(data); j++ {
		switch data[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// SkipTrusted returns the index just past the JSON value at data[i] of
// input that was validated already (by Skip, or by DecodeMessage): it counts
// brackets and steps over strings, leaving the checking to whoever
// validated data. On input that was not valid it returns len(data) rather
// than running past it.
func SkipTrusted(data []byte, i int) int {
	if i >= len(data) {
		return i
	}
	switch data[i] {
	case '"':
		if j := skipTrustedString(data, i); j >= 0 {
			return j
		}
		return len(data)
	case '{', '[':
		depth := 0
		for j := i; j < len(data); j++ {
			switch data[j] {
			case '"':
				k := skipTrustedString(data, j)
				if k < 0 {
					return len(data)
				}
				j = k - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return len(data)
	}
	j := i
	for j < len(data) {
		switch data[j] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return j
		}
		j++
	}
	return j
}
