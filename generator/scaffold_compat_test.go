package generator

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/schema"
)

// keptMethods is m with only the methods that next still has, and without
// the ones whose params or result the spec changed incompatibly
// (incompatible): the code a user wrote against m that the upgrade should
// not break.
func keptMethods(t *testing.T, m, next *schema.Model) *schema.Model {
	t.Helper()
	have := map[string]bool{}
	for _, me := range next.Methods {
		have[me.Name] = true
	}
	kept := *m
	kept.Methods = nil
	for _, me := range m.Methods {
		if have[me.Name] && !incompatible[m.Revision+" "+next.Revision+" "+me.Name] {
			kept.Methods = append(kept.Methods, me)
		}
	}
	return &kept
}

// incompatible lists the methods whose Go signature had to change between two
// revisions because the spec changed the shape of their params or result;
// MIGRATING.md explains each. Keep it short: every entry is a break for users.
var incompatible = map[string]bool{
	// elicitation/create's params became a union of form and URL mode.
	"2025-06-18 2025-11-25 elicitation/create": true,
	// The server no longer sends these as requests: they travel embedded in
	// an InputRequiredResult, so the client interface has no method for them.
	"2025-11-25 2026-07-28 sampling/createMessage": true,
	"2025-11-25 2026-07-28 elicitation/create":     true,
	"2025-11-25 2026-07-28 roots/list":             true,
}

// TestScaffoldBuildsAgainstNextRevision is the promise of stable names: the
// untouched scaffold (server and client) of each revision, pointed at the
// next revision's committed bindings, still builds. Every scaffold is also
// built against its own revision so a failure points at the upgrade, not at
// the scaffold. The files exist only in a go build overlay, inside this
// module, so nothing is written next to the sources.
func TestScaffoldBuildsAgainstNextRevision(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go build")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	importOf := func(rev string) string {
		return "github.com/mcpgen/mcpgen/generated/mcp" + strings.ReplaceAll(rev, "-", "")
	}
	overlay := map[string]string{}
	tmp := t.TempDir()
	var pkgs []string
	for i, r := range revisions {
		m, _ := generateRev(t, r.rev)
		targets := []string{r.rev}
		if i+1 < len(revisions) {
			targets = append(targets, revisions[i+1].rev)
		}
		for _, target := range targets {
			next, _ := generateRev(t, target)
			for _, side := range []string{"server", "client"} {
				src, err := Scaffold(keptMethods(t, m, next), ScaffoldOptions{Side: side, ImportPath: importOf(target), Package: "scaffold"})
				if err != nil {
					t.Fatalf("%s %s: %v", r.rev, side, err)
				}
				dir := "internal/scaffoldcompat/" + strings.ReplaceAll(r.rev, "-", "") + "on" + strings.ReplaceAll(target, "-", "") + side
				file := filepath.Join(tmp, strings.ReplaceAll(dir, "/", "_")+".go")
				if err := os.WriteFile(file, src, 0o644); err != nil {
					t.Fatal(err)
				}
				overlay[filepath.Join(root, filepath.FromSlash(dir), "scaffold.go")] = file
				pkgs = append(pkgs, "./"+dir)
			}
		}
	}
	data, err := json.Marshal(map[string]any{"Replace": overlay})
	if err != nil {
		t.Fatal(err)
	}
	overlayFile := filepath.Join(tmp, "overlay.json")
	if err := os.WriteFile(overlayFile, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", append([]string{"build", "-overlay", overlayFile}, pkgs...)...)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("a scaffold does not build against the next revision's bindings: %v\n%s", err, out)
	}
}
