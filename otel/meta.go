package mcpotel

import (
	"bytes"
	"context"
	"encoding/json"

	"go.opentelemetry.io/otel/propagation"
)

// metaOf returns the string members of params._meta (SEP-414 puts the
// trace context there as strings); nil when params has no _meta object.
func metaOf(params json.RawMessage) map[string]string {
	if len(params) == 0 || !bytes.Contains(params, []byte(`"_meta"`)) {
		return nil // the common case, without decoding the params
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.Meta) == 0 {
		return nil
	}
	out := make(map[string]string, 2)
	for _, k := range [...]string{metaTraceparent, metaTracestate, "baggage"} {
		var s string
		if v, ok := p.Meta[k]; ok && json.Unmarshal(v, &s) == nil {
			out[k] = s
		}
	}
	return out
}

// metaCarrier adapts _meta's string members to the propagator.
type metaCarrier map[string]string

var _ propagation.TextMapCarrier = metaCarrier(nil)

// Get returns the member key.
func (c metaCarrier) Get(key string) string { return c[key] }

// Set sets the member key.
func (c metaCarrier) Set(key, value string) { c[key] = value }

// Keys lists the members.
func (c metaCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}

// inject returns raw (the params, encoded) with the span context of ctx in
// its _meta: the members the propagator writes, except those the caller
// set already. It reports false, leaving the params as they were, when
// there is nothing to inject or the params are not a JSON object (or
// null, which becomes one: a request's params may always carry _meta).
func (in *inst) inject(ctx context.Context, raw json.RawMessage) (json.RawMessage, bool) {
	add := metaCarrier{}
	in.prop.Inject(ctx, add)
	if len(add) == 0 {
		return nil, false
	}
	var obj map[string]json.RawMessage
	if t := bytes.TrimSpace(raw); len(t) == 0 || string(t) == "null" {
		obj = map[string]json.RawMessage{}
	} else if t[0] != '{' || json.Unmarshal(t, &obj) != nil {
		return nil, false
	}
	var meta map[string]json.RawMessage
	if m, ok := obj["_meta"]; ok && string(bytes.TrimSpace(m)) != "null" {
		if json.Unmarshal(m, &meta) != nil {
			return nil, false // not an object: the caller's to explain
		}
	}
	if meta == nil {
		meta = map[string]json.RawMessage{}
	}
	for k, v := range add {
		if _, ok := meta[k]; !ok {
			b, _ := json.Marshal(v)
			meta[k] = b
		}
	}
	mb, err := json.Marshal(meta)
	if err != nil {
		return nil, false
	}
	obj["_meta"] = mb
	out, err := json.Marshal(obj)
	if err != nil {
		return nil, false
	}
	return out, true
}
