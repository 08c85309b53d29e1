// Package official carries the Model Context Protocol's published JSON
// schemas, unmodified, one per protocol revision, and the specification's
// example instances. They are embedded, so mcpgen generates the bindings of
// an official revision without any schema file beside it, and tests in this
// module have their test vectors without anything outside it.
//
// The files are under schemas/ exactly as the specification repository
// publishes them; README.md says where they come from and LICENSE is the
// specification's licence.
package official

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
)

// ExamplesRevision is the revision whose example instances are embedded:
// the specification ships examples with its newest revision only.
const ExamplesRevision = "2026-07-28"

//go:embed schemas/*/schema.json schemas/2026-07-28/examples
var files embed.FS

// revisions is computed once from the embedded tree: each folder is an
// official revision. Adding a revision takes more than its folder (its row
// of the revision table in schema/revisions.go, its generated package):
// ADDING_A_REVISION.md at the repository root lists the steps, and a test
// keeps that list true.
var revisions = func() []string {
	entries, err := files.ReadDir("schemas")
	if err != nil {
		panic("official: embedded schemas missing: " + err.Error())
	}
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	// Revisions are dates (YYYY-MM-DD), so string order is time order.
	sort.Strings(out)
	return out
}()

// Revisions lists the embedded revisions, oldest first.
func Revisions() []string { return append([]string(nil), revisions...) }

// Latest is the newest embedded revision.
func Latest() string { return revisions[len(revisions)-1] }

// Has reports whether rev is an embedded revision.
func Has(rev string) bool {
	i := sort.SearchStrings(revisions, rev)
	return i < len(revisions) && revisions[i] == rev
}

// Schema returns the unmodified schema.json of revision rev. The caller
// owns the returned slice.
func Schema(rev string) ([]byte, error) {
	if !Has(rev) {
		return nil, fmt.Errorf("no official schema for revision %q (embedded: %s)", rev, strings.Join(revisions, ", "))
	}
	return files.ReadFile("schemas/" + rev + "/schema.json")
}

// Examples returns the specification's example instances of
// ExamplesRevision, laid out as <Definition>/<example>.json.
func Examples() fs.FS {
	sub, err := fs.Sub(files, "schemas/"+ExamplesRevision+"/examples")
	if err != nil {
		panic("official: embedded examples missing: " + err.Error())
	}
	return sub
}
