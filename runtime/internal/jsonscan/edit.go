package jsonscan

import (
	"encoding/json"
	"errors"
)

// ErrNotObject is returned when a value to edit members of is not a JSON
// object.
var ErrNotObject = errors.New("not a JSON object")

// Members decodes the JSON object obj into its members. Absent, empty or
// null obj is the empty object (how the protocol treats absent params and
// _meta); anything else that is not an object is an error.
func Members(obj []byte) (map[string]json.RawMessage, error) {
	m := map[string]json.RawMessage{}
	obj = Trim(obj)
	if len(obj) == 0 || string(obj) == "null" {
		return m, nil
	}
	if obj[0] != '{' {
		return nil, ErrNotObject
	}
	if err := json.Unmarshal(obj, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// WithMember returns the object obj with member key set to v, or removed
// when v is nil. Absent or null obj is the empty object. The result has
// encoding/json's member order (sorted keys).
func WithMember(obj []byte, key string, v []byte) (json.RawMessage, error) {
	m, err := Members(obj)
	if err != nil {
		return nil, err
	}
	if v == nil {
		delete(m, key)
	} else {
		m[key] = v
	}
	return json.Marshal(m)
}

// EditObject returns the object obj with its member key, itself an object
// (absent or null counts as empty), replaced by what edit makes of its
// members; when edit returns false the member is removed instead. This is
// how _meta is edited: adding a progress token, a related task, the
// modern era's per-request members. The result has encoding/json's member
// order (sorted keys).
func EditObject(obj []byte, key string, edit func(members map[string]json.RawMessage) (keep bool)) (json.RawMessage, error) {
	m, err := Members(obj)
	if err != nil {
		return nil, err
	}
	inner, err := Members(m[key])
	if err != nil {
		return nil, err
	}
	if edit(inner) {
		b, err := json.Marshal(inner)
		if err != nil {
			return nil, err
		}
		m[key] = b
	} else {
		delete(m, key)
	}
	return json.Marshal(m)
}
