// Package mdsection rewrites the generated section of a Markdown file
// (bench/BENCHMARKS.md): the text between a begin and an end marker line.
// The cluster module's two writers of that file (cmd/clusterbench and the
// example's bench subcommand) share it.
package mdsection

import (
	"fmt"
	"os"
	"strings"
)

// Replace puts sec between the markers begin and end of the file at path,
// appending both markers and sec at its end when neither is there. A file
// with only one of them, or with end before begin, is an error naming it.
func Replace(path, begin, end, sec string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := string(b)
	block := begin + "\n" + sec + end + "\n"
	i, j := strings.Index(s, begin), strings.Index(s, end)
	switch {
	case i >= 0 && j > i:
		s = s[:i] + block + strings.TrimPrefix(s[j+len(end):], "\n")
	case i < 0 && j < 0:
		if !strings.HasSuffix(s, "\n") {
			s += "\n"
		}
		s += "\n" + block
	default:
		return fmt.Errorf("%s: unbalanced %s / %s markers", path, begin, end)
	}
	return os.WriteFile(path, []byte(s), 0o644)
}
