package main

import (
	"encoding/json"
	"fmt"

	mcp "github.com/mcpgen/mcpgen/generated/mcp20260728"
)

// The fixture's catalogue, as the suite's scenarios describe it: tools,
// prompts, resources and templates, decoded by the generated decoders into
// the generated types once at start (a malformed entry stops the program
// there). They are data rather than Go literals because the suite asks
// for exact JSON Schemas (2020-12 composition, conditionals and $anchor,
// x-mcp-header), which a tool's inputSchema carries as written.

const toolsJSON = `[
 {"name":"test_simple_text","description":"Tests simple text content response","inputSchema":{"type":"object","properties":{}}},
 {"name":"test_image_content","description":"Tests image content response","inputSchema":{"type":"object","properties":{}}},
 {"name":"test_audio_content","description":"Tests audio content response","inputSchema":{"type":"object","properties":{}}},
 {"name":"test_embedded_resource","description":"Tests embedded resource content response","inputSchema":{"type":"object","properties":{}}},
 {"name":"test_multiple_content_types","description":"Tests response with multiple content types (text, image, resource)","inputSchema":{"type":"object","properties":{}}},
 {"name":"test_tool_with_logging","description":"Tests tool that emits log messages during execution","inputSchema":{"type":"object","properties":{}}},
 {"name":"test_tool_with_progress","description":"Tests tool that reports progress notifications","inputSchema":{"type":"object","properties":{}}},
 {"name":"test_error_handling","description":"Tests error response handling","inputSchema":{"type":"object","properties":{}}},
 {"name":"test_reconnection","description":"Tests SSE stream disconnection and client reconnection (SEP-1699)","inputSchema":{"type":"object","properties":{}}},
 {"name":"test_sampling","description":"Tests server-initiated sampling (LLM completion request)","inputSchema":{"type":"object","properties":{"prompt":{"type":"string","description":"The prompt to send to the LLM"}},"required":["prompt"]}},
 {"name":"test_elicitation","description":"Tests server-initiated elicitation (user input request)","inputSchema":{"type":"object","properties":{"message":{"type":"string","description":"The message to show the user"}},"required":["message"]}},
 {"name":"test_elicitation_sep1034_defaults","description":"Tests elicitation with default values per SEP-1034","inputSchema":{"type":"object","properties":{}}},
 {"name":"test_elicitation_sep1330_enums","description":"Tests elicitation with enum schema improvements per SEP-1330","inputSchema":{"type":"object","properties":{}}},
 {"name":"json_schema_2020_12_tool","description":"Tool with JSON Schema 2020-12 features for conformance testing (SEP-1613, SEP-2106)","inputSchema":{
   "$schema":"https://json-schema.org/draft/2020-12/schema","type":"object",
   "$defs":{"address":{"$anchor":"addressDef","type":"object","properties":{"street":{"type":"string"},"city":{"type":"string"}}}},
   "properties":{"name":{"type":"string"},"address":{"$ref":"#/$defs/address"},"contactMethod":{"type":"string","enum":["phone","email"]},"phone":{"type":"string"},"email":{"type":"string"}},
   "allOf":[{"anyOf":[{"required":["phone"]},{"required":["email"]}]}],
   "if":{"properties":{"contactMethod":{"const":"phone"}},"required":["contactMethod"]},"then":{"required":["phone"]},"else":{"required":["email"]},
   "additionalProperties":false}},
 {"name":"test_custom_headers","description":"Echoes a region that the client mirrors into the Mcp-Param-Region header (SEP-2243)","inputSchema":{"type":"object","properties":{"region":{"type":"string","description":"A region name","x-mcp-header":"Region"}},"required":["region"]}},
 {"name":"test_missing_capability","description":"Needs the client's sampling capability: without it the call fails with -32021","inputSchema":{"type":"object","properties":{}}},
 {"name":"test_streaming_elicitation","description":"Asks the client for input through an InputRequiredResult on its response stream","inputSchema":{"type":"object","properties":{}}},
 {"name":"test_logging_tool","description":"Logs at info level, which reaches the client only if its request set a logLevel","inputSchema":{"type":"object","properties":{}}},
 {"name":"test_trigger_tool_change","description":"Announces that the tool list changed (notifications/tools/list_changed)","inputSchema":{"type":"object","properties":{}}},
 {"name":"test_trigger_prompt_change","description":"Announces that the prompt list changed (notifications/prompts/list_changed)","inputSchema":{"type":"object","properties":{}}},
 {"name":"test_input_required_result_elicitation","description":"MRTR: asks for the user's name by elicitation","inputSchema":{"type":"object","properties":{}}},
 {"name":"test_input_required_result_sampling","description":"MRTR: asks for a sampling completion","inputSchema":{"type":"object","properties":{}}},
 {"name":"test_input_required_result_list_roots","description":"MRTR: asks for the client's roots","inputSchema":{"type":"object","properties":{}}},
 {"name":"test_input_required_result_request_state","description":"MRTR: asks for a confirmation and checks its requestState","inputSchema":{"type":"object","properties":{}}},
 {"name":"test_input_required_result_multiple_inputs","description":"MRTR: asks for elicitation, sampling and roots at once","inputSchema":{"type":"object","properties":{}}},
 {"name":"test_input_required_result_multi_round","description":"MRTR: asks in two rounds","inputSchema":{"type":"object","properties":{}}},
 {"name":"test_input_required_result_tampered_state","description":"MRTR: signed requestState; a tampered one is refused","inputSchema":{"type":"object","properties":{}}},
 {"name":"test_input_required_result_capabilities","description":"MRTR: asks only for what the client's capabilities allow","inputSchema":{"type":"object","properties":{}}}
]`

const promptsJSON = `[
 {"name":"test_simple_prompt","title":"Simple Test Prompt","description":"A simple prompt without arguments"},
 {"name":"test_prompt_with_arguments","title":"Prompt With Arguments","description":"A prompt with required arguments","arguments":[
   {"name":"arg1","description":"First test argument","required":true},{"name":"arg2","description":"Second test argument","required":true}]},
 {"name":"test_prompt_with_embedded_resource","title":"Prompt With Embedded Resource","description":"A prompt that includes an embedded resource","arguments":[
   {"name":"resourceUri","description":"URI of the resource to embed","required":true}]},
 {"name":"test_prompt_with_image","title":"Prompt With Image","description":"A prompt that includes image content"},
 {"name":"test_input_required_result_prompt","title":"Prompt Needing Input","description":"MRTR: asks for context by elicitation before answering"}
]`

const resourcesJSON = `[
 {"uri":"test://static-text","name":"static-text","title":"Static Text Resource","description":"A static text resource for testing","mimeType":"text/plain"},
 {"uri":"test://static-binary","name":"static-binary","title":"Static Binary Resource","description":"A static binary resource (image) for testing","mimeType":"image/png"},
 {"uri":"test://watched-resource","name":"watched-resource","title":"Watched Resource","description":"A resource that auto-updates every 3 seconds","mimeType":"text/plain"}
]`

const templatesJSON = `[
 {"uriTemplate":"test://template/{id}/data","name":"template","title":"Resource Template","description":"A resource template with parameter substitution","mimeType":"application/json"}
]`

// catalog is the decoded catalogue.
type catalog struct {
	tools     []mcp.Tool
	prompts   []mcp.Prompt
	resources []mcp.Resource
	templates []mcp.ResourceTemplate
}

func loadCatalog() (*catalog, error) {
	c := &catalog{}
	for _, d := range []struct {
		name string
		src  string
		dst  any
	}{{"tools", toolsJSON, &c.tools}, {"prompts", promptsJSON, &c.prompts}, {"resources", resourcesJSON, &c.resources}, {"templates", templatesJSON, &c.templates}} {
		if err := json.Unmarshal([]byte(d.src), d.dst); err != nil {
			return nil, fmt.Errorf("catalogue %s: %w", d.name, err)
		}
	}
	return c, nil
}
