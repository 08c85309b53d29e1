package jsonrpc2

// The runtime holds no definition of a valid notifications/cancelled: each
// revision's decoder is generated from its schema. This package's own test
// files cannot import a generated package (it imports this one), so
// decoders_test.go, in package jsonrpc2_test, hands them in through
// SetTestDecoders before any test runs, and the tests (and the cancellation
// benchmarks) run the decoders production runs.
var (
	// legacyDecoder is 2025-06-18's (requestId required), the decoder of
	// testPolicy, the rules DefaultPolicy describes.
	legacyDecoder CancelledDecoder
	// optionalIDDecoder is 2025-11-25's (requestId optional).
	optionalIDDecoder CancelledDecoder
	// modernDecoder is 2026-07-28's.
	modernDecoder CancelledDecoder
)

// SetTestDecoders sets the generated decoders the tests use.
func SetTestDecoders(legacy, optionalID, modern CancelledDecoder) {
	legacyDecoder, optionalIDDecoder, modernDecoder = legacy, optionalID, modern
}

// testPolicy is DefaultPolicy with 2025-06-18's generated decoder: what
// generated packages of 2024-11-05 to 2025-06-18 hand the Conn.
func testPolicy(side Side) Policy {
	p := DefaultPolicy()
	p.Side = side
	p.Cancelled = legacyDecoder
	return p
}
