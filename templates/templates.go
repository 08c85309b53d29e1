// Package templates holds the text/templates for what mcpgen writes that is
// prose-shaped rather than code-shaped: the package documentation of a
// generated package and the user-owned scaffold of an implementation.
package templates

import (
	"bytes"
	"embed"
	"fmt"
	"strings"
	"text/template"
)

//go:embed *.tmpl
var files embed.FS

var parsed = template.Must(template.New("").Funcs(template.FuncMap{
	"join": strings.Join,
}).ParseFS(files, "*.tmpl"))

// Render executes the named template (its file name, e.g. "doc.tmpl")
// with data.
func Render(name string, data any) ([]byte, error) {
	var buf bytes.Buffer
	if err := parsed.ExecuteTemplate(&buf, name, data); err != nil {
		return nil, fmt.Errorf("templates: %s: %w", name, err)
	}
	return buf.Bytes(), nil
}
