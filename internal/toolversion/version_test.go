package toolversion

import (
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	fetched := debug.Module{Path: Module, Version: "v1.2.3", Sum: "h1:abc="}
	for _, c := range []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"go install @v1.2.3", debug.BuildInfo{Main: fetched}, "v1.2.3"},
		{"go install @commit", debug.BuildInfo{Main: debug.Module{Path: Module, Version: "v0.1.1-0.20260101000000-0123456789ab", Sum: "h1:x="}}, "v0.1.1-0.20260101000000-0123456789ab"},
		{"go tool from a required release", debug.BuildInfo{Main: debug.Module{Path: "example.com/user"}, Deps: []*debug.Module{&fetched}}, "v1.2.3"},
		{"checkout", debug.BuildInfo{Main: debug.Module{Path: Module, Version: "(devel)"}}, Dev},
		{"checkout stamped by the VCS", debug.BuildInfo{Main: debug.Module{Path: Module, Version: "v1.2.3+dirty"}}, Dev},
		{"replaced by a directory", debug.BuildInfo{Main: debug.Module{Path: Module, Version: "v0.0.0", Replace: &debug.Module{Path: "../..", Version: "(devel)"}}}, Dev},
		{"vendored (no checksum)", debug.BuildInfo{Main: debug.Module{Path: Module, Version: "v1.2.3"}}, Dev},
		{"not linked", debug.BuildInfo{Main: debug.Module{Path: "example.com/user", Version: "v9.9.9", Sum: "h1:y="}}, Dev},
	} {
		if got := fromBuildInfo(&c.bi); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

// TestStringInRepository: a test binary is a build from the checkout, so
// it reports Dev, the version the repository's generated files name.
func TestStringInRepository(t *testing.T) {
	if got := String(); got != Dev {
		t.Errorf("String() = %q in the repository's own build, want Dev (%q)", got, Dev)
	}
}
