package main

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/mcpgen/mcpgen/official"
	"github.com/mcpgen/mcpgen/schema"
)

// TestMigratingMatchesDiff: every list in MIGRATING.md is what mcpgen diff
// prints for its two revisions, and there is one for each consecutive pair
// of embedded revisions. -update (the golden-file flag) rewrites the lists.
func TestMigratingMatchesDiff(t *testing.T) {
	path := filepath.Join("..", "..", "MIGRATING.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)```text\n((\\d{4}-\\d\\d-\\d\\d) → (\\d{4}-\\d\\d-\\d\\d): .*?)```\n")
	seen := map[string]bool{}
	updated := block.ReplaceAllFunc(doc, func(m []byte) []byte {
		sub := block.FindSubmatch(m)
		from, to := string(sub[2]), string(sub[3])
		seen[from+" "+to] = true
		want := DiffText(schema.Compare(loadRevision(t, from), loadRevision(t, to)))
		if string(sub[1]) != want && !*update {
			t.Errorf("MIGRATING.md: the list for %s → %s is not what mcpgen diff prints (go test ./cmd/mcpgen -run Migrating -update)", from, to)
		}
		return []byte("```text\n" + want + "```\n")
	})
	revs := official.Revisions()
	for i := 0; i+1 < len(revs); i++ {
		if !seen[revs[i]+" "+revs[i+1]] {
			t.Errorf("MIGRATING.md has no list for %s → %s", revs[i], revs[i+1])
		}
	}
	if *update {
		if err := os.WriteFile(path, updated, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func loadRevision(t *testing.T, rev string) *schema.Model {
	t.Helper()
	m, err := schemaInput{revision: rev}.load()
	if err != nil {
		t.Fatal(err)
	}
	return m
}
