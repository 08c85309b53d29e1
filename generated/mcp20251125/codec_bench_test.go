package mcp20251125

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// The per-type codec benchmarks compare the generated codec with
// encoding/json decoding and encoding the same documents into plain structs
// of the same shape (json tags, no methods): what a hand-written binding on
// encoding/json would cost. Compare ns/op and allocs/op within one run.

type jsMeta = map[string]json.RawMessage

type jsCallToolRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      any    `json:"id"`
	Method  string `json:"method"`
	Params  struct {
		Meta      jsMeta `json:"_meta,omitempty"`
		Name      string `json:"name"`
		Arguments jsMeta `json:"arguments,omitempty"`
	} `json:"params"`
}

type jsContent struct {
	Type        string `json:"type"`
	Meta        jsMeta `json:"_meta,omitempty"`
	Text        string `json:"text,omitempty"`
	Data        string `json:"data,omitempty"`
	MIMEType    string `json:"mimeType,omitempty"`
	Annotations *struct {
		Audience []string `json:"audience,omitempty"`
		Priority *float64 `json:"priority,omitempty"`
	} `json:"annotations,omitempty"`
}

type jsCallToolResult struct {
	Meta              jsMeta      `json:"_meta,omitempty"`
	Content           []jsContent `json:"content"`
	IsError           *bool       `json:"isError,omitempty"`
	StructuredContent jsMeta      `json:"structuredContent,omitempty"`
}

type jsCancelledNotification struct {
	JSONRPC string `json:"jsonrpc"`
	Method  string `json:"method"`
	Params  struct {
		RequestID any     `json:"requestId"`
		Reason    *string `json:"reason,omitempty"`
	} `json:"params"`
}

type jsTool struct {
	Name        string  `json:"name"`
	Title       *string `json:"title,omitempty"`
	Description *string `json:"description,omitempty"`
	InputSchema struct {
		Type       string                       `json:"type"`
		Properties map[string]map[string]any    `json:"properties,omitempty"`
		Required   []string                     `json:"required,omitempty"`
		Defs       map[string]json.RawMessage   `json:"$defs,omitempty"`
		Extra      map[string]map[string]string `json:"x,omitempty"`
	} `json:"inputSchema"`
	Annotations *struct {
		ReadOnlyHint *bool `json:"readOnlyHint,omitempty"`
	} `json:"annotations,omitempty"`
}

type jsListToolsResult struct {
	Tools      []jsTool `json:"tools"`
	NextCursor *string  `json:"nextCursor,omitempty"`
}

func listTools(n int) string {
	var b strings.Builder
	b.WriteString(`{"tools":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"name":"tool_%d","title":"Tool %d","description":"Does thing number %d with its input.","inputSchema":{"type":"object","properties":{"text":{"type":"string","description":"what to echo"},"count":{"type":"integer"}},"required":["text"]},"annotations":{"readOnlyHint":true}}`, i, i, i)
	}
	b.WriteString(`],"nextCursor":"page-2"}`)
	return b.String()
}

type codecCase struct {
	name  string
	data  string
	ours  func() interface{ UnmarshalJSON([]byte) error }
	plain func() any
}

var codecCases = []codecCase{
	{"CallToolRequest", `{"jsonrpc":"2.0","id":17,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hello, world"}}}`,
		func() interface{ UnmarshalJSON([]byte) error } { return new(CallToolRequest) }, func() any { return new(jsCallToolRequest) }},
	{"CallToolResult/text", `{"content":[{"type":"text","text":"hello, world"}]}`,
		func() interface{ UnmarshalJSON([]byte) error } { return new(CallToolResult) }, func() any { return new(jsCallToolResult) }},
	{"CallToolResult/image", `{"content":[{"type":"image","data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==","mimeType":"image/png","annotations":{"audience":["user"],"priority":0.5}}]}`,
		func() interface{ UnmarshalJSON([]byte) error } { return new(CallToolResult) }, func() any { return new(jsCallToolResult) }},
	{"CallToolResult/structured", `{"content":[{"type":"text","text":"{\"temperature\":22.5,\"conditions\":\"cloudy\"}"}],"structuredContent":{"temperature":22.5,"conditions":"cloudy","humidity":65}}`,
		func() interface{ UnmarshalJSON([]byte) error } { return new(CallToolResult) }, func() any { return new(jsCallToolResult) }},
	{"CancelledNotification", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":17,"reason":"user pressed stop"}}`,
		func() interface{ UnmarshalJSON([]byte) error } { return new(CancelledNotification) }, func() any { return new(jsCancelledNotification) }},
	{"ListToolsResult/100", listTools(100),
		func() interface{ UnmarshalJSON([]byte) error } { return new(ListToolsResult) }, func() any { return new(jsListToolsResult) }},
}

// TestCodecCasesRoundTrip: the benchmark documents decode and encode
// exactly, through both the codec and the plain structs, so the benchmark
// compares equal work.
func TestCodecCasesRoundTrip(t *testing.T) {
	for _, c := range codecCases {
		v := c.ours()
		if err := v.UnmarshalJSON([]byte(c.data)); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		out, err := json.Marshal(v)
		if err != nil || !jsonEqual(t, out, []byte(c.data)) {
			t.Fatalf("%s: %s %v", c.name, out, err)
		}
		p := c.plain()
		if err := json.Unmarshal([]byte(c.data), p); err != nil {
			t.Fatalf("%s plain: %v", c.name, err)
		}
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return fmt.Sprint(x) == fmt.Sprint(y)
}

func BenchmarkCodec(b *testing.B) {
	for _, c := range codecCases {
		data := []byte(c.data)
		b.Run(c.name+"/decode/mcpgen", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				if err := c.ours().UnmarshalJSON(data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/decode/encoding_json", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				if err := json.Unmarshal(data, c.plain()); err != nil {
					b.Fatal(err)
				}
			}
		})
		ours := c.ours()
		_ = ours.UnmarshalJSON(data)
		m := ours.(json.Marshaler)
		b.Run(c.name+"/encode/mcpgen", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				if _, err := m.MarshalJSON(); err != nil {
					b.Fatal(err)
				}
			}
		})
		plain := c.plain()
		_ = json.Unmarshal(data, plain)
		b.Run(c.name+"/encode/encoding_json", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for i := 0; i < b.N; i++ {
				if _, err := json.Marshal(plain); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
