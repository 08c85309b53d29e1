package schema_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/official"
	"github.com/mcpgen/mcpgen/schema"
)

// TestOfficialCanonicalDigests: every embedded official schema is
// recognised by its canonical digest.
func TestOfficialCanonicalDigests(t *testing.T) {
	seen := map[string]bool{}
	for _, rev := range official.Revisions() {
		data, err := official.Schema(rev)
		if err != nil {
			t.Fatal(err)
		}
		d, err := schema.CanonicalDigest(data)
		if err != nil {
			t.Fatal(err)
		}
		if r := schema.OfficialRevision(d); r != rev {
			t.Errorf("%s: canonical digest %s is recognised as %q (update its CanonicalSHA256 in schema/revisions.go)", rev, d, r)
		}
		if seen[d] {
			t.Errorf("%s: digest %s shared with another revision", rev, d)
		}
		seen[d] = true
	}
}

// reformatted are copies of an official schema that differ only in form.
func reformatted(t *testing.T, data []byte) map[string][]byte {
	t.Helper()
	var tabs bytes.Buffer
	if err := json.Indent(&tabs, data, "", "\t"); err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, data); err != nil {
		t.Fatal(err)
	}
	return map[string][]byte{
		"CRLF (git autocrlf)": bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n")),
		"re-indented":         tabs.Bytes(),
		"compact":             compact.Bytes(),
		"trailing blank line": append(append([]byte(nil), data...), "\n\n"...),
		"escaped slash":       bytes.ReplaceAll(data, []byte(`"#/$defs/`), []byte(`"#\/$defs\/`)),
	}
}

// TestRevisionRecognisedWhateverTheFormatting: a reformatted official
// schema in a directory that names no revision is still recognised.
func TestRevisionRecognisedWhateverTheFormatting(t *testing.T) {
	data, _ := official.Schema("2025-11-25")
	for name, b := range reformatted(t, data) {
		t.Run(name, func(t *testing.T) {
			if bytes.Equal(b, data) {
				t.Fatal("the copy is identical to the original: the case tests nothing")
			}
			m, err := schema.LoadBytes("vendor/mcp/schema.json", b, schema.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if m.Revision != "2025-11-25" {
				t.Errorf("revision %q, want 2025-11-25", m.Revision)
			}
		})
	}
}

func TestModifiedSchemaNotOfficial(t *testing.T) {
	data, _ := official.Schema("2025-11-25")
	changed := bytes.Replace(data, []byte(`"description": "`), []byte(`"description": "Edited. `), 1)
	if _, err := schema.LoadBytes("vendor/mcp/schema.json", changed, schema.Options{}); err == nil || !strings.Contains(err.Error(), "pass --revision") {
		t.Errorf("an edited schema in an undated directory: err = %v, want a request for --revision", err)
	}
	if m, err := schema.LoadBytes("vendor/mcp/schema.json", changed, schema.Options{Revision: "2025-06-18"}); err != nil || m.Revision != "2025-06-18" {
		t.Errorf("an edited schema takes the declared revision: %v", err)
	}
}

// TestRevisionContradictingContent: --revision R on an official schema of
// another revision is an error naming both; the matching one is fine.
func TestRevisionContradictingContent(t *testing.T) {
	data, _ := official.Schema("2025-06-18")
	crlf := bytes.ReplaceAll(data, []byte("\n"), []byte("\r\n"))
	_, err := schema.LoadBytes("schemas/2025-11-25/schema.json", crlf, schema.Options{Revision: "2025-11-25"})
	if err == nil || !strings.Contains(err.Error(), "2025-11-25") || !strings.Contains(err.Error(), "official schema of revision 2025-06-18") {
		t.Errorf("err = %v, want the contradiction named", err)
	}
	if m, err := schema.LoadBytes("x.json", crlf, schema.Options{Revision: "2025-06-18"}); err != nil || m.Revision != "2025-06-18" {
		t.Errorf("matching --revision: %v", err)
	}
	// The directory name is only a guess: the content wins.
	if m, err := schema.LoadBytes("schemas/2025-11-25/schema.json", crlf, schema.Options{}); err != nil || m.Revision != "2025-06-18" {
		t.Errorf("official content in a misnamed directory: revision %v, %v", m, err)
	}
}

func TestCanonicalDigest(t *testing.T) {
	a, _ := schema.CanonicalDigest([]byte(`{"b": [1, 2.50, "\u00e9<"], "a": {"y": null, "x": true}}`))
	b, _ := schema.CanonicalDigest([]byte("{\r\n\"a\":{\"x\":true,\"y\":null},\n\t\"b\":[1,2.50,\"é<\"]}"))
	c, _ := schema.CanonicalDigest([]byte(`{"a": {"x": true, "y": null}, "b": [1, 2.5, "é<"]}`))
	if a == "" || a != b {
		t.Errorf("formatting changed the digest: %s vs %s", a, b)
	}
	if a == c {
		t.Errorf("2.50 and 2.5 have one digest: numbers must keep their text")
	}
	if _, err := schema.CanonicalDigest([]byte(`{"a":`)); err == nil {
		t.Error("invalid JSON has a digest")
	}
}

// FuzzCanonicalDigest: any JSON document has the digest of its re-indented
// and compacted forms, and nothing panics.
func FuzzCanonicalDigest(f *testing.F) {
	for _, rev := range []string{"2024-11-05", "2026-07-28"} {
		data, _ := official.Schema(rev)
		f.Add(data[:min(len(data), 2000)])
	}
	for _, s := range []string{`{}`, `[]`, `"\u00e9\/<>&"`, `{"b":1,"a":[1.50,-0,1e3,{"z":null}]}`, `{"a":1,"a":2}`, `{`, `1 2`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := schema.CanonicalDigest(data)
		if err != nil {
			return
		}
		if !json.Valid(data) {
			t.Fatalf("invalid JSON %q has a digest", data)
		}
		var indented, compact bytes.Buffer
		json.Indent(&indented, data, "\r\n", "  ")
		json.Compact(&compact, data)
		for name, b := range map[string][]byte{"indented": indented.Bytes(), "compact": compact.Bytes()} {
			if d2, err := schema.CanonicalDigest(b); err != nil || d2 != d {
				t.Errorf("%s form of %q: digest %s, %v; want %s", name, data, d2, err, d)
			}
		}
	})
}
