package main

import (
	"fmt"
	"go/token"
	"strings"
	"unicode/utf8"
)

// checkIdentifier says why s cannot name a Go package or type, or returns
// nil. Letters are Unicode letters, as in the language; the blank
// identifier and keywords are refused because "package _" and "package
// type" do not compile.
func checkIdentifier(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("is empty")
	case s == "_":
		return fmt.Errorf("%q is the blank identifier", s)
	case token.IsKeyword(s):
		return fmt.Errorf("%q is a Go keyword", s)
	case !utf8.ValidString(s) || !token.IsIdentifier(s):
		return fmt.Errorf("%q is not a Go identifier (a letter or _, then letters, digits or _)", s)
	}
	return nil
}

// checkImportPath says why p is not a valid Go import path, or returns
// nil. The rules are those of golang.org/x/mod/module.CheckImportPath,
// which the go command applies: slash-separated non-empty elements of
// ASCII letters, digits and "-._~+", no element that is only dots or ends
// with a dot, no leading dash, no element whose name before its first dot
// is reserved on Windows (CON, NUL, …) or ends in "~" and digits (an 8.3
// short name). x/mod is not a dependency of this module, hence the copy.
func checkImportPath(p string) error {
	switch {
	case p == "":
		return fmt.Errorf("empty import path")
	case !utf8.ValidString(p):
		return fmt.Errorf("import path %q: invalid UTF-8", p)
	case p[0] == '-':
		return fmt.Errorf("import path %q: leading dash", p)
	case strings.Contains(p, "//"):
		return fmt.Errorf("import path %q: double slash", p)
	case p[len(p)-1] == '/':
		return fmt.Errorf("import path %q: trailing slash", p)
	}
	for _, elem := range strings.Split(p, "/") {
		if err := checkImportElem(elem); err != nil {
			return fmt.Errorf("import path %q: %v", p, err)
		}
	}
	return nil
}

func checkImportElem(elem string) error {
	if elem == "" {
		return fmt.Errorf("empty path element")
	}
	if strings.Count(elem, ".") == len(elem) {
		return fmt.Errorf("invalid path element %q", elem)
	}
	if elem[len(elem)-1] == '.' {
		return fmt.Errorf("trailing dot in path element %q", elem)
	}
	for _, r := range elem {
		ok := r == '-' || r == '.' || r == '_' || r == '~' || r == '+' ||
			'0' <= r && r <= '9' || 'A' <= r && r <= 'Z' || 'a' <= r && r <= 'z'
		if !ok {
			return fmt.Errorf("invalid char %q in path element %q", r, elem)
		}
	}
	short := elem
	if i := strings.IndexByte(short, '.'); i >= 0 {
		short = short[:i]
	}
	for _, bad := range windowsReserved {
		if strings.EqualFold(bad, short) {
			return fmt.Errorf("%q disallowed as path element component on Windows", short)
		}
	}
	if i := strings.LastIndexByte(short, '~'); i >= 0 && i < len(short)-1 {
		if strings.Trim(short[i+1:], "0123456789") == "" {
			return fmt.Errorf("trailing tilde and digits in path element %q", elem)
		}
	}
	return nil
}

// windowsReserved are the file names Windows reserves in any directory.
var windowsReserved = []string{
	"CON", "PRN", "AUX", "NUL",
	"COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9",
	"LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
}
