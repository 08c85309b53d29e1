package official

import (
	"embed"
	"fmt"
	"strings"
)

// Extension describes one embedded MCP extension schema: a separate
// document, published outside the specification repository, that adds
// definitions (methods, results, capabilities) to one core revision and
// carries copies of the core definitions it refers to.
type Extension struct {
	// Name is what mcpgen's --extension flag takes, e.g. "tasks".
	Name string
	// Identifier is the extension's identifier in capabilities.extensions,
	// e.g. "io.modelcontextprotocol/tasks".
	Identifier string
	// Extends is the core revision the extension is composed with: the
	// schema's copies of core definitions are that revision's, which
	// schema.LoadExtension checks definition by definition.
	Extends string
	// Repository, Commit and Path say where the file was taken from.
	Repository, Commit, Path string
	// Spec is the extension's specification page in that repository.
	Spec string
	// Dir is the folder of this package that holds schema.json, LICENSE
	// and README.md.
	Dir string
}

//go:embed ext-tasks/schema.json
var extFiles embed.FS

// extensions is the table of embedded extensions, in name order. Adding
// one takes its folder (schema.json unmodified, LICENSE, README.md), a row
// here, the embed pattern above, and its generated package
// (ADDING_A_REVISION.md, "Extensions").
var extensions = []Extension{
	{
		Name:       "tasks",
		Identifier: "io.modelcontextprotocol/tasks",
		Extends:    "2026-07-28",
		Repository: "https://github.com/modelcontextprotocol/ext-tasks",
		Commit:     "e4345978be1f602f1fc48d89051e8559dd5302a6",
		Path:       "schema/draft/schema.json",
		Spec:       "specification/draft/tasks.md (SEP-2663)",
		Dir:        "ext-tasks",
	},
}

// Extensions lists the embedded extensions, in name order.
func Extensions() []Extension { return append([]Extension(nil), extensions...) }

// LookupExtension returns the embedded extension called name.
func LookupExtension(name string) (Extension, bool) {
	for _, e := range extensions {
		if e.Name == name {
			return e, true
		}
	}
	return Extension{}, false
}

// ExtensionSchema returns the unmodified schema.json of the extension
// called name. The caller owns the returned slice.
func ExtensionSchema(name string) ([]byte, error) {
	e, ok := LookupExtension(name)
	if !ok {
		var names []string
		for _, e := range extensions {
			names = append(names, e.Name)
		}
		return nil, fmt.Errorf("no embedded extension %q (embedded: %s)", name, strings.Join(names, ", "))
	}
	return extFiles.ReadFile(e.Dir + "/schema.json")
}
