// Package gosource post-processes Go source the generators write: what
// jennifer's rendering leaves to goimports.
package gosource

import (
	"bytes"
	"strings"
)

// groupImports returns src with its parenthesised import block split into
// two groups, the standard library's first and then the rest, each kept in
// its order, as goimports writes them. src must be Go source with at most
// one such block (as jennifer writes it); anything else is returned as it
// is. src's array is reused when it has room for the one byte the blank
// line adds: the block is near the top of a file that can be megabytes
// long, and a fresh copy of it cost a twentieth of generation at scale.
func groupImports(src []byte) []byte {
	start := bytes.Index(src, []byte("\nimport (\n"))
	if start < 0 {
		return src
	}
	start += len("\nimport (\n")
	end := bytes.Index(src[start:], []byte("\n)\n"))
	if end < 0 {
		return src
	}
	end += start
	var std, other []string
	for _, line := range strings.Split(string(src[start:end]), "\n") {
		spec := strings.TrimSpace(line)
		if spec == "" {
			continue
		}
		if isStandard(spec) {
			std = append(std, line)
		} else {
			other = append(other, line)
		}
	}
	if len(std) == 0 || len(other) == 0 {
		return src
	}
	block := strings.Join(std, "\n") + "\n\n" + strings.Join(other, "\n")
	grown := len(block) - (end - start) // blank lines dropped make it negative
	n := len(src)
	if grown > 0 && cap(src)-n >= grown {
		src = src[:n+grown]
		copy(src[end+grown:], src[end:n])
		copy(src[start:], block)
		return src
	}
	out := make([]byte, 0, n+max(grown, 0))
	out = append(out, src[:start]...)
	out = append(out, block...)
	return append(out, src[end:]...)
}

// isStandard reports whether an import spec (`"path"` or `name "path"`)
// names a standard-library package: one whose path's first element has no
// dot, as the go command tells them apart.
func isStandard(spec string) bool {
	q := strings.IndexByte(spec, '"')
	if q < 0 {
		return false
	}
	path := strings.Trim(spec[q:], `"`)
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}
