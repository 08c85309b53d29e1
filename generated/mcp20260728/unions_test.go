package mcp20260728

import (
	"encoding/json"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpgen/mcpgen/internal/testsupport/modeltest"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
)

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func assertJSONEqual(t *testing.T, in, out []byte) {
	t.Helper()
	if err := modeltest.Equal(in, out); err != nil {
		t.Errorf("%v\nin:  %s\nout: %s", err, in, out)
	}
}

// TestDiscriminatedUnions: each "type", "method" and "mode" value decodes
// to its own concrete type, also inside slices and maps of unions.
func TestDiscriminatedUnions(t *testing.T) {
	blocks := map[string]any{
		`{"type":"text","text":"hi"}`:                                      &TextContent{},
		`{"type":"image","data":"aGk=","mimeType":"image/png"}`:            &ImageContent{},
		`{"type":"audio","data":"aGk=","mimeType":"audio/wav"}`:            &AudioContent{},
		`{"type":"resource_link","name":"n","uri":"file:///a"}`:            &ResourceLink{},
		`{"type":"resource","resource":{"uri":"file:///a","text":"body"}}`: &EmbeddedResource{},
	}
	for in, want := range blocks {
		v, err := DecodeContentBlock([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if reflect.TypeOf(v) != reflect.TypeOf(want) {
			t.Errorf("%s decoded to %T, want %T", in, v, want)
		}
		if tag := in[len(`{"type":"`):strings.Index(in, `",`)]; v.Type() != tag {
			t.Errorf("%s: Type() = %q", in, v.Type())
		}
		assertJSONEqual(t, []byte(in), mustJSON(t, v))
	}

	// In a slice: CallToolResult.content.
	var r CallToolResult
	in := `{"resultType":"complete","content":[{"type":"text","text":"a"},{"type":"image","data":"aGk=","mimeType":"image/png"}]}`
	if err := json.Unmarshal([]byte(in), &r); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Content[0].(*TextContent); !ok {
		t.Errorf("content[0] is %T", r.Content[0])
	}
	if img, ok := r.Content[1].(*ImageContent); !ok || img.MIMEType != "image/png" {
		t.Errorf("content[1] is %#v", r.Content[1])
	}
	assertJSONEqual(t, []byte(in), mustJSON(t, r))

	// By method: ClientRequest.
	req, err := DecodeClientRequest([]byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	call, ok := req.(*CallToolRequest)
	if !ok {
		t.Fatalf("tools/call decoded to %T", req)
	}
	if call.Method() != "tools/call" || call.Params.Name != "x" || call.ID != jsonrpc2.Int64ID(7) {
		t.Errorf("decoded %+v", call)
	}

	// In a map: InputRequests (method-discriminated values).
	var irs InputRequests
	if err := json.Unmarshal([]byte(`{"a":{"method":"roots/list"},"b":{"method":"elicitation/create","params":{"mode":"url","message":"m","url":"https://example.com","elicitationId":"e"}}}`), &irs); err != nil {
		t.Fatal(err)
	}
	if _, ok := irs["a"].(*ListRootsRequest); !ok {
		t.Errorf(`irs["a"] is %T`, irs["a"])
	}
	el, ok := irs["b"].(*ElicitRequest)
	if !ok {
		t.Fatalf(`irs["b"] is %T`, irs["b"])
	}
	if _, ok := el.Params.(*ElicitRequestURLParams); !ok {
		t.Errorf(`mode "url" decoded to %T`, el.Params)
	}
}

// TestOptionalDiscriminator: ElicitRequestParams without "mode" is the
// form branch and re-encodes without "mode"; with "mode":"form" it keeps it.
func TestOptionalDiscriminator(t *testing.T) {
	for _, in := range []string{
		`{"message":"m","requestedSchema":{"type":"object","properties":{}}}`,
		`{"mode":"form","message":"m","requestedSchema":{"type":"object","properties":{}}}`,
	} {
		v, err := DecodeElicitRequestParams([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		form, ok := v.(*ElicitRequestFormParams)
		if !ok {
			t.Fatalf("%s decoded to %T", in, v)
		}
		if form.HasMode != strings.Contains(in, "mode") {
			t.Errorf("%s: HasMode = %v", in, form.HasMode)
		}
		assertJSONEqual(t, []byte(in), mustJSON(t, v))
	}
}

// TestUnknownDiscriminatorKeptRaw: an unknown discriminator value decodes
// to the Unknown variant and re-encodes byte for byte, alone and inside a
// containing struct.
func TestUnknownDiscriminatorKeptRaw(t *testing.T) {
	in := []byte(`{"type":"hologram","frames":[1,2.50,{"z":null}],"note":"kept as is"}`)
	v, err := DecodeContentBlock(in)
	if err != nil {
		t.Fatal(err)
	}
	u, ok := v.(*UnknownContentBlock)
	if !ok {
		t.Fatalf("decoded to %T", v)
	}
	if u.Type() != "hologram" {
		t.Errorf("Type() = %q", u.Type())
	}
	out, err := u.MarshalJSON()
	if err != nil || string(out) != string(in) {
		t.Errorf("re-encoded %s, %v; want %s", out, err, in)
	}
	if out, _ := json.Marshal(v); string(out) != string(in) {
		t.Errorf("json.Marshal gave %s, want %s", out, in)
	}
	// Inside a result.
	doc := `{"resultType":"complete","content":[{"type":"text","text":"a"},` + string(in) + `]}`
	var r CallToolResult
	if err := json.Unmarshal([]byte(doc), &r); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Content[1].(*UnknownContentBlock); !ok {
		t.Errorf("content[1] is %T", r.Content[1])
	}
	if out := mustJSON(t, r); !strings.Contains(string(out), string(in)) {
		t.Errorf("unknown block changed: %s", out)
	}
	// An unknown method in a direction union is kept too.
	req, err := DecodeClientRequest([]byte(`{"jsonrpc":"2.0","id":"x","method":"future/thing"}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := req.(*UnknownClientRequest); !ok || req.Method() != "future/thing" {
		t.Errorf("future/thing decoded to %T", req)
	}
	// A missing discriminator is an error naming it.
	_, err = DecodeContentBlock([]byte(`{"text":"no type"}`))
	var de *DecodeError
	if !errors.As(err, &de) || de.Member != "type" {
		t.Errorf("missing type: %v", err)
	}
}

// TestResultTypeUnion: "input_required" selects InputRequiredResult; any
// other value, or none, the complete result.
func TestResultTypeUnion(t *testing.T) {
	cases := map[string]any{
		`{"resultType":"input_required","inputRequests":{"a":{"method":"roots/list"}}}`: &InputRequiredResult{},
		`{"resultType":"complete","content":[]}`:                                        &CallToolResult{},
		`{"resultType":"something-new","content":[]}`:                                   &CallToolResult{},
	}
	for in, want := range cases {
		v, err := DecodeCallToolResultResponseResult([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if reflect.TypeOf(v) != reflect.TypeOf(want) {
			t.Errorf("%s decoded to %T, want %T", in, v, want)
		}
		assertJSONEqual(t, []byte(in), mustJSON(t, v))
	}
}

// TestSingleOrArray: SamplingMessage.content remembers whether it was one
// block or an array of blocks.
func TestSingleOrArray(t *testing.T) {
	for _, in := range []string{
		`{"role":"user","content":{"type":"text","text":"one"}}`,
		`{"role":"user","content":[{"type":"text","text":"one"},{"type":"tool_use","id":"t","name":"n","input":{}}]}`,
		`{"role":"user","content":[]}`,
	} {
		var m SamplingMessage
		if err := json.Unmarshal([]byte(in), &m); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		_, isArray := m.Content.(SamplingMessageContentArray)
		if isArray != strings.Contains(in, `"content":[`) {
			t.Errorf("%s decoded to %T", in, m.Content)
		}
		assertJSONEqual(t, []byte(in), mustJSON(t, m))
	}
}

// TestStructuralUnion: the enum schemas share "type":"string"/"array";
// nested required members and the fewest undeclared members decide.
func TestStructuralUnion(t *testing.T) {
	cases := map[string]any{
		`{"type":"string"}`:                                                         &StringSchema{},
		`{"type":"number","minimum":0}`:                                             &NumberSchema{},
		`{"type":"integer"}`:                                                        &NumberSchema{},
		`{"type":"boolean","default":false}`:                                        &BooleanSchema{},
		`{"type":"string","enum":["a","b"]}`:                                        &UntitledSingleSelectEnumSchema{},
		`{"type":"string","enum":["a","b"],"enumNames":["A","B"]}`:                  &LegacyTitledEnumSchema{},
		`{"type":"string","oneOf":[{"const":"a","title":"A"}]}`:                     &TitledSingleSelectEnumSchema{},
		`{"type":"array","items":{"type":"string","enum":["a"]}}`:                   &UntitledMultiSelectEnumSchema{},
		`{"type":"array","items":{"anyOf":[{"const":"a","title":"A"}]}}`:            &TitledMultiSelectEnumSchema{},
		`{"type":"array","items":{"anyOf":[{"const":"a","title":"A"}]},"x-y":true}`: &TitledMultiSelectEnumSchema{},
	}
	for in, want := range cases {
		v, err := DecodePrimitiveSchemaDefinition([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if reflect.TypeOf(v) != reflect.TypeOf(want) {
			t.Errorf("%s decoded to %T, want %T", in, v, want)
		}
		assertJSONEqual(t, []byte(in), mustJSON(t, v))
	}
	if _, err := DecodePrimitiveSchemaDefinition([]byte(`{"type":"date"}`)); err == nil {
		t.Error(`{"type":"date"} decoded without error`)
	}
}

// TestRequiredKeyAndKindUnions: text vs blob by key; elicitation values by
// JSON kind; the JSON-RPC envelope by member presence.
func TestRequiredKeyAndKindUnions(t *testing.T) {
	res, err := DecodeEmbeddedResourceObject([]byte(`{"uri":"file:///a","blob":"aGk="}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := res.(*BlobResourceContents); !ok {
		t.Errorf("blob decoded to %T", res)
	}
	var er ElicitResult
	// Numbers by their literal (the schema erratum adds the number branch):
	// 3 is an integer, 3.0 and 95.5 numbers, and each is written back as
	// it came.
	in := `{"action":"accept","content":{"s":"x","n":3,"m":3.0,"f":95.5,"b":false,"l":["a","b"]}}`
	if err := json.Unmarshal([]byte(in), &er); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"s": ElicitResultContentValueString("x"), "n": ElicitResultContentValueInteger(3), "m": ElicitResultContentValueNumber(3),
		"f": ElicitResultContentValueNumber(95.5), "b": ElicitResultContentValueBoolean(false), "l": ElicitResultContentValueArray{"a", "b"}}
	for k, w := range want {
		if !reflect.DeepEqual(er.Content[k], w) {
			t.Errorf("content[%s] = %#v, want %#v", k, er.Content[k], w)
		}
	}
	out := mustJSON(t, er)
	assertJSONEqual(t, []byte(in), out)
	for _, lit := range []string{`"n":3,`, `"m":3.0,`, `"f":95.5,`} {
		if !strings.Contains(string(out), lit) {
			t.Errorf("re-encoded %s lacks %s", out, lit)
		}
	}

	msgs := map[string]any{
		`{"jsonrpc":"2.0","id":"1","method":"m"}`:                           &JSONRPCRequest{},
		`{"jsonrpc":"2.0","method":"m"}`:                                    &JSONRPCNotification{},
		`{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}`:       &JSONRPCResultResponse{},
		`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"nope"}}`: &JSONRPCErrorResponse{},
	}
	for in, want := range msgs {
		v, err := DecodeJSONRPCMessage([]byte(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if reflect.TypeOf(v) != reflect.TypeOf(want) {
			t.Errorf("%s decoded to %T, want %T", in, v, want)
		}
		assertJSONEqual(t, []byte(in), mustJSON(t, v))
	}
}

// TestIDsExact: id 1 and "1" stay apart, integers beyond 2^53 survive,
// fractions and other kinds are refused with an error naming the member.
func TestIDsExact(t *testing.T) {
	for _, in := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"m"}`,
		`{"jsonrpc":"2.0","id":"1","method":"m"}`,
		`{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"m"}`,
	} {
		var r JSONRPCRequest
		if err := json.Unmarshal([]byte(in), &r); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		out := mustJSON(t, r)
		assertJSONEqual(t, []byte(in), out)
		id := in[strings.Index(in, `"id":`):strings.Index(in, `,"method"`)]
		if !strings.Contains(string(out), id) {
			t.Errorf("%s re-encoded as %s", in, out)
		}
	}
	for _, bad := range []string{`1.5`, `true`, `null`, `{}`} {
		var r JSONRPCRequest
		err := json.Unmarshal([]byte(`{"jsonrpc":"2.0","method":"m","id":`+bad+`}`), &r)
		var de *DecodeError
		if !errors.As(err, &de) || de.Member != "id" {
			t.Errorf("id %s: %v", bad, err)
		}
	}
}

// TestConstMembers: constants are written on encode, and a wrong or
// missing one is a decode error naming the member.
func TestConstMembers(t *testing.T) {
	out := mustJSON(t, cancelledValue())
	if !strings.Contains(string(out), `"method":"notifications/cancelled"`) || !strings.Contains(string(out), `"jsonrpc":"2.0"`) {
		t.Errorf("constants not written: %s", out)
	}
	for _, bad := range []string{
		`{"jsonrpc":"1.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","params":{"requestId":1}}`,
	} {
		var n CancelledNotification
		err := json.Unmarshal([]byte(bad), &n)
		var de *DecodeError
		if !errors.As(err, &de) || (de.Member != "jsonrpc" && de.Member != "method") {
			t.Errorf("%s: %v", bad, err)
		}
	}
}

// cancelledValue builds a notification with only its settable fields.
func cancelledValue() CancelledNotification {
	return CancelledNotification{Params: CancelledNotificationParams{RequestID: jsonrpc2.StringID("r")}}
}

// TestExplicitZeros: explicit false, 0, {} and [] survive; absent stays
// absent.
func TestExplicitZeros(t *testing.T) {
	for name, in := range map[string]string{
		"CallToolResult":     `{"resultType":"complete","content":[],"isError":false}`,
		"ClientCapabilities": `{"roots":{},"sampling":{}}`,
		"NumberSchema":       `{"type":"number","minimum":0,"maximum":0}`,
		"CompleteResult":     `{"resultType":"complete","ttlMs":0,"cacheScope":"private","completion":{"values":[],"hasMore":false,"total":0}}`,
	} {
		v, err := DecodeDefinition(name, []byte(in))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		assertJSONEqual(t, []byte(in), mustJSON(t, v))
	}
}

// TestIntegers: JSON Schema's integer admits 100.0 and 1e2; a fraction is
// an error naming the member; an id stays strict (JSON-RPC).
func TestIntegers(t *testing.T) {
	for _, in := range []string{`100`, `100.0`, `1e2`} {
		var p CreateMessageRequestParams
		doc := `{"messages":[],"maxTokens":` + in + `}`
		if err := json.Unmarshal([]byte(doc), &p); err != nil {
			t.Fatalf("%s: %v", doc, err)
		}
		if p.MaxTokens != 100 {
			t.Errorf("%s: maxTokens = %d", doc, p.MaxTokens)
		}
		assertJSONEqual(t, []byte(doc), mustJSON(t, p))
	}
	for _, in := range []string{`100.5`, `"100"`, `1e30`, `null`} {
		var p CreateMessageRequestParams
		err := json.Unmarshal([]byte(`{"messages":[],"maxTokens":`+in+`}`), &p)
		var de *DecodeError
		if !errors.As(err, &de) || de.Member != "maxTokens" {
			t.Errorf("maxTokens %s: %v", in, err)
		}
	}
}

// FuzzElicitContentValue: the integer/number union decodes an integer
// literal to the Integer branch and any other number to the Number branch;
// what it writes decodes back to the same branch and value, and equals the
// input as a number.
func FuzzElicitContentValue(f *testing.F) {
	for _, s := range []string{`0`, `-7`, `95.5`, `3.0`, `1e3`, `-0.0`, `9223372036854775807`, `9223372036854775808`, `1e-7`, `1e400`, `"x"`, `true`, `["a"]`, `{}`, `01`, `1.`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		v, err := DecodeElicitResultContentValue([]byte(in))
		if err != nil {
			return
		}
		switch v.(type) {
		case ElicitResultContentValueInteger:
			if !genimplIsInt64Literal(in) {
				t.Fatalf("%s decoded to the Integer branch", in)
			}
		case ElicitResultContentValueNumber:
			if genimplIsInt64Literal(in) {
				t.Fatalf("%s decoded to the Number branch", in)
			}
		}
		out, err := json.Marshal(v)
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		back, err := DecodeElicitResultContentValue(out)
		if err != nil {
			t.Fatalf("%s -> %s: %v", in, out, err)
		}
		if !reflect.DeepEqual(back, v) {
			t.Fatalf("%s -> %s -> %#v, want %#v", in, out, back, v)
		}
		if _, isNumber := v.(ElicitResultContentValueNumber); !isNumber {
			assertJSONEqual(t, []byte(in), out)
		} else if err := modeltest.Equal([]byte(in), out); err != nil {
			// float64 rounds: 0.1000000000000000000001 is written 0.1.
			var a, b float64
			if json.Unmarshal([]byte(in), &a) != nil || json.Unmarshal(out, &b) != nil || a != b {
				t.Fatalf("%s -> %s: %v", in, out, err)
			}
		}
	})
}

// genimplIsInt64Literal restates genimpl.IsInt64Literal for the fuzz
// oracle, independently: digits with an optional minus, within int64.
func genimplIsInt64Literal(s string) bool {
	s = strings.TrimSpace(s)
	if strings.ContainsAny(s, ".eE\"") {
		return false
	}
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}
