package streamhttp

import (
	"slices"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/session"
)

// The generated notifications/cancelled decoders of the two eras, set by
// decoders_test.go (package streamhttp_test, which may import generated
// packages) before any test runs: the runtime holds no decoder of its own.
var legacyDecoder, modernDecoder jsonrpc2.CancelledDecoder

// SetTestDecoders sets the generated decoders legacyPolicy and modernPolicy use.
func SetTestDecoders(legacy, modern jsonrpc2.CancelledDecoder) {
	legacyDecoder, modernDecoder = legacy, modern
}

// testRevisions are the generated Revision() of every revision, newest
// first, set by decoders_test.go like the decoders: the revision data the
// tests hand the Handler and the ClientTransport (streamhttp has none of
// its own).
var testRevisions []session.Revision

// SetTestRevisions sets testRevisions.
func SetTestRevisions(revs ...session.Revision) { testRevisions = revs }

// testRevs returns a copy of testRevisions.
func testRevs() []session.Revision { return slices.Clone(testRevisions) }

// withHTTPFacts returns r with the transport facts (headers, Mcp-Name
// members, removed methods, SSE priming, core tasks) of the generated
// revision of its version, for the hand-made revisions of the tests.
func withHTTPFacts(r session.Revision) session.Revision {
	for _, g := range testRevisions {
		if g.Version == r.Version {
			r.HTTPHeaders, r.HTTPNameMembers, r.RemovedMethods, r.SSEPriming, r.CoreTasks = g.HTTPHeaders, g.HTTPNameMembers, g.RemovedMethods, g.SSEPriming, g.CoreTasks
			return r
		}
	}
	panic("no generated revision " + r.Version)
}
