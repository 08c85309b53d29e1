package bench

import "strings"

func splitLines(s string) []string { return strings.Split(s, "\n") }

func trim(s string) string { return strings.TrimSpace(s) }

func firstFields(s string, n int) string {
	f := strings.Fields(s)
	if len(f) > n {
		f = f[:n]
	}
	return strings.Join(f, " ")
}
