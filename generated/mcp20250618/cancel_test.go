package mcp20250618

import (
	"testing"

	"github.com/mcpgen/mcpgen/internal/testsupport/canceltest"
)

const revision = "2025-06-18"

// cancelled is this package's decoder as the shared checks of
// internal/testsupport/canceltest see it.
var cancelled = canceltest.Subject[CancelledNotification, CancelledNotificationParams]{
	Revision:             revision,
	DecodeNotification:   DecodeCancelledNotification,
	DecodeParams:         DecodeCancelledNotificationParams,
	ValidateNotification: ValidateCancelledNotification,
	ValidateParams:       ValidateCancelledNotificationParams,
	Policy:               Policy,
}

func TestCancelledDifferential(t *testing.T)           { cancelled.Differential(t) }
func TestCancelledDecodeMatchesUnmarshal(t *testing.T) { cancelled.DecodeMatchesUnmarshal(t) }
func TestCancelledErrorPointers(t *testing.T)          { cancelled.ErrorPointers(t) }
func TestCancelledExamples(t *testing.T)               { cancelled.Examples(t) }
func TestCancelledIntegerForms(t *testing.T)           { cancelled.IntegerForms(t) }
func BenchmarkCancelled(b *testing.B)                  { cancelled.Benchmark(b) }

// TestCancelledRuntimeDifferential: a Conn holding this revision's Policy
// applies exactly the cancellations jsonschema/v5 accepts (to the request of
// exactly that id: "7" is not 7) and ignores the rest, logging the reason.
func TestCancelledRuntimeDifferential(t *testing.T) { cancelled.RuntimeDifferential(t) }

// FuzzDecodeCancelledNotification: no panic, no disagreement with
// jsonschema/v5, the same value as UnmarshalJSON (seeds: the corpus and
// testdata/fuzz/).
func FuzzDecodeCancelledNotification(f *testing.F) { cancelled.Fuzz(f, canceltest.Notification) }

// FuzzCancelledNotificationParams is the same for the params object.
func FuzzCancelledNotificationParams(f *testing.F) { cancelled.Fuzz(f, canceltest.Params) }

// FuzzCancelledRuntime is TestCancelledRuntimeDifferential's check on fuzzed
// params: the runtime applies what the schema accepts, ignores what it
// rejects, and logs why.
func FuzzCancelledRuntime(f *testing.F) { cancelled.FuzzRuntime(f) }
