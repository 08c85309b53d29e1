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

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}
