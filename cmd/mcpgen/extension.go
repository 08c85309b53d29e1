package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mcpgen/mcpgen/official"
	"github.com/mcpgen/mcpgen/schema"
)

// modulePath is the import path of this module, under which the committed
// bindings live.
const modulePath = "github.com/mcpgen/mcpgen"

// extensionFlags are the flags of the commands that read an extension
// schema: --extension, and --core-package for those that generate.
type extensionFlags struct {
	name, corePackage *string
}

func addExtensionFlags(fs *pflag.FlagSet, generates bool) extensionFlags {
	var f extensionFlags
	f.name = fs.String("extension", "", "embedded MCP extension `name` (\"tasks\", see mcpgen revisions), composed with the core revision it extends; with --schema, the file is the extension schema and --revision its core revision")
	if generates {
		f.corePackage = fs.String("core-package", "", "import `path` of the core revision's bindings an extension's bindings refer to (default: "+modulePath+"/generated/mcpYYYYMMDD)")
	}
	return f
}

// corePackageOf is --core-package, or the committed bindings of the core
// revision m is composed with.
func (f extensionFlags) corePackageOf(m *schema.Model) string {
	if m.Extension == nil {
		return ""
	}
	if f.corePackage != nil && *f.corePackage != "" {
		return *f.corePackage
	}
	return modulePath + "/generated/mcp" + strings.ReplaceAll(m.Extension.Core, "-", "")
}

// lookupExtension finds an embedded extension by its name ("tasks") or
// its folder's and repository's name ("ext-tasks").
func lookupExtension(name string) (official.Extension, bool) {
	if e, ok := official.LookupExtension(name); ok {
		return e, true
	}
	return official.LookupExtension(strings.TrimPrefix(name, "ext-"))
}

// extensionName is how an embedded extension schema is named in errors
// and headers.
func extensionName(name string) string { return "official extension " + name }

// loadExtension builds the model of the extension in.extension: the
// embedded schema (or --schema) composed with its core revision.
func (in schemaInput) loadExtension() (*schema.Model, error) {
	e, ok := lookupExtension(in.extension)
	if !ok {
		var names []string
		for _, x := range official.Extensions() {
			names = append(names, x.Name)
		}
		return nil, &usageErr{fmt.Sprintf("--extension %q: no such embedded extension (embedded: %s)", in.extension, strings.Join(names, ", "))}
	}
	coreRev := e.Extends
	if in.revision != "" {
		if in.path == "" && in.revision != e.Extends {
			return nil, &usageErr{fmt.Sprintf("--revision %s: the embedded extension %s extends %s", in.revision, e.Name, e.Extends)}
		}
		coreRev = in.revision
	}
	coreData, err := official.Schema(coreRev)
	if err != nil {
		return nil, &usageErr{fmt.Sprintf("--revision: %v", err)}
	}
	core, err := schema.LoadBytes(officialName(coreRev), coreData, schema.Options{Revision: coreRev})
	if err != nil {
		return nil, err
	}
	data, err := in.extensionBytes(e)
	if err != nil {
		return nil, err
	}
	return schema.LoadExtension(in.name(), data, core, schema.ExtensionOptions{Name: e.Name, Identifier: e.Identifier})
}

// extensionBytes is the extension schema: --schema, or the embedded one.
func (in schemaInput) extensionBytes(e official.Extension) ([]byte, error) {
	if in.path == "" {
		return official.ExtensionSchema(e.Name)
	}
	f, err := openSchema(in)
	if err != nil {
		return nil, err
	}
	return f, nil
}
