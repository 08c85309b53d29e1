package mcp20241105

import (
	"testing"

	"github.com/mcpgen/mcpgen/internal/canceltest"
)

// FuzzDecodeCancelledNotification checks that the generated decoder never
// panics, never disagrees with jsonschema/v5 on a notifications/cancelled
// message and builds what UnmarshalJSON builds. Seeds: a sample of the differential corpus (and testdata/fuzz/).
func FuzzDecodeCancelledNotification(f *testing.F) {
	for _, in := range canceltest.Seeds(f, canceltest.Notification) {
		f.Add(in)
	}
	ref := canceltest.NewReference(f, revision, canceltest.Notification)
	f.Fuzz(func(t *testing.T, data []byte) {
		canceltest.Agree(t, data, validateNotification, decodeNotification, ref)
		canceltest.SameAsUnmarshal(t, data, DecodeCancelledNotification)
	})
}

// FuzzCancelledNotificationParams is the same for the params object.
func FuzzCancelledNotificationParams(f *testing.F) {
	for _, in := range canceltest.Seeds(f, canceltest.Params) {
		f.Add(in)
	}
	ref := canceltest.NewReference(f, revision, canceltest.Params)
	f.Fuzz(func(t *testing.T, data []byte) {
		canceltest.Agree(t, data, validateParams, decodeParams, ref)
		canceltest.SameAsUnmarshal(t, data, DecodeCancelledNotificationParams)
	})
}
