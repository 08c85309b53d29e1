package official

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"slices"
	"strings"
	"testing"
)

// TestFilesUnmodified pins the embedded schemas to the bytes published at
// the commit README.md names: a re-indented or hand-edited copy fails here.
func TestFilesUnmodified(t *testing.T) {
	want := map[string]string{
		"2024-11-05": "61cea2392d4f284092d09bc84b9ac488c0d5618ac2b38a56942fc5b99fd960ce",
		"2025-03-26": "e720669548c8100a4282c49e580efd6ddf7f28899ea786fc8db251dbdb356131",
		"2025-06-18": "af845e7e5b9d27107d1690f0936022546177a1403e63ffb11470135b296a2e01",
		"2025-11-25": "268a5f82ba70fd7e4b6dc4aa1e64f116f74b4d0edcb69dc046829c79dd4e97e7",
		"2026-07-28": "ef70b61f99b6d2e5e3b46863822eab08dff6a45bedc7a08914e0e5b133f40203",
	}
	var revs []string
	for rev := range want {
		revs = append(revs, rev)
	}
	slices.Sort(revs)
	if got := Revisions(); !slices.Equal(got, revs) {
		t.Fatalf("Revisions() = %v, want %v", got, revs)
	}
	if got := Latest(); got != "2026-07-28" {
		t.Errorf("Latest() = %q, want 2026-07-28", got)
	}
	for _, rev := range revs {
		data, err := Schema(rev)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != want[rev] {
			t.Errorf("%s: sha256 %s, want %s", rev, got, want[rev])
		}
	}
}

func TestSchemaUnknownRevision(t *testing.T) {
	for _, rev := range []string{"", "2025-11-26", "draft", "../2025-11-25", "2025-11-25/schema.json"} {
		if _, err := Schema(rev); err == nil || !strings.Contains(err.Error(), "2025-11-25") {
			t.Errorf("Schema(%q) = %v, want an error listing the embedded revisions", rev, err)
		}
	}
}

// TestExamples checks that all 129 example instances are embedded, one
// folder per definition.
func TestExamples(t *testing.T) {
	n := 0
	err := fs.WalkDir(Examples(), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if strings.Count(path, "/") != 1 || !strings.HasSuffix(path, ".json") {
			t.Errorf("unexpected file %s", path)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 129 {
		t.Errorf("%d examples embedded, want 129", n)
	}
	if _, err := fs.ReadFile(Examples(), "CancelledNotificationParams/user-requested-cancellation.json"); err != nil {
		t.Error(err)
	}
}

// TestExtensionFilesUnmodified pins each embedded extension schema to the
// bytes published at the commit its README names, and checks the table.
func TestExtensionFilesUnmodified(t *testing.T) {
	want := map[string]string{
		"tasks": "10933a5003097bbccb03d964e6a5f7a2819cc4d7a1d07e27c6765cbf5da35c5c",
	}
	exts := Extensions()
	if len(exts) != len(want) {
		t.Fatalf("%d extensions, want %d", len(exts), len(want))
	}
	for _, e := range exts {
		data, err := ExtensionSchema(e.Name)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if got := hex.EncodeToString(sum[:]); got != want[e.Name] {
			t.Errorf("%s: sha256 %s, want %s", e.Name, got, want[e.Name])
		}
		if !Has(e.Extends) {
			t.Errorf("%s extends %s, which is not an embedded revision", e.Name, e.Extends)
		}
		if len(e.Commit) != 40 || e.Repository == "" || e.Identifier == "" {
			t.Errorf("%s: origin incomplete: %+v", e.Name, e)
		}
	}
	if _, err := ExtensionSchema("nope"); err == nil || !strings.Contains(err.Error(), "tasks") {
		t.Errorf("unknown extension: %v, want an error listing the embedded ones", err)
	}
	if _, ok := LookupExtension("ext-tasks"); ok {
		t.Error("LookupExtension takes the name, not the folder")
	}
}
