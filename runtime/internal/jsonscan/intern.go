package jsonscan

import (
	"sync"
	"sync/atomic"
)

// Interner shares the strings that repeat from message to message (object
// keys, tool and client names) so one seen before costs no allocation. Its
// table is read without locking: it is replaced, never changed. It stops
// growing at MaxInterned strings of at most MaxInternedLen bytes, so it
// never holds more than a few tens of kilobytes, and strings an unusual or
// hostile peer sends once it is full cost what they always did. The zero
// Interner is ready to use.
type Interner struct {
	table atomic.Pointer[map[string]string]
	mu    sync.Mutex
	full  atomic.Bool
}

// The bounds of an Interner's table.
const (
	MaxInterned    = 256
	MaxInternedLen = 64
)

// String is string(b), shared when the table has it (or takes it).
func (in *Interner) String(b []byte) string {
	if m := in.table.Load(); m != nil {
		if s, ok := (*m)[string(b)]; ok { // no allocation for the lookup
			return s
		}
	}
	s := string(b)
	if len(b) > MaxInternedLen || in.full.Load() {
		return s
	}
	in.mu.Lock()
	defer in.mu.Unlock()
	old := in.table.Load()
	var n map[string]string
	if old == nil {
		n = map[string]string{}
	} else {
		if t, ok := (*old)[s]; ok {
			return t
		}
		if len(*old) >= MaxInterned {
			in.full.Store(true)
			return s
		}
		n = make(map[string]string, len(*old)+1)
		for a, b := range *old {
			n[a] = b
		}
	}
	n[s] = s
	in.table.Store(&n)
	return s
}

// Len is the number of strings in the table.
func (in *Interner) Len() int {
	if m := in.table.Load(); m != nil {
		return len(*m)
	}
	return 0
}
