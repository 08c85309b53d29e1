package generator

import (
	"regexp"
	"strings"
	"testing"
)

// TestNoMarkdownOrPlaceholderDocs: the spec's markdown links become text and
// an absolute URL, and no member is documented by restating its name.
func TestNoMarkdownOrPlaceholderDocs(t *testing.T) {
	markdown := regexp.MustCompile(`(?m)^\s*//.*\[[^\]]+\]\([^)\s]+\)`)
	placeholder := regexp.MustCompile(`(?m)^\s*// \w+ is the "[^"]+" member\.$`)
	for _, r := range revisions {
		_, files := generateRev(t, r.rev)
		for name, src := range files {
			if m := markdown.Find(src); m != nil {
				t.Errorf("%s %s: markdown link in a doc comment: %s", r.rev, name, m)
			}
			if m := placeholder.Find(src); m != nil {
				t.Errorf("%s %s: placeholder doc comment: %s", r.rev, name, m)
			}
		}
	}
	l := newDocLinker([]string{"Tool"})
	got := l.lines("See [General fields](/specification/2025-11-25/basic/index#meta) and [the site](https://example.com/x) for {@link Tool}.")
	want := "See General fields (https://modelcontextprotocol.io/specification/2025-11-25/basic/index#meta) and the site (https://example.com/x) for [Tool]."
	if len(got) != 1 || got[0] != want {
		t.Errorf("lines = %q, want %q", got, want)
	}
}

// TestInlineEnumIsANamedType: an inline string enum is a named string type
// with typed constants, and the member has that type.
func TestInlineEnumIsANamedType(t *testing.T) {
	_, files := generateRev(t, "2025-11-25")
	src := string(files["types.go"])
	for _, want := range []string{
		"\tAction ElicitResultAction `json:\"action\"`\n",
		"\ntype ElicitResultAction string\n",
		"\tElicitResultActionAccept ElicitResultAction = \"accept\"\n",
	} {
		if !strings.Contains(src, want) {
			t.Errorf("types.go lacks %q", want)
		}
	}
}
