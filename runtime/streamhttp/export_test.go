package streamhttp

import "github.com/mcpgen/mcpgen/runtime/jsonrpc2"

// The generated notifications/cancelled decoders of the two eras, set by
// decoders_test.go (package streamhttp_test, which may import generated
// packages) before any test runs: the runtime holds no decoder of its own.
var legacyDecoder, modernDecoder jsonrpc2.CancelledDecoder

// SetTestDecoders sets the generated decoders legacyPolicy and modernPolicy use.
func SetTestDecoders(legacy, modern jsonrpc2.CancelledDecoder) {
	legacyDecoder, modernDecoder = legacy, modern
}
