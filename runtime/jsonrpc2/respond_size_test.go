package jsonrpc2

import (
	"encoding/json"
	"strings"
	"testing"
)

// A response is built in one slice of its own size, whatever the id: it may
// wait long for a slow reader and is charged to the in-flight budget by its
// length, so spare capacity would be memory held and not counted.
// (Rounding to the allocator's size classes comes on top and is not tested.)
func TestEncodeResponseExactSize(t *testing.T) {
	big := json.RawMessage(`"` + strings.Repeat("x", 100000) + `"`)
	for _, id := range []RequestID{Int64ID(7), StringID("0f8fad5b-d9cb-469f-a165-70867728950e"), StringID(strings.Repeat("k", 300)), StringID("q12")} {
		for _, result := range []any{big, nil} {
			msg := encodeResponse(id, result, nil)
			if !json.Valid(msg) {
				t.Fatalf("id %s: invalid JSON", id)
			}
			// Room is left for a string id's quotes and a nil result's {},
			// never more.
			if cap(msg) > len(msg)+4 {
				t.Errorf("id %s: %d bytes in %d of capacity", id, len(msg), cap(msg))
			}
		}
	}
	// One allocation: the message is never regrown (a nil result, answered
	// {}, is the common case of the cancellation benchmarks).
	if n := testing.AllocsPerRun(100, func() { encodeResponse(StringID("q12"), nil, nil) }); n != 1 {
		t.Errorf("%v allocations per response, want 1", n)
	}
}
