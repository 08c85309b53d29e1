package modeltest

import (
	"encoding/json"
	"math/rand"
	"sort"
)

// Mutations returns n deterministic random mutations of the JSON document
// data (seeded by seed): a member deleted or added, a value replaced by
// null, by a value of another JSON kind, by 2.0 or by an empty object or
// array. Some are still valid, most are not; a differential test decodes
// the valid ones.
func Mutations(data []byte, seed int64, n int) [][]byte {
	r := rand.New(rand.NewSource(seed))
	var out [][]byte
	for i := 0; i < n; i++ {
		v, err := decodeAny(data)
		if err != nil {
			return nil
		}
		var nodes []*slot
		collect(&slot{get: func() any { return v }, set: func(x any) { v = x }}, &nodes)
		s := nodes[r.Intn(len(nodes))]
		switch k := r.Intn(8); k {
		case 0:
			if s.del != nil {
				s.del()
			} else {
				s.set(nil)
			}
		case 1:
			s.set(nil)
		case 2:
			s.set("mutated")
		case 3:
			s.set(json.Number("2.0"))
		case 4:
			s.set(true)
		case 5:
			s.set(map[string]any{})
		case 6:
			s.set([]any{})
		case 7:
			if m, ok := s.get().(map[string]any); ok {
				m["zz-added"] = json.Number("1")
			} else {
				s.set(json.Number("-3"))
			}
		}
		b, err := json.Marshal(v)
		if err == nil {
			out = append(out, b)
		}
	}
	return out
}

type slot struct {
	get func() any
	set func(any)
	del func() // nil for the root and array items
}

func collect(s *slot, out *[]*slot) {
	*out = append(*out, s)
	switch v := s.get().(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			collect(&slot{
				get: func() any { return v[k] },
				set: func(x any) { v[k] = x },
				del: func() { delete(v, k) },
			}, out)
		}
	case []any:
		for i := range v {
			collect(&slot{
				get: func() any { return v[i] },
				set: func(x any) { v[i] = x },
			}, out)
		}
	}
}
