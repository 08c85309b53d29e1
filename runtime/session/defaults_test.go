package session

import (
	"encoding/json"
	"testing"
)

func TestWithModernDefaults(t *testing.T) {
	for _, c := range []struct {
		in        any
		cacheable bool
		want      string
	}{
		{nil, false, `{"resultType":"complete"}`},
		{nil, true, `{"resultType":"complete","cacheScope":"private","ttlMs":0}`},
		{json.RawMessage(`null`), false, `{"resultType":"complete"}`},
		{json.RawMessage(`{}`), false, `{"resultType":"complete"}`},
		{json.RawMessage(` { } `), true, ` {"resultType":"complete","cacheScope":"private","ttlMs":0 } `},
		{json.RawMessage(`{"content":[{"resultType":""}]}`), false, `{"resultType":"complete","content":[{"resultType":""}]}`},
		{json.RawMessage(`{"a":1,"resultType":"","b":2}`), false, `{"a":1,"resultType":"complete","b":2}`},
		{json.RawMessage(`{"resultType":"input_required"}`), false, `{"resultType":"input_required"}`},
		{json.RawMessage(`{"cacheScope":"","resultType":null,"tools":[],"ttlMs":0}`), true, `{"cacheScope":"private","resultType":"complete","tools":[],"ttlMs":0}`},
		{json.RawMessage(`{"cacheScope":"public","resultType":"complete","ttlMs":60000}`), true, `{"cacheScope":"public","resultType":"complete","ttlMs":60000}`},
		{json.RawMessage(`{"ttlMs":null,"x":{}}`), true, `{"resultType":"complete","cacheScope":"private","ttlMs":0,"x":{}}`},
		{json.RawMessage(`[1,2]`), true, `[1,2]`},
		{map[string]any{"tools": []int{}}, true, `{"resultType":"complete","cacheScope":"private","ttlMs":0,"tools":[]}`},
	} {
		got, err := withModernDefaults(c.in, c.cacheable)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		b, _ := got.(json.RawMessage)
		if string(b) != c.want {
			t.Errorf("%s (cacheable %v): got %s, want %s", c.in, c.cacheable, b, c.want)
		}
		if !json.Valid(b) {
			t.Errorf("%s: invalid JSON %s", c.in, b)
		}
	}
}
