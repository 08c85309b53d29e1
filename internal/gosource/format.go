package gosource

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
)

// printerNormalizeNumbers is go/format's private printer mode bit that
// makes number literals canonical (0X1 → 0x1); go/printer honours it from
// any caller, and gofmt sets it, so Format must too to match gofmt.
const printerNormalizeNumbers printer.Mode = 1 << 30

// Format returns a whole Go source file with its imports grouped
// (groupImports) and gofmt'd: byte for byte what format.Source returns for
// the grouped source (TestFormatIsGofmt). It differs only in cost:
// format.Source grows its output from empty, which for a 17 MB types.go
// doubles the buffer a dozen times and clears each new one, a tenth of the
// generator's time at scale (TestScale); Format sizes it once. src's array
// may be reused, so the caller must not use src afterwards.
func Format(src []byte) ([]byte, error) {
	src = groupImports(src)
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "", src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	ast.SortImports(fset, file)
	var buf bytes.Buffer
	// gofmt's output of generated code is a little longer than its input
	// (alignment spaces); an eighth more is ample.
	buf.Grow(len(src) + len(src)/8 + 512)
	cfg := printer.Config{Mode: printer.UseSpaces | printer.TabIndent | printerNormalizeNumbers, Tabwidth: 8}
	if err := cfg.Fprint(&buf, fset, file); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
