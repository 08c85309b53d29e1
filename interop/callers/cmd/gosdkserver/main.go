// Command gosdkserver is a go-sdk (github.com/modelcontextprotocol/go-sdk)
// server over stdio with tools of its own, typed the go-sdk way (input and
// output structs whose schemas jsonschema-go infers), for mcpgen's callers
// suite: mcpgen snapshots it, generates typed callers and calls every tool.
package main

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// AddIn are add's arguments.
type AddIn struct {
	A int `json:"a" jsonschema:"the first addend"`
	B int `json:"b" jsonschema:"the second addend"`
}

// AddOut is add's result.
type AddOut struct {
	Sum int `json:"sum"`
}

// Item is one line of an order.
type Item struct {
	SKU      string  `json:"sku"`
	Quantity int     `json:"quantity"`
	Price    float64 `json:"price,omitempty"`
}

// OrderIn are order's arguments: nested structs, a slice, an optional
// field, a map.
type OrderIn struct {
	Customer string            `json:"customer"`
	Items    []Item            `json:"items"`
	Note     *string           `json:"note,omitempty"`
	Tags     map[string]string `json:"tags,omitempty"`
}

// OrderOut is order's result.
type OrderOut struct {
	Lines int     `json:"lines"`
	Total float64 `json:"total"`
}

// ShoutIn are shout's arguments.
type ShoutIn struct {
	Text string `json:"text"`
}

func main() {
	server := mcp.NewServer(&mcp.Implementation{Name: "gosdk-own", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "add", Description: "Adds two integers."},
		func(_ context.Context, _ *mcp.CallToolRequest, in AddIn) (*mcp.CallToolResult, AddOut, error) {
			return nil, AddOut{Sum: in.A + in.B}, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "order", Description: "Totals an order."},
		func(_ context.Context, _ *mcp.CallToolRequest, in OrderIn) (*mcp.CallToolResult, OrderOut, error) {
			if len(in.Items) == 0 {
				return nil, OrderOut{}, fmt.Errorf("an order needs items")
			}
			var out OrderOut
			for _, it := range in.Items {
				out.Lines++
				out.Total += float64(it.Quantity) * it.Price
			}
			return nil, out, nil
		})
	mcp.AddTool(server, &mcp.Tool{Name: "shout", Description: "Upper-cases text (no output schema)."},
		func(_ context.Context, _ *mcp.CallToolRequest, in ShoutIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.ToUpper(in.Text)}}}, nil, nil
		})
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
