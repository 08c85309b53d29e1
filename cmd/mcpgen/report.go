package main

// What every writing command shares (issue 36): the one-line summary of
// what it wrote, silenced by -q; the refusal to write into a folder that
// holds another Go package; and the nearest flag suggested for an unknown
// one. Commands call these rather than print their own variants, so a new
// command (or a new mode of one) reports the same way.

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mcpgen/mcpgen/internal/outdir"
)

// summary prints a writing command's one-line report, unless -q.
type summary struct {
	command string // "generate", "tools", "scaffold"
	quiet   *bool
}

// addSummary registers -q/--quiet on fs for the command.
func addSummary(fs *pflag.FlagSet) summary {
	return summary{command: fs.Name(), quiet: fs.BoolP("quiet", "q", false, "print nothing on success (no one-line summary of what was written)")}
}

// printf prints one summary line to w, unless -q was given.
func (s summary) printf(w io.Writer, format string, args ...any) {
	if s.quiet != nil && *s.quiet {
		return
	}
	fmt.Fprintf(w, "mcpgen %s: %s\n", s.command, fmt.Sprintf(format, args...))
}

// wroteFiles prints how many of files were written to dir, how many of
// them changed (measured before the write), and what they are.
func (s summary) wroteFiles(w io.Writer, dir string, files map[string][]byte, changed int, what string) {
	noun := "files"
	if len(files) == 1 {
		noun = "file"
	}
	s.printf(w, "wrote %d %s to %s (%s; %d changed)", len(files), noun, dir, what, changed)
}

// changedFiles counts the files whose content in dir differs from files
// (missing ones included): what a write is about to change.
func changedFiles(dir string, files map[string][]byte) int {
	n := 0
	for name, data := range files {
		old, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil || !bytes.Equal(old, data) {
			n++
		}
	}
	return n
}

// folderPackage reads the package clauses of the Go files in dir that the
// go command would build (build constraints and _test.go files are left
// out), but for the file replaced (the one about to be overwritten) and,
// when skipGenerated, files mcpgen generated (outdir.Write replaces, removes
// or refuses those itself). It returns the package they declare and the
// first file declaring it, or "" when there is none (no folder, no such
// file). hasMain reports a func main among them.
func folderPackage(dir, replaced string, skipGenerated bool) (pkg, file string, hasMain bool, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		// No folder yet, or not one: the write creates it or reports why
		// it cannot.
		return "", "", false, nil
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		n := e.Name()
		if e.Type().IsRegular() && strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	fset := token.NewFileSet()
	for _, n := range names {
		if ok, err := build.Default.MatchFile(dir, n); err != nil || !ok {
			continue
		}
		path := filepath.Join(dir, n)
		if replaced != "" && filepath.Clean(path) == filepath.Clean(replaced) {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return "", "", false, fmt.Errorf("%s: %w", path, unwrapPath(err))
		}
		if skipGenerated && outdir.IsGenerated(src) {
			continue // mcpgen's: replaced, removed or refused by outdir.Write
		}
		f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
		if err != nil && f == nil {
			continue // not even a package clause: the build will say so
		}
		if pkg == "" {
			pkg, file = f.Name.Name, path
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.Name == "main" {
				hasMain = true
			}
		}
	}
	return pkg, file, hasMain, nil
}

// packageClash says why a package named pkg cannot be written into dir,
// or "": the folder's own Go files declare another package, and the go
// command builds one package per folder ("found packages mcp and main").
// flag names the flag that chooses the package name; replaced and
// skipGenerated are folderPackage's.
func packageClash(dir, pkg, flag, replaced string, skipGenerated bool) string {
	have, file, _, err := folderPackage(dir, replaced, skipGenerated)
	if err != nil {
		return err.Error()
	}
	if have == "" || have == pkg {
		return ""
	}
	return fmt.Sprintf("%s holds package %s (%s), not %s: a folder holds one Go package, so pass %s %s or write to another folder",
		dir, have, filepath.Base(file), pkg, flag, have)
}

// suggestFlag returns the flag of fs nearest to the unknown flag in a
// pflag error ("unknown flag: --tool"), as " (did you mean --tools?)", or
// "" when none is near.
func suggestFlag(fs *pflag.FlagSet, err error) string {
	msg := err.Error()
	var given string
	switch {
	case strings.HasPrefix(msg, "unknown flag: --"):
		given = strings.TrimPrefix(msg, "unknown flag: --")
	case strings.HasPrefix(msg, "unknown shorthand flag: "):
		// "unknown shorthand flag: 'o' in -out": a long flag with one dash.
		if _, arg, ok := strings.Cut(msg, " in -"); ok {
			given = arg
		}
	default:
		return ""
	}
	given, _, _ = strings.Cut(given, "=")
	best, bestDist := "", 0
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		d := editDistance(given, f.Name)
		if best == "" || d < bestDist {
			best, bestDist = f.Name, d
		}
	})
	// Near: a typo or two, never more than a third of the name.
	if best == "" || bestDist > 2 || bestDist*3 > len(best) {
		return ""
	}
	if strings.HasPrefix(msg, "unknown shorthand flag: ") && bestDist == 0 {
		return fmt.Sprintf(" (did you mean --%s? long flags take two dashes)", best)
	}
	return fmt.Sprintf(" (did you mean --%s?)", best)
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
