package generator

import (
	"github.com/dave/jennifer/jen"
)

// revisionFacts are the members of the generated Revision() that come from
// the revision's facts (schema.Model.Facts: the lifecycle methods its
// schema defines, the HTTP headers of the revision table, the members
// Mcp-Name mirrors, the requests it removed, SSE priming and core tasks),
// so the runtime learns them through the generated code
// instead of keeping its own literals. Empty facts are left out.
func revisionFacts(g *gen) jen.Dict {
	d := jen.Dict{}
	strs := func(field string, list []string) {
		if len(list) == 0 {
			return
		}
		var vals []jen.Code
		for _, s := range list {
			vals = append(vals, jen.Lit(s))
		}
		d[jen.Id(field)] = jen.Index().String().Values(vals...)
	}
	strs("Lifecycle", g.m.Facts.Lifecycle)
	strs("HTTPHeaders", g.m.Facts.Headers)
	if len(g.m.Facts.NameHeader) > 0 {
		names := jen.Dict{}
		for method, member := range g.m.Facts.NameHeader {
			names[jen.Lit(method)] = jen.Lit(member)
		}
		d[jen.Id("HTTPNameMembers")] = jen.Map(jen.String()).String().Values(names)
	}
	strs("RemovedMethods", g.m.Facts.RemovedMethods)
	if g.m.Facts.SSEPriming {
		d[jen.Id("SSEPriming")] = jen.True()
	}
	if g.m.Facts.CoreTasks {
		d[jen.Id("CoreTasks")] = jen.True()
	}
	return d
}
