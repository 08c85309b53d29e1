package generator

import (
	"github.com/dave/jennifer/jen"

	"github.com/mcpgen/mcpgen/schema"
)

func init() { register("results.go", emitResults) }

// emitResults writes results.go: constructors for the tool results
// handlers return most (text, image, embedded resource, structured
// content, tool error), so that no handler spells a content union or takes
// the address of a bool.
func emitResults(g *gen, f *jen.File) (bool, error) {
	if g.m.Definition("CallToolResult") == nil || g.m.Definition("TextContent") == nil {
		return false, nil
	}
	item := "ContentBlock"
	if g.m.Definition(item) == nil {
		item = "CallToolResultContentItem"
	}
	result := func(block jen.Code) jen.Code {
		return jen.Return(jen.Op("&").Id("CallToolResult").Values(jen.Dict{
			jen.Id("Content"): jen.Index().Id(item).Values(block),
		}))
	}
	f.Comment("TextResult returns a tool result with one text content block.")
	f.Func().Id("TextResult").Params(jen.Id("text").String()).Op("*").Id("CallToolResult").Block(
		result(jen.Op("&").Id("TextContent").Values(jen.Dict{jen.Id("Text"): jen.Id("text")})),
	)
	f.Comment("ToolError returns the result of a tool that failed: isError true and the")
	f.Comment("error's text, which the model sees (tools.mdx: tool errors are reported in")
	f.Comment("the result, not as protocol errors). Return it with a nil error.")
	f.Func().Id("ToolError").Params(jen.Id("err").Error()).Op("*").Id("CallToolResult").Block(
		jen.Id("r").Op(":=").Id("TextResult").Call(jen.Id("err").Dot("Error").Call()),
		jen.Id("isError").Op(":=").True(),
		jen.Id("r").Dot("IsError").Op("=").Op("&").Id("isError"),
		jen.Return(jen.Id("r")),
	)
	if g.m.Definition("ImageContent") != nil {
		f.Comment("ImageResult returns a tool result with one image (data is the raw bytes;")
		f.Comment("they are base64-encoded here).")
		f.Func().Id("ImageResult").Params(jen.Id("data").Index().Byte(), jen.Id("mimeType").String()).Op("*").Id("CallToolResult").Block(
			result(jen.Op("&").Id("ImageContent").Values(jen.Dict{
				jen.Id("Data"):     jen.Qual("encoding/base64", "StdEncoding").Dot("EncodeToString").Call(jen.Id("data")),
				jen.Id("MIMEType"): jen.Id("mimeType"),
			})),
		)
	}
	if g.m.Definition("EmbeddedResource") != nil && g.m.Definition("TextResourceContents") != nil {
		f.Comment("EmbeddedTextResult returns a tool result embedding a text resource.")
		f.Func().Id("EmbeddedTextResult").Params(jen.List(jen.Id("uri"), jen.Id("mimeType"), jen.Id("text")).String()).Op("*").Id("CallToolResult").Block(
			result(jen.Op("&").Id("EmbeddedResource").Values(jen.Dict{
				jen.Id("Resource"): jen.Op("&").Id("TextResourceContents").Values(jen.Dict{
					jen.Id("URI"): jen.Id("uri"), jen.Id("MIMEType"): jen.Op("&").Id("mimeType"), jen.Id("Text"): jen.Id("text"),
				}),
			})),
		)
	}
	if t := g.resolve(g.m.Definition("CallToolResult").Type); t != nil && hasProperty(t.Properties, "structuredContent") {
		f.Comment("StructuredResult returns a tool result whose structuredContent is v (a")
		f.Comment("struct or map that encodes to a JSON object) and, for clients that read")
		f.Comment("only content, the same JSON as text (tools.mdx SHOULD).")
		f.Func().Id("StructuredResult").Params(jen.Id("v").Any()).Params(jen.Op("*").Id("CallToolResult"), jen.Error()).Block(
			jen.List(jen.Id("raw"), jen.Err()).Op(":=").Qual("encoding/json", "Marshal").Call(jen.Id("v")),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
			jen.Id("r").Op(":=").Id("TextResult").Call(jen.String().Parens(jen.Id("raw"))),
			jen.If(jen.Err().Op(":=").Qual("encoding/json", "Unmarshal").Call(jen.Id("raw"), jen.Op("&").Id("r").Dot("StructuredContent")), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Err()),
			),
			jen.Return(jen.Id("r"), jen.Nil()),
		)
	}
	return true, nil
}

func hasProperty(ps []*schema.Property, name string) bool {
	for _, p := range ps {
		if p.Name == name {
			return true
		}
	}
	return false
}
