package session

import (
	"testing"
)

// mapModernResult in place writes what MapModernResult writes into a new
// slice, over the encoded result itself.
func TestMapModernResultInPlace(t *testing.T) {
	for _, c := range []struct {
		in        string
		cacheable bool
	}{
		{`{"content":[],"resultType":"complete"}`, false},
		{`{"resultType":"complete","content":[{"type":"text","text":"a"}],"isError":true}`, false},
		{`{"resultType":"complete"}`, false},
		{`{"tools":[],"cacheScope":"private","ttlMs":0,"resultType":"complete","nextCursor":"x"}`, true},
		{`{"tools":[],"cacheScope":"private","ttlMs":0,"resultType":"complete"}`, false},
		{`{"a":1}`, true},
		{`{"resultType":""}`, false},
		{`{"resultType":"input_required"}`, false},
	} {
		want, werr := MapModernResult([]byte(c.in), c.cacheable)
		buf := []byte(c.in)
		got, gerr := mapModernResult(buf, c.cacheable, true)
		if (werr == nil) != (gerr == nil) || string(got) != string(want) {
			t.Errorf("%s: in place %s, %v; MapModernResult %s, %v", c.in, got, gerr, want, werr)
		}
		if gerr == nil && len(got) > 0 && &got[0] != &buf[0] {
			t.Errorf("%s: not mapped in place", c.in)
		}
	}
}
