package generator

import (
	godoc "go/doc/comment"
	"regexp"
	"sort"
	"strings"

	"github.com/dave/jennifer/jen"
)

// linkRE matches a TSDoc inline link: {@link X} or {@link X | label}.
var linkRE = regexp.MustCompile(`\{@link\s+([^}]*)\}`)

// mdLinkRE matches a markdown link, [text](url), which Go doc comments do
// not render.
var mdLinkRE = regexp.MustCompile(`\[([^\]\n]+)\]\(([^)\s]+)\)`)

// specSite is where the spec's site-relative links (/specification/...) live.
const specSite = "https://modelcontextprotocol.io"

// plainLink turns a markdown link into its text followed by the absolute
// URL in parentheses, which go doc shows as a link.
func plainLink(m string) string {
	sub := mdLinkRE.FindStringSubmatch(m)
	text, url := sub[1], sub[2]
	if strings.HasPrefix(url, "/") {
		url = specSite + url
	}
	return text + " (" + url + ")"
}

// docLinker rewrites TSDoc links into Go doc links. It knows the
// definition names so it can repair the TypeScript-to-JSON glitch that
// glues a link's label onto its target ({@link X | label} arrives as
// {@link Xlabel}).
type docLinker struct {
	names map[string]bool
	// byLength lists the definition names, longest first, for the
	// longest-prefix repair.
	byLength []string
}

func newDocLinker(names []string) *docLinker {
	l := &docLinker{names: map[string]bool{}}
	for _, n := range names {
		l.names[n] = true
		l.byLength = append(l.byLength, n)
	}
	sort.SliceStable(l.byLength, func(i, j int) bool {
		if len(l.byLength[i]) != len(l.byLength[j]) {
			return len(l.byLength[i]) > len(l.byLength[j])
		}
		return l.byLength[i] < l.byLength[j]
	})
	return l
}

// link renders the target of one {@link ...}.
func (l *docLinker) link(target string) string {
	target = strings.TrimSpace(target)
	label := ""
	if i := strings.IndexByte(target, '|'); i >= 0 {
		target, label = strings.TrimSpace(target[:i]), strings.TrimSpace(target[i+1:])
	}
	if label == "" {
		if l.names[target] {
			return "[" + TypeName(target) + "]"
		}
		// X.member: link the type, keep the member.
		if i := strings.IndexByte(target, '.'); i > 0 && l.names[target[:i]] {
			return "[" + TypeName(target[:i]) + "]" + target[i:]
		}
		// {@link Xlabel}: the longest definition name that prefixes the
		// target is the link, the rest was its label.
		for _, n := range l.byLength {
			if len(n) < len(target) && strings.HasPrefix(target, n) {
				return "[" + TypeName(n) + "] (" + target[len(n):] + ")"
			}
		}
		return target
	}
	if l.names[target] {
		return "[" + TypeName(target) + "] (" + label + ")"
	}
	return label
}

// lines turns a schema description into doc comment lines: links
// rewritten, trailing blanks trimmed, leading and trailing empty lines
// dropped.
func (l *docLinker) lines(desc string) []string {
	desc = linkRE.ReplaceAllStringFunc(desc, func(m string) string {
		return l.link(linkRE.FindStringSubmatch(m)[1])
	})
	desc = mdLinkRE.ReplaceAllStringFunc(desc, plainLink)
	desc = strings.ReplaceAll(desc, "\r\n", "\n")
	var out []string
	for _, ln := range strings.Split(desc, "\n") {
		out = append(out, strings.TrimRight(ln, " \t"))
	}
	for len(out) > 0 && out[0] == "" {
		out = out[1:]
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// comment renders doc lines as the doc comment of a declaration: consecutive
// // comments, each followed by a newline. The text goes through
// go/doc/comment as gofmt's doc comment pass does (lists indented, and so
// on), so the single format.Source in Generate leaves it alone.
func comment(lines []string) *jen.Statement {
	s := jen.Null()
	for _, ln := range canonicalDoc(lines) {
		s.Comment(ln).Line()
	}
	return s
}

// canonicalDoc returns doc lines as gofmt prints them in a doc comment,
// each with its "//", which jennifer then writes as it is.
func canonicalDoc(lines []string) []string {
	if len(lines) == 0 {
		return nil
	}
	var p godoc.Parser
	var pr godoc.Printer
	text := pr.Comment(p.Parse(strings.Join(lines, "\n") + "\n"))
	return strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
}

// docFor is the doc comment of a declaration named name: the schema's
// description when there is one, else the fallback sentence.
func (l *docLinker) docFor(desc, fallback string) []string {
	if ls := l.lines(desc); len(ls) > 0 {
		return ls
	}
	return []string{fallback}
}

// commentItems renders doc lines as separate items of a struct field or
// interface list, where jennifer puts each item on its own line.
func commentItems(lines []string) []jen.Code {
	var out []jen.Code
	for _, ln := range lines {
		if ln == "" {
			ln = "//"
		}
		out = append(out, jen.Comment(ln))
	}
	return out
}
