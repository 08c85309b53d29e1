package jsonscan

// The validating iterators: they check every byte they pass over, so they
// are what decoders of untrusted input (the generated codec, through
// runtime/genimpl) walk objects and arrays with.

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
	i = SkipSpace(data, i)
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
		i = SkipSpace(data, i+1)
		if i < len(data) && data[i] == '}' {
			o.i, o.state = i+1, 2
			return false
		}
	case 1:
		i = SkipSpace(data, i)
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
		i = SkipSpace(data, i+1)
	default:
		return false
	}
	if i >= len(data) || data[i] != '"' {
		o.state = 3
		return false
	}
	ks := i
	if i = SkipString(data, i); i < 0 {
		o.state = 3
		return false
	}
	o.Key = data[ks+1 : i-1]
	i = SkipSpace(data, i)
	if i >= len(data) || data[i] != ':' {
		o.state = 3
		return false
	}
	vs := SkipSpace(data, i+1)
	if i = SkipNested(data, vs, 1); i < 0 {
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
	i = SkipSpace(data, i)
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
		i = SkipSpace(data, i+1)
		if i < len(data) && data[i] == ']' {
			a.i, a.state = i+1, 2
			return false
		}
	case 1:
		i = SkipSpace(data, i)
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
	vs := SkipSpace(data, i)
	if i = SkipNested(data, vs, 1); i < 0 {
		a.state = 3
		return false
	}
	a.Value = data[vs:i]
	a.i, a.state = i, 1
	return true
}

// Bad reports whether iteration stopped on malformed JSON.
func (a *Array) Bad() bool { return a.state == 3 }

// End is the index just past the array once Next has returned false.
func (a *Array) End() int { return a.i }
