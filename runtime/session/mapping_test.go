package session_test

import (
	"encoding/json"
	"testing"

	"github.com/mcpgen/mcpgen/generated/mcp20241105"
	"github.com/mcpgen/mcpgen/generated/mcp20250326"
	"github.com/mcpgen/mcpgen/generated/mcp20250618"
	"github.com/mcpgen/mcpgen/generated/mcp20251125"
	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
	"github.com/mcpgen/mcpgen/internal/testsupport/modeltest"
	"github.com/mcpgen/mcpgen/runtime/session"
	"github.com/mcpgen/mcpgen/schema"
)

var legacyDecoders = map[string]modeltest.Decoder{
	"2024-11-05": mcp20241105.DecodeDefinition,
	"2025-03-26": mcp20250326.DecodeDefinition,
	"2025-06-18": mcp20250618.DecodeDefinition,
	"2025-11-25": mcp20251125.DecodeDefinition,
}

// sharedRequests are the client-to-server requests of both revisions.
func sharedRequests(legacy, modern *schema.Model) []*schema.Method {
	have := map[string]bool{}
	for _, me := range modern.Methods {
		if me.Kind == schema.Request {
			have[me.Name] = true
		}
	}
	var out []*schema.Method
	for _, me := range legacy.Methods {
		if me.Kind == schema.Request && have[me.Name] && slicesHas(me.Directions, schema.ClientToServer) {
			out = append(out, me)
		}
	}
	return out
}

func slicesHas(ds []schema.Direction, d schema.Direction) bool {
	for _, x := range ds {
		if x == d {
			return true
		}
	}
	return false
}

func modernMethod(m *schema.Model, name string) *schema.Method {
	for _, me := range m.Methods {
		if me.Name == name {
			return me
		}
	}
	return nil
}

// TestLegacyMappingExact: for every request both eras share, and every
// legacy revision, maximal and minimal instances of the legacy request
// (every union branch), mapped onto the modern shape, decode into the
// newest package's params type and, encoded and unmapped, equal the
// original; and every legacy result of the method, as a modern result
// (resultType added) decodes into the newest result type and maps back to
// the original. So a handler written against the newest package sees, and
// answers, exactly what a legacy client sent and expects.
func TestLegacyMappingExact(t *testing.T) {
	modern, modernC := modeltest.Load(t, "2026-07-28")
	lc := func(v string) session.LegacyContext {
		return session.LegacyContext{Version: v, ClientInfo: json.RawMessage(`{"name":"c","version":"1"}`),
			ClientCapabilities: json.RawMessage(`{"roots":{}}`), LogLevel: "info"}
	}
	for rev, decodeLegacy := range legacyDecoders {
		legacy, legacyC := modeltest.Load(t, rev)
		shared := sharedRequests(legacy, modern)
		if len(shared) < 8 {
			t.Fatalf("%s: only %d shared requests", rev, len(shared))
		}
		for _, me := range shared {
			mm := modernMethod(modern, me.Name)
			checked := 0
			for variant := 0; variant < modeltest.MaxBranches(legacy); variant++ {
				for _, build := range []func(*schema.Model, string, int) ([]byte, error){modeltest.Instance, modeltest.MinimalInstance} {
					req, err := build(legacy, me.Definition, variant)
					if err != nil {
						t.Fatalf("%s %s: %v", rev, me.Name, err)
					}
					var msg map[string]json.RawMessage
					_ = json.Unmarshal(req, &msg)
					params := msg["params"]
					hadMeta := len(params) > 0 && memberOf(params, "_meta") != nil
					mapped, err := session.MapLegacyParams(params, lc(rev))
					if err != nil {
						t.Fatalf("%s %s: map: %v", rev, me.Name, err)
					}
					msg["params"] = mapped
					// Before 2025-11-25 the request definitions have no
					// envelope; the modern ones require it.
					msg["jsonrpc"], msg["id"] = json.RawMessage(`"2.0"`), json.RawMessage(`1`)
					modernReq, _ := json.Marshal(msg)
					again, err := modeltest.RoundTrip(modernC, mcp.DecodeDefinition, mm.Definition, modernReq)
					if err != nil {
						t.Errorf("%s %s: the mapped request does not go through %s: %v\n%s", rev, me.Name, mm.Definition, err, modernReq)
						continue
					}
					var back map[string]json.RawMessage
					_ = json.Unmarshal(again, &back)
					unmapped, err := session.UnmapLegacyParams(back["params"], hadMeta)
					if err != nil {
						t.Fatal(err)
					}
					want := params
					if len(want) == 0 {
						want = json.RawMessage(`{}`)
					}
					if err := modeltest.Equal(want, unmapped); err != nil {
						t.Errorf("%s %s params: %v\n got %s\nwant %s", rev, me.Name, err, unmapped, want)
					}
					checked++
				}
				// The result, legacy → modern → legacy.
				for _, build := range []func(*schema.Model, string, int) ([]byte, error){modeltest.Instance, modeltest.MinimalInstance} {
					res, err := build(legacy, me.Result, variant)
					if err != nil {
						t.Fatalf("%s %s result: %v", rev, me.Name, err)
					}
					asModern, err := session.UnmapModernResult(res, mcp.Revision().CacheableResults[me.Name])
					if err != nil {
						t.Fatal(err)
					}
					again, err := modeltest.RoundTrip(modernC, mcp.DecodeDefinition, mm.Result, asModern)
					if err != nil {
						t.Errorf("%s %s: the legacy result does not go through %s: %v\n%s", rev, me.Name, mm.Result, err, asModern)
						continue
					}
					legacyAgain, err := session.MapModernResult(again, mcp.Revision().CacheableResults[me.Name])
					if err != nil {
						t.Fatal(err)
					}
					if _, err := modeltest.RoundTrip(legacyC, decodeLegacy, me.Result, legacyAgain); err != nil {
						t.Errorf("%s %s: mapped back, not a legacy %s: %v", rev, me.Name, me.Result, err)
					}
					if err := modeltest.Equal(res, legacyAgain); err != nil {
						t.Errorf("%s %s result: %v\n got %s\nwant %s", rev, me.Name, err, legacyAgain, res)
					}
				}
			}
			if checked == 0 {
				t.Errorf("%s %s: nothing checked", rev, me.Name)
			}
		}
	}
}

func memberOf(obj json.RawMessage, key string) json.RawMessage {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(obj, &m)
	return m[key]
}
