package generator

import "testing"

func TestInlineNameDoesNotStutter(t *testing.T) {
	for _, tc := range []struct{ parent, member, want string }{
		{"CallToolRequest", "params", "CallToolRequestParams"},
		{"JSONRPCError", "error", "JSONRPCErrorObject"},
		{"URLElicitationRequiredErrorObject", "data", "URLElicitationRequiredErrorObjectData"},
	} {
		if got := InlineName(tc.parent, tc.member); got != tc.want {
			t.Errorf("InlineName(%q, %q) = %q, want %q", tc.parent, tc.member, got, tc.want)
		}
	}
}
