//go:build !mcpgen_debugstats

package main

import "github.com/mcpgen/mcpgen/runtime/session"

// debugOptions adds nothing to a default build; see debugstats.go.
func debugOptions() []session.ServerOption { return nil }
