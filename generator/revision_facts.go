package generator

import (
	"github.com/dave/jennifer/jen"
)

// revisionFacts are the members of the generated Revision() that come from
// the revision's facts (schema.Model.Facts: the lifecycle methods its
// schema defines, the HTTP headers of the revision table), so the runtime
// learns them through the generated code instead of keeping its own
// literals.
func revisionFacts(g *gen) jen.Dict {
	lits := func(list []string) jen.Code {
		if len(list) == 0 {
			return jen.Nil()
		}
		var vals []jen.Code
		for _, s := range list {
			vals = append(vals, jen.Lit(s))
		}
		return jen.Index().String().Values(vals...)
	}
	return jen.Dict{
		jen.Id("Lifecycle"):   lits(g.m.Facts.Lifecycle),
		jen.Id("HTTPHeaders"): lits(g.m.Facts.Headers),
	}
}
