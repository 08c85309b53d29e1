// Package generator turns a schema.Model into the Go source of one package
// of MCP bindings.
//
// This comment records the choices types.go and types_json.go are built on; the
// other output files document themselves.
//
// # Names
//
// Every definition becomes a Go type, or a type alias, with the
// definition's own name (TypeName): CallToolRequest, CancelledNotification,
// CallToolRequestParams. Members get Go names by FieldName, with Go's
// initialisms: requestId → RequestID, _meta → Meta, uri → URI, mimeType →
// MIMEType, and a reserved key io.modelcontextprotocol/clientInfo → ClientInfo.
//
// An anonymous object or union inside a definition is named by InlineName:
// the Go name of the type that holds it followed by the member's Go name,
// recursively. So the inline params of a 2024-11-05 request are
// CallToolRequestParams, exactly the name 2025-11-25 gives the definition,
// and 2024-11-05's CompleteRequest.params.ref is CompleteRequestParamsRef.
// An array's element type adds "Item" (CallToolResultContentItem), a map's
// value type adds "Value" (ElicitResultContentValue). When the name is
// already taken by a definition or an earlier inline type the suffix
// "Inline" is added; a second collision is a generation error (no numeric
// suffixes that move when the schema changes). No official revision has a
// collision.
//
// A union branch that is not a reference is a type named after the union
// and the branch's JSON kind: SamplingMessageContentArray,
// ElicitResultContentValueString; when two branches share a kind they are
// numbered in schema order (2025-03-26 JSONRPCMessageArray1, …Array2).
//
// # Types
//
//	schema                              Go
//	string (also enum, format)          string (a definition with an enum
//	                                    gets a named type and constants, an
//	                                    inline enum untyped constants named
//	                                    <Type><Field><Value>)
//	integer                             int64
//	number                              float64
//	boolean                             bool
//	{} or description only              json.RawMessage (exact bytes kept)
//	object with properties              struct
//	object without properties           map[string]V (V = json.RawMessage
//	                                    when additionalProperties is absent,
//	                                    true or {})
//	array                               []T
//	$ref                                the definition's type
//	$ref-only definition (EmptyResult)  type alias (type EmptyResult = Result)
//	RequestId, ProgressToken            aliases of jsonrpc2.RequestID, which
//	                                    keeps "1" and 1 apart, keeps integers
//	                                    beyond 2^53 and refuses fractions,
//	                                    booleans, null and objects
//	JSONValue (2026-07-28)              json.RawMessage: the schema drops the
//	                                    null and fractions the TypeScript
//	                                    admits, and the type is recursive
//
// integer is int64 even where the TypeScript said number (schema-notes
// H8): a fraction where the schema says integer is a decode error, as
// jsonschema/v5 would report it, while 100.0 and 1e2, which JSON Schema
// counts as integers, decode (and re-encode as 100). Ids stay strict: the
// runtime's RequestID accepts integer literals only, as JSON-RPC expects.
//
// A required member is a value; a nullable required member
// (["integer","null"], 2025-11-25 Task.ttl) is a pointer without omitempty,
// nil ↔ null. An optional scalar, struct or id is a pointer with
// omitempty. An optional slice, map or raw value has omitzero: nil is
// absent, while an explicit [] or {} is kept. So false, 0, "", {} and []
// all survive a round trip. A required slice or map that is nil encodes as
// [] or {}, never null.
//
// # Unknown members
//
// The schemas never say additionalProperties: false, so every object is
// open. Every struct has Extra map[string]json.RawMessage (json:"-"):
// UnmarshalJSON keeps every member it does not declare there, exactly as
// received, and MarshalJSON writes them back, sorted, after the declared
// members (a key already written is never repeated).
//
// # Encoding and decoding
//
// Every struct has a generated MarshalJSON (value receiver) and
// UnmarshalJSON (pointer receiver). Decoding splits the object into its
// members and decodes member by member: the member name must match exactly
// (encoding/json's case-insensitive matching is not used), a required
// member must be present, null is refused unless the schema admits it, and
// the first problem is returned as a *DecodeError naming the Go type and
// the member; nested errors read as a path.
//
// A const member (method, jsonrpc, type, mode, an error's code) is not a
// field: it is written on encode, checked on decode (a wrong or missing
// value is a DecodeError naming the member), and readable through a method
// of the member's Go name (CallToolRequest.Method(), TextContent.Type(),
// InternalError.Code()). The one optional const, ElicitRequestFormParams.mode,
// is a HasMode bool, so a value decoded without "mode" re-encodes without it.
//
// # Unions
//
// A union is a sealed interface (an unexported marker method, implemented
// by pointers to the branch structs; a discriminated union's interface also
// has the discriminator's accessor, so ContentBlock.Type() and
// ClientRequest.Method() need no type switch), decoded by Decode<Union> and by the
// UnmarshalJSON of every struct, slice type and map type that holds one,
// with the strategy the Model chose (schema.Strategy):
//
//   - discriminator: the value of a const member (type, method, mode)
//     picks the branch. A value no branch declares decodes to
//     Unknown<Union>{Raw}, which re-encodes byte for byte; a branch whose
//     discriminator is optional (ElicitRequestFormParams.mode) takes its
//     absence. 2026-07-28's InputRequiredResult | XResult pairs switch on
//     resultType: "input_required" is InputRequiredResult, any other value
//     or none the complete result, as the spec says.
//   - required-key: the branch whose unique required member is present
//     (text vs blob; InputResponse's model/roots/action).
//   - json-kind: the value's JSON kind, then the discriminator for object
//     branches. T | T[] (SamplingMessage.content from 2025-11-25) decodes
//     to the single block or to the array type, so it re-encodes in the
//     shape it came in.
//   - structural (the elicitation enum schemas): the branches' shapes are
//     tried in the Model's order; a branch matches when its required
//     members are present, its const and enum members have allowed values
//     and its nested required objects match too (so TitledMultiSelect and
//     UntitledMultiSelect differ by items.anyOf vs items.enum); among
//     matching branches the one with the fewest undeclared members wins
//     (enumNames selects LegacyTitledEnumSchema).
//   - envelope (JSONRPCMessage): method and id → request, method alone →
//     notification, result → result response, error → error response; a
//     2025-03-26 batch array is tried as each batch type in turn.
//   - by-method (ServerResult, ClientResult): the members overlap (Result
//     matches every object), so the value is not guessed. The type is a
//     struct holding the raw JSON, with one accessor per member result
//     (ServerResult.CallToolResult()) for the caller who knows the method,
//     and New<Union> to build one.
//
// # Other output
//
// The codec support lives once, in runtime/genimpl (as protobuf-go's
// generated code calls protoimpl): the one-pass scanner, the Decoder and
// Encoder the methods of types.go call, and the validator scanner of
// cancel.go. types_json.go only names genimpl's DecodeError for the package;
// cancel.go names its ValidationError and gives the validators a receiver.
// DecodeDefinition(name, data) decodes any definition by its schema name.
// Doc comments are the schema's descriptions line by line; {@link X}
// becomes the Go doc link [X], and the TypeScript glitch {@link Xlabel}
// (the label glued to the target) is repaired by the longest definition
// name that prefixes it: [SubscriptionsListenRequest] (subscriptions/listen).
// Every exported identifier has a doc comment.
//
// A construct the emitter cannot represent exactly (an optional nullable
// member, declared properties with typed additionalProperties, a union
// branch that is itself a union, …) is a generation error naming the JSON
// pointer, never a silent any.
package generator
