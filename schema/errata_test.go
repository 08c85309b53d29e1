package schema

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrataStillApply: every erratum's pointer still holds, in the
// published file, the value the erratum corrects. When upstream fixes the
// schema this fails (and Load refuses the file), so the erratum is removed
// or revisited instead of lingering.
func TestErrataStillApply(t *testing.T) {
	if len(errata) == 0 {
		t.Skip("no errata")
	}
	for _, e := range errata {
		data, err := os.ReadFile(filepath.Join(officialSchemas, e.Revision, "schema.json"))
		if err != nil {
			t.Fatal(err)
		}
		obj, err := parseRoot(e.Revision, data)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.apply(obj); err != nil {
			t.Errorf("%s: %v", e, err)
		}
		if e.Spec == "" || e.Why == "" || !strings.Contains(e.Spec, ".mdx:") {
			t.Errorf("%s: an erratum names the spec page and line it follows, and why", e)
		}
		if !json.Valid([]byte(e.Patched)) {
			t.Errorf("%s: patched value is not JSON", e)
		}
	}
}

// TestErrataInModel: loading an official schema applies its errata and
// says so; the file's digest stays the published one; the corrected node
// is what the Model describes.
func TestErrataInModel(t *testing.T) {
	for _, rev := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
		m := load(t, rev)
		if len(m.Errata) != len(Errata(rev)) || len(m.Errata) == 0 {
			t.Fatalf("%s: errata applied %v, want %v", rev, m.Errata, Errata(rev))
		}
		data, err := os.ReadFile(filepath.Join(officialSchemas, rev, "schema.json"))
		if err != nil {
			t.Fatal(err)
		}
		if sum := sha256.Sum256(data); m.SHA256 != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: SHA256 %s is not the published file's", rev, m.SHA256)
		}
		var u *Union
		for _, x := range m.Unions {
			if strings.HasPrefix(x.Pointer, "#/"+m.DefsKey+"/ElicitResult/properties/content/additionalProperties") {
				u = x
			}
		}
		if u == nil {
			t.Fatalf("%s: no ElicitResult content union", rev)
		}
		if u.Strategy != StrategyJSONKind || !strings.Contains(strings.Join(u.Kinds, ","), "integer,number") {
			t.Errorf("%s: %s kinds %v, want integer and number branches by JSON kind", rev, u.Strategy, u.Kinds)
		}
	}
	for _, rev := range []string{"2024-11-05", "2025-03-26"} {
		if m := load(t, rev); len(m.Errata) != 0 {
			t.Errorf("%s: errata %v", rev, m.Errata)
		}
	}
}

// TestErrataOnlyForOfficial: a schema that is not the official one (here a
// copy with one description changed) is read as written, even under an
// official revision's name.
func TestErrataOnlyForOfficial(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(officialSchemas, "2025-11-25", "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), `"The submitted form data`, `"Edited: the submitted form data`, 1)
	m, err := LoadBytes("edited/2025-11-25/schema.json", []byte(edited), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Errata) != 0 {
		t.Errorf("errata applied to a non-official schema: %v", m.Errata)
	}
}

// TestCompileAppliesErrata: the jsonschema/v5 validator (mcpgen validate)
// accepts a non-integer number where the erratum allows one, and still
// refuses what neither allows.
func TestCompileAppliesErrata(t *testing.T) {
	for _, rev := range []string{"2025-06-18", "2025-11-25", "2026-07-28"} {
		path := filepath.Join(officialSchemas, rev, "schema.json")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		c, err := Compile(path, data)
		if err != nil {
			t.Fatal(err)
		}
		s, err := c.Definition("ElicitResult")
		if err != nil {
			t.Fatal(err)
		}
		result := `{"action":"accept","content":{"score":95.5,"n":3,"ok":true}}`
		if rev == "2026-07-28" {
			result = `{"resultType":"complete","action":"accept","content":{"score":95.5,"n":3,"ok":true}}`
		}
		var v any
		if err := json.Unmarshal([]byte(result), &v); err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(v); err != nil {
			t.Errorf("%s: %s refused: %v", rev, result, err)
		}
		var bad any
		_ = json.Unmarshal([]byte(`{"action":"accept","content":{"x":{"nested":1}}}`), &bad)
		if err := s.Validate(bad); err == nil {
			t.Errorf("%s: an object value was accepted", rev)
		}
	}
}
