package tasks

import "github.com/mcpgen/mcpgen/runtime/jsonrpc2"

// cancelledDecoder is 2025-11-25's generated notifications/cancelled decoder,
// set by decoders_test.go (package tasks_test, which may import the generated
// package this package's own test files cannot) before any test runs: the
// runtime holds no decoder of its own.
var cancelledDecoder jsonrpc2.CancelledDecoder

// SetTestDecoder sets the generated decoder taskPolicy uses.
func SetTestDecoder(d jsonrpc2.CancelledDecoder) { cancelledDecoder = d }
