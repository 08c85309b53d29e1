package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// readmeBlock is one fenced code block of README.md with the annotation
// on the line before it: "<!-- readme: KIND ARG -->".
type readmeBlock struct {
	line       int // of the opening fence, 1-based
	lang       string
	kind, arg  string // "file PATH", "run", "output", "not run: REASON"
	body       []string
	annotation string
}

var annotationRE = regexp.MustCompile(`^<!-- readme: (file|run|output|not run:)\s*(.*?)\s*-->$`)

// readmeBlocks returns README.md's fenced code blocks.
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
		}
		for i++; i < len(lines) && !strings.HasPrefix(lines[i], "```"); i++ {
			b.body = append(b.body, lines[i])
		}
		if i == len(lines) {
			t.Fatalf("README.md:%d: code block never closed", b.line)
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

// TestReadmeCodeBlocks: every code block of README.md says what makes it
// true, and is checked accordingly: a quote ("file PATH") is a run of
// lines of PATH, a file of this repository that the build compiles (and
// whose tests run it: examples/quickstart's programs, readme_*_test.go
// there for fragments); a command ("run") runs, from the repository root,
// with "_out/" replaced by a temporary directory so nothing lands in the
// checkout, and prints what the "output" block after it shows; anything
// else says why it is not run here ("not run: REASON", naming what runs
// it instead).
func TestReadmeCodeBlocks(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := readmeBlocks(t, string(readme))
	if len(blocks) < 10 {
		t.Fatalf("found only %d code blocks in README.md", len(blocks))
	}
	var lastRun string // the output of the last "run" block
	lastWasRun := false
	for _, b := range blocks {
		switch b.kind {
		case "":
			t.Errorf("README.md:%d: code block without a <!-- readme: file PATH | run | output | not run: REASON --> line before it (found %q)", b.line, b.annotation)
		case "not run:":
			if b.arg == "" {
				t.Errorf("README.md:%d: \"not run\" without a reason", b.line)
			}
		case "file":
			src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(b.arg)))
			if err != nil {
				t.Errorf("README.md:%d: %v", b.line, err)
				continue
			}
			if !contains(normalize(strings.Split(string(src), "\n")), normalize(b.body)) {
				t.Errorf("README.md:%d: the block is not in %s (quote it verbatim, or change the file)", b.line, b.arg)
			}
		case "run":
			if testing.Short() {
				continue
			}
			lastRun = runReadmeCommands(t, root, b)
		case "output":
			if !lastWasRun {
				t.Errorf("README.md:%d: an output block must follow a run block", b.line)
			} else if !testing.Short() && strings.TrimSpace(lastRun) != strings.TrimSpace(strings.Join(b.body, "\n")) {
				t.Errorf("README.md:%d: the command above printed\n%s\nbut the README shows\n%s", b.line, lastRun, strings.Join(b.body, "\n"))
			}
		}
		lastWasRun = b.kind == "run"
	}
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
		t.Logf("README.md:%d: ran %s", b.line, line)
		if err != nil {
			t.Errorf("README.md:%d: %s: %v\n%s", b.line, line, err, stderr.String())
		}
	}
	return stdout.String()
}

// TestReadmeFileTable: every identifier the README's table of generated
// files names for a file is declared in that file (in the bindings of
// 2025-11-25 or 2026-07-28), so the table says what the files hold.
func TestReadmeFileTable(t *testing.T) {
	root := filepath.Join("..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(readme), "| file | what it holds |")
	if !ok {
		t.Fatal("README.md has no table of generated files")
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
