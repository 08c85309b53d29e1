//go:build mcpgen_bootstrap

package liveclient

import "context"

// Fetch, in the bootstrap build (-tags mcpgen_bootstrap, what go:generate
// in generated/ builds mcpgen with), connects to nothing: that build does
// not compile the bindings it may be about to regenerate.
func Fetch(context.Context, Target) (*Snapshot, error) { return nil, ErrBootstrap }
