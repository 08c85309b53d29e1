package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// readmeBlock is one fenced code block of README.md or a guide under
// docs/ with the annotation on the line before it: "<!-- readme: KIND ARG -->".
type readmeBlock struct {
	line       int // of the opening fence, 1-based
	lang       string
	kind, arg  string // "file PATH", "run", "output", "suite SCRIPT …", "not run: REASON"
	body       []string
	annotation string
	above      string // the paragraph directly above the annotation
}

var annotationRE = regexp.MustCompile(`^<!-- readme: (file|run|output|suite|not run:)\s*(.*?)\s*-->$`)

// docFiles are the documents whose code blocks are checked: README.md and
// every guide under docs/, as paths relative to the repository root.
func docFiles(t *testing.T) []string {
	t.Helper()
	guides, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(guides) < 7 {
		t.Fatalf("found %d guides under docs/, want the README's topics there", len(guides))
	}
	files := []string{"README.md"}
	for _, g := range guides {
		files = append(files, "docs/"+filepath.Base(g))
	}
	return files
}

// readmeBlocks returns a document's fenced code blocks.
func readmeBlocks(t *testing.T, readme string) []readmeBlock {
	t.Helper()
	var blocks []readmeBlock
	lines := strings.Split(readme, "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "```") {
			continue
		}
		b := readmeBlock{line: i + 1, lang: strings.TrimPrefix(lines[i], "```")}
		if i > 0 {
			b.annotation = lines[i-1]
			if m := annotationRE.FindStringSubmatch(lines[i-1]); m != nil {
				b.kind, b.arg = m[1], m[2]
			}
			// The paragraph above the annotation (skipping one blank line).
			j := i - 2
			for j >= 0 && strings.TrimSpace(lines[j]) == "" {
				j--
			}
			var para []string
			for ; j >= 0 && strings.TrimSpace(lines[j]) != "" && !strings.HasPrefix(lines[j], "```"); j-- {
				para = append([]string{lines[j]}, para...)
			}
			b.above = strings.Join(para, "\n")
		}
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
			b.body = append(b.body, lines[i])
		}
		if i == len(lines) {
			t.Fatalf("line %d: code block never closed", b.line)
		}
		blocks = append(blocks, b)
	}
	return blocks
}

// normalize trims each line and collapses its runs of spaces and tabs, so a
// quote may be indented differently from its source (and gofmt's comment
// alignment does not matter).
func normalize(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.Join(strings.Fields(l), " ")
	}
	return out
}

// contains reports whether want is a run of consecutive lines of have.
func contains(have, want []string) bool {
	for i := 0; i+len(want) <= len(have); i++ {
		ok := true
		for j := range want {
			if have[i+j] != want[j] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// TestReadmeCodeBlocks: every code block of README.md and of the guides
// under docs/ says what makes it
// true, and is checked accordingly: a quote ("file PATH") is a run of
// lines of PATH, a file of this repository that the build compiles (and
// whose tests run it: examples/quickstart's programs, readme_*_test.go
// there for fragments), and a Go quote is either the whole file, imports
// included, or has a link to PATH in the paragraph directly above it, so
// every snippet compiles as shown or points at the file that does; a
// command ("run") runs, from the repository root, with "_out/" replaced by
// a temporary directory so nothing lands in the checkout, and prints what
// the "output" block after it shows; "suite SCRIPT …" is run by that
// script, which names the annotation; anything else says why it is not
// run here ("not run: REASON", naming what runs it instead).
func TestReadmeCodeBlocks(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range docFiles(t) {
		t.Run(strings.TrimSuffix(filepath.Base(doc), ".md"), func(t *testing.T) { checkDocBlocks(t, root, doc) })
	}
}

// checkDocBlocks checks the code blocks of one document (see
// TestReadmeCodeBlocks).
func checkDocBlocks(t *testing.T, root, doc string) {
	readme, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(doc)))
	if err != nil {
		t.Fatal(err)
	}
	blocks := readmeBlocks(t, string(readme))
	if doc == "README.md" && len(blocks) < 8 {
		t.Fatalf("found only %d code blocks in README.md", len(blocks))
	}
	var lastRun string // the output of the last "run" block
	lastWasRun := false
	for _, b := range blocks {
		switch b.kind {
		case "":
			t.Errorf("%s:%d: code block without a <!-- readme: file PATH | run | output | suite SCRIPT | not run: REASON --> line before it (found %q)", doc, b.line, b.annotation)
		case "not run:":
			if b.arg == "" {
				t.Errorf("%s:%d: \"not run\" without a reason", doc, b.line)
			}
		case "suite":
			script, _, _ := strings.Cut(b.arg, " ")
			src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(script)))
			if err != nil {
				t.Errorf("%s:%d: %v", doc, b.line, err)
			} else if !strings.Contains(string(src), b.annotation) {
				t.Errorf("%s:%d: %s does not look for the block's annotation %q, so it does not run it", doc, b.line, script, b.annotation)
			}
		case "file":
			src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(b.arg)))
			if err != nil {
				t.Errorf("%s:%d: %v", doc, b.line, err)
				continue
			}
			have := normalize(strings.Split(string(src), "\n"))
			if !contains(have, normalize(b.body)) {
				t.Errorf("%s:%d: the block is not in %s (quote it verbatim, or change the file)", doc, b.line, b.arg)
			}
			if b.lang == "go" && !wholeFile(have, normalize(b.body)) && !linksTo(doc, b.above, b.arg) {
				t.Errorf("%s:%d: a Go quote of part of %s without a link to it in the paragraph above: quote it whole (package and imports), or link the file", doc, b.line, b.arg)
			}
		case "run":
			if testing.Short() {
				lastRun = ""
				break
			}
			lastRun = runReadmeCommands(t, root, b)
		case "output":
			if !lastWasRun {
				t.Errorf("%s:%d: an output block must follow a run block", doc, b.line)
			} else if !testing.Short() && strings.TrimSpace(lastRun) != strings.TrimSpace(strings.Join(b.body, "\n")) {
				t.Errorf("%s:%d: the command above printed\n%s\nbut the document shows\n%s", doc, b.line, lastRun, strings.Join(b.body, "\n"))
			}
		}
		lastWasRun = b.kind == "run"
	}
}

// wholeFile reports whether quote is all of file's code: from its package
// clause to its last line (the doc comment above the clause may be left
// out).
func wholeFile(file, quote []string) bool {
	trim := func(ls []string) []string {
		for len(ls) > 0 && ls[len(ls)-1] == "" {
			ls = ls[:len(ls)-1]
		}
		return ls
	}
	file, quote = trim(file), trim(quote)
	for i, l := range file {
		if strings.HasPrefix(l, "package ") {
			return len(quote) > 0 && strings.HasPrefix(quote[0], "package ") && slices.Equal(file[i:], quote)
		}
	}
	return false
}

// linksTo reports whether the paragraph above has a Markdown link to path
// (relative to the repository root, written relative to doc).
func linksTo(doc, above, path string) bool {
	rel := path
	if strings.HasPrefix(doc, "docs/") {
		rel = "../" + path
	}
	return strings.Contains(above, "]("+rel+")") || strings.Contains(above, "]("+rel+"#")
}

// runReadmeCommands runs the command lines of a run block from the
// repository root and returns their standard output.
func runReadmeCommands(t *testing.T, root string, b readmeBlock) string {
	t.Helper()
	tmp := t.TempDir()
	var stdout bytes.Buffer
	for _, line := range b.body {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cmdline := strings.ReplaceAll(line, "_out/", tmp+"/")
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		cmd := exec.CommandContext(ctx, "bash", "-c", cmdline)
		cmd.Dir = root
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		cancel()
		t.Logf("line %d: ran %s", b.line, line)
		if err != nil {
			t.Errorf("line %d: %s: %v\n%s", b.line, line, err, stderr.String())
		}
	}
	return stdout.String()
}

// TestReadmeFileTable: every identifier the bindings guide's table of generated
// files names for a file is declared in that file (in the bindings of
// 2025-11-25 or 2026-07-28), so the table says what the files hold.
func TestReadmeFileTable(t *testing.T) {
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "docs", "bindings.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(readme), "| file | what it holds |")
	if !ok {
		t.Fatal("docs/bindings.md has no table of generated files")
	}
	table, _, _ = strings.Cut(table, "\n\n")
	row := regexp.MustCompile("(?m)^\\| (`[a-z_]+\\.go`(?:, `[a-z_]+\\.go`)*) \\| (.*) \\|$")
	ident := regexp.MustCompile("`([A-Z][A-Za-z0-9]*)(?:\\(\\))?`")
	rows := row.FindAllStringSubmatch(table, -1)
	if len(rows) < 8 {
		t.Fatalf("found %d rows in the table of generated files", len(rows))
	}
	for _, r := range rows {
		var src string
		for _, f := range strings.Split(r[1], ", ") {
			f = strings.Trim(f, "`")
			found := false
			for _, pkg := range []string{"mcp20251125", "mcp20260728"} {
				if b, err := os.ReadFile(filepath.Join(root, "generated", pkg, f)); err == nil {
					src += string(b)
					found = true
				}
			}
			if !found {
				t.Errorf("README's table lists %s, which the bindings of neither 2025-11-25 nor 2026-07-28 have", f)
			}
		}
		for _, m := range ident.FindAllStringSubmatch(r[2], -1) {
			decl := regexp.MustCompile(`(?m)^(func (\([^)]*\) )?|type |var |const |\t)` + m[1] + `\b`)
			if !decl.MatchString(src) {
				t.Errorf("README's table says %s holds %s, which is not declared there", r[1], m[1])
			}
		}
	}
}
