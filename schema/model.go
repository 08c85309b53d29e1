// Package schema loads an official MCP schema.json of any revision, compiles
// it with jsonschema/v5 and builds the Model: the intermediate representation
// the generator turns into Go.
//
// The Model speaks JSON Schema and MCP, never Go: names are the schema's own
// definition and property names, and places are JSON pointers into the file.
package schema

// Model is everything the generator needs to know about one schema revision.
type Model struct {
	// Revision is the protocol revision, e.g. "2025-11-25".
	Revision string `json:"revision"`
	// Dialect is "draft-07" or "2020-12".
	Dialect string `json:"dialect"`
	// DefsKey is the key that holds the definitions: "definitions" or "$defs".
	DefsKey string `json:"defsKey"`
	// SHA256 is the hex digest of the schema file's bytes.
	SHA256 string `json:"sha256"`
	// Definitions holds every definition of the schema, sorted by name.
	Definitions []*Definition `json:"definitions"`
	// Methods holds every request and notification method, sorted by
	// kind, then method name.
	Methods []*Method `json:"methods"`
	// Unions holds every anyOf (and every multi-kind type array) in the
	// schema with the decoding strategy chosen for it, sorted by pointer.
	Unions []*Union `json:"unions"`
	// Facts are the revision's cancellation and lifecycle rules: derived
	// from the schema where it can be, from the revision table
	// (revisions.go) where it cannot.
	Facts Facts `json:"facts"`
	// Omitted lists definitions that deliberately get no type of their own,
	// with the reason. It is empty for every official revision.
	Omitted []Omission `json:"omitted,omitempty"`
	// Errata lists the corrections made to the official schema where a
	// specification page contradicts it (see errata.go). The Model and the
	// compiled schema both describe the corrected document.
	Errata []Erratum `json:"errata,omitempty"`

	// Extension is set on the Model of an extension schema composed with
	// its core revision (LoadExtension); nil for a core revision.
	Extension *Extension `json:"extension,omitempty"`

	byName map[string]*Definition // see Definition
	// defDigests are the canonical digests of each definition's schema as
	// written (a definition-level $schema aside), so an extension's copy
	// of a core definition can be recognised as that definition.
	defDigests map[string]string
}

// Omission names a definition left out of the generated package and why.
type Omission struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// Definition is one entry of the schema's definitions.
type Definition struct {
	// Name is the definition's key, e.g. "CallToolRequest".
	Name string `json:"name"`
	// Pointer is its JSON pointer, e.g. "#/$defs/CallToolRequest".
	Pointer string `json:"pointer"`
	// Description is the definition's description, verbatim (the same as
	// Type.Description, so the dump shows it once).
	Description string `json:"-"`
	// Type is the definition's schema. A pure alias (EmptyResult) has
	// Kind KindRef.
	Type *Type `json:"type"`
}

// Kind is the shape of a schema node after normalisation.
type Kind string

// The kinds of schema nodes.
const (
	// KindAny is an unconstrained value ({} or true): kept as raw JSON.
	KindAny Kind = "any"
	// KindString is a string, possibly const, enum or formatted.
	KindString Kind = "string"
	// KindInteger is a JSON integer.
	KindInteger Kind = "integer"
	// KindNumber is any JSON number.
	KindNumber Kind = "number"
	// KindBoolean is true or false.
	KindBoolean Kind = "boolean"
	// KindObject is an object with properties and/or additional properties.
	KindObject Kind = "object"
	// KindArray is an array of Items.
	KindArray Kind = "array"
	// KindRef refers to the definition named by Ref.
	KindRef Kind = "ref"
	// KindUnion is an anyOf, or a type array of more than one non-null type.
	KindUnion Kind = "union"
)

// Type is one normalised schema node. allOf is flattened into a KindObject;
// a type array with "null" becomes its other kind with Nullable set.
type Type struct {
	Kind Kind `json:"kind"`
	// Pointer is where the node is in the file.
	Pointer string `json:"pointer"`
	// Description is the node's own description.
	Description string `json:"description,omitempty"`
	// Nullable is set when the node also admits JSON null.
	Nullable bool `json:"nullable,omitempty"`

	// Ref is the definition name of a KindRef node.
	Ref string `json:"ref,omitempty"`

	// Const is the constant value of a const node: a string or an int64.
	Const any `json:"const,omitempty"`
	// Enum lists the allowed string values of an enum node, in file order.
	Enum []string `json:"enum,omitempty"`
	// Format is the string format ("uri", "uri-template", "byte").
	Format string `json:"format,omitempty"`
	// Minimum and Maximum bound a number or integer.
	Minimum *float64 `json:"minimum,omitempty"`
	Maximum *float64 `json:"maximum,omitempty"`
	// MaxItems bounds an array's length.
	MaxItems *int `json:"maxItems,omitempty"`

	// Properties are the declared properties of an object, sorted by name.
	Properties []*Property `json:"properties,omitempty"`
	// Additional is the schema of undeclared members: nil when the schema
	// does not say (which JSON Schema treats as "anything"), KindAny for
	// {} or true, or a real schema for maps.
	Additional *Type `json:"additional,omitempty"`
	// Closed is set on an object without declared properties that admits
	// no member at all (additionalProperties false or {"not":{}}): its
	// only value is {}.
	Closed bool `json:"closed,omitempty"`
	// AllOf names the definitions an allOf was flattened from, if any.
	AllOf []string `json:"allOf,omitempty"`

	// Items is the element schema of an array.
	Items *Type `json:"items,omitempty"`

	// Union describes a KindUnion node.
	Union *Union `json:"-"`
	// UnionPointer repeats Union.Pointer so the JSON dump stays a tree.
	UnionPointer string `json:"union,omitempty"`

	// derived is set on an object an allOf distribution built: Pointer
	// names the anyOf branch it came from, which is not all it is.
	derived bool
}

// Property is one declared member of an object.
type Property struct {
	// Name is the JSON member name, e.g. "_meta" or "requestId".
	Name string `json:"name"`
	// Required is set when the member is in the object's required list.
	Required bool `json:"required,omitempty"`
	// Type is the member's schema.
	Type *Type `json:"type"`
}

// Strategy is how a union's value is told apart on decode.
type Strategy string

// The union decoding strategies, from most to least direct.
const (
	// StrategyDiscriminator: a property with a const (or enum) value in
	// every branch, pairwise disjoint. A branch may admit the property's
	// absence (DefaultBranch).
	StrategyDiscriminator Strategy = "discriminator"
	// StrategyRequiredKey: every branch but at most one fallback has a
	// required property no other branch declares.
	StrategyRequiredKey Strategy = "required-key"
	// StrategyJSONKind: the branches differ in JSON kind (string, number,
	// object, array...). Object branches are then split by Discriminator
	// when there is more than one.
	StrategyJSONKind Strategy = "json-kind"
	// StrategyStructural: no single key decides; branches are tried in
	// Order and the first whose required members and consts all match
	// the value wins.
	StrategyStructural Strategy = "structural"
	// StrategyByMethod: the union is a result union; its members are told
	// apart only by the method of the request being answered.
	StrategyByMethod Strategy = "by-method"
	// StrategyEnvelope: the JSON-RPC message union, told apart by which of
	// id, method, result and error are present.
	StrategyEnvelope Strategy = "envelope"
)

// Union is an anyOf (or a multi-kind type array) with its decoding strategy.
type Union struct {
	// Pointer is where the anyOf is in the file.
	Pointer string `json:"pointer"`
	// Definition is the definition name when the union is a definition
	// root (ContentBlock), else empty.
	Definition string `json:"definition,omitempty"`
	// Branches are the alternatives in file order.
	Branches []*Type `json:"branches"`
	// Strategy is how a value is decoded.
	Strategy Strategy `json:"strategy"`
	// Discriminator is the property that decides, for StrategyDiscriminator
	// (and for the object branches of StrategyJSONKind).
	Discriminator string `json:"discriminator,omitempty"`
	// Values aligns with Branches: the discriminator values each branch
	// accepts (StrategyDiscriminator; for StrategyJSONKind those of its
	// object branches), or its unique required key (StrategyRequiredKey;
	// empty for the fallback branch). Empty for a branch that takes none.
	Values [][]string `json:"values,omitempty"`
	// Kinds aligns with Branches for StrategyJSONKind: the JSON kind of
	// each branch ("string", "number", "boolean", "object", "array"), and
	// "integer" for an integer branch that has a number sibling: an
	// integer literal selects it, any other number the "number" branch.
	Kinds []string `json:"kinds,omitempty"`
	// DefaultBranch is the branch chosen when the discriminator is absent
	// or, for StrategyRequiredKey, when no key matches; -1 when none.
	DefaultBranch int `json:"defaultBranch"`
	// Order is the order in which StrategyStructural tries the branches
	// (most constrained first).
	Order []int `json:"order,omitempty"`
	// Note explains the choice where it is not obvious.
	Note string `json:"note,omitempty"`
}

// MethodKind says whether a method is a request or a notification.
type MethodKind string

// The method kinds.
const (
	Request      MethodKind = "request"
	Notification MethodKind = "notification"
)

// Direction says which side sends a method.
type Direction string

// The directions.
const (
	// ClientToServer: the method is a member of ClientRequest or
	// ClientNotification.
	ClientToServer Direction = "client-to-server"
	// ServerToClient: a member of ServerRequest or ServerNotification.
	ServerToClient Direction = "server-to-client"
	// ServerToClientEmbedded: 2026-07-28's InputRequest members, which the
	// server does not send as JSON-RPC requests but embeds in an
	// InputRequiredResult.
	ServerToClientEmbedded Direction = "server-to-client-embedded"
)

// Method is one request or notification method.
type Method struct {
	// Name is the method string, e.g. "tools/call", taken from the
	// definition's method const.
	Name string `json:"name"`
	// Kind is request or notification.
	Kind MethodKind `json:"kind"`
	// Definition is the definition that declares it, e.g. "CallToolRequest".
	Definition string `json:"definition"`
	// Directions lists who sends it (ping, the task methods and the
	// cancelled and progress notifications go both ways).
	Directions []Direction `json:"directions"`
	// Params is the params schema: a KindRef to a Params definition, or an
	// inline object.
	Params *Type `json:"params,omitempty"`
	// ParamsRequired is set when params is in the definition's required list.
	ParamsRequired bool `json:"paramsRequired,omitempty"`
	// Result is the definition the response's result has (requests only),
	// found by the naming rule or the exception table.
	Result string `json:"result,omitempty"`
	// ResultAlternatives are other definitions a result may be instead
	// (InputRequiredResult in 2026-07-28; CreateTaskResult for a
	// task-augmented request in 2025-11-25).
	ResultAlternatives []string `json:"resultAlternatives,omitempty"`
	// ResultRule says how Result was found: "naming", "response-envelope"
	// or "exception: <why>".
	ResultRule string `json:"resultRule,omitempty"`
	// Cancellable is false for requests that must never be cancelled with
	// notifications/cancelled (initialize) and for notifications.
	Cancellable bool `json:"cancellable"`
	// TaskAugmentable is set when the params accept a task member
	// (2025-11-25), so the request is cancelled with tasks/cancel once it
	// became a task.
	TaskAugmentable bool `json:"taskAugmentable,omitempty"`
}

// Facts are a revision's cancellation and lifecycle rules.
type Facts struct {
	// CancelledMethod is "notifications/cancelled".
	CancelledMethod string `json:"cancelledMethod"`
	// ProgressMethod is "notifications/progress".
	ProgressMethod string `json:"progressMethod"`
	// CancelRequestIDRequired is whether CancelledNotification params
	// require requestId (false only in 2025-11-25). From the schema.
	CancelRequestIDRequired bool `json:"cancelRequestIdRequired"`
	// ClientMayCancel is whether the client sends notifications/cancelled.
	ClientMayCancel bool `json:"clientMayCancel"`
	// ServerMayCancel is whether the server sends notifications/cancelled
	// for its own requests.
	ServerMayCancel bool `json:"serverMayCancel"`
	// ServerCancelsOnly, when not empty, are the client-issued methods the
	// server may end with notifications/cancelled (2026-07-28:
	// subscriptions/listen).
	ServerCancelsOnly []string `json:"serverCancelsOnly,omitempty"`
	// NeverCancellable are request methods never cancelled (initialize).
	NeverCancellable []string `json:"neverCancellable,omitempty"`
	// TaskCancelMethod is the request that cancels a task ("tasks/cancel"
	// in 2025-11-25), or empty.
	TaskCancelMethod string `json:"taskCancelMethod,omitempty"`
	// TaskMember is the params member that makes a request task-augmented
	// ("task"), or empty.
	TaskMember string `json:"taskMember,omitempty"`
	// HTTPDisconnectCancels is whether closing a Streamable HTTP response
	// stream is the cancellation (2026-07-28) rather than something that
	// must not be taken as one.
	HTTPDisconnectCancels bool `json:"httpDisconnectCancels"`
	// Stateless is set for revisions without initialize (2026-07-28).
	Stateless bool `json:"stateless,omitempty"`
	// Era is the revision's protocol family: legacy when the schema
	// defines initialize, modern otherwise.
	Era Era `json:"era"`
	// Lifecycle are the LifecycleMethods the schema defines, in that
	// list's order: what the session answers itself.
	Lifecycle []string `json:"lifecycle"`
	// Headers are the HTTP headers the revision's Streamable HTTP
	// transport defines, from the revision table; empty without one.
	Headers []string `json:"headers,omitempty"`
	// NameHeader maps the requests whose params member the Mcp-Name
	// header mirrors to that member, from the revision table.
	NameHeader map[string]string `json:"nameHeader,omitempty"`
	// RemovedMethods are the requests of earlier revisions a request of
	// this revision gets Method not found for, from the revision table
	// (those the schema does not define).
	RemovedMethods []string `json:"removedMethods,omitempty"`
	// SSEPriming is whether a legacy Streamable HTTP server primes each
	// SSE stream with an event id and empty data, from the revision table.
	SSEPriming bool `json:"ssePriming,omitempty"`
	// CoreTasks is whether task-augmented requests are part of the core
	// protocol, from the revision table (only where the schema defines
	// tasks/get).
	CoreTasks bool `json:"coreTasks,omitempty"`
	// Source says where the prose rules come from.
	Source string `json:"source"`
}
