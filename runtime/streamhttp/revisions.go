package streamhttp

import (
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/session"
)

// DefaultRevisions returns the revision data a Handler serves and a
// ClientTransport speaks when Options.Revisions (ClientOptions.Revisions)
// is nil: the Streamable HTTP facts (version, era, headers, the members
// Mcp-Name mirrors, the lifecycle methods) of every revision that has the
// transport, newest first.
//
// streamhttp cannot import the generated packages that build this data
// (mcpYYYYMMDD.Revision(), a layer above), so the fallback is written here;
// generated/adding_revision_test.go checks that each entry equals the
// generated Revision() of its revision on those members and that the
// versions are schema.DefaultHTTPVersions'. A program that imports the
// bindings can pass their Revision() instead.
func DefaultRevisions() []session.Revision {
	out := make([]session.Revision, len(defaultRevisions))
	for i, r := range defaultRevisions {
		out[i] = cloneRevision(r)
	}
	return out
}

var (
	legacyLifecycle = []string{session.MethodInitialize, session.MethodInitialized, session.MethodPing, session.MethodSetLevel}
	legacyHeaders   = []string{HeaderSessionID, "MCP-Protocol-Version"}
)

var defaultRevisions = []session.Revision{
	{
		Version: "2026-07-28", Modern: true,
		Lifecycle:       []string{session.MethodDiscover, session.MethodSubscriptionsListen},
		HTTPHeaders:     []string{"MCP-Protocol-Version", HeaderMethod, HeaderName, HeaderParamPrefix},
		HTTPNameMembers: map[string]string{"tools/call": "name", "prompts/get": "name", "resources/read": "uri"},
	},
	{Version: "2025-11-25", Lifecycle: legacyLifecycle, HTTPHeaders: legacyHeaders},
	{Version: "2025-06-18", Lifecycle: legacyLifecycle, HTTPHeaders: legacyHeaders},
	{Version: "2025-03-26", Lifecycle: legacyLifecycle, HTTPHeaders: []string{HeaderSessionID}},
}

func cloneRevision(r session.Revision) session.Revision {
	r.Lifecycle = slices.Clone(r.Lifecycle)
	r.HTTPHeaders = slices.Clone(r.HTTPHeaders)
	if r.HTTPNameMembers != nil {
		m := make(map[string]string, len(r.HTTPNameMembers))
		for k, v := range r.HTTPNameMembers {
			m[k] = v
		}
		r.HTTPNameMembers = m
	}
	return r
}

// Versions lists the versions of revs of era that have the Streamable HTTP
// transport (some HTTP header), newest first: the ModernVersions or
// LegacyVersions a Handler derives from Options.Revisions.
func Versions(revs []session.Revision, era Era) []string {
	out := []string{} // non-nil: an era without revisions is disabled
	for _, r := range revs {
		if r.Modern == (era == EraModern) && len(r.HTTPHeaders) > 0 && !slices.Contains(out, r.Version) {
			out = append(out, r.Version)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return -strings.Compare(a, b) })
	return out
}

// revisionFor returns the data of version among revs; for a version revs
// does not describe (one Options.ModernVersions names without its data),
// the newest revision of the same era not after it, as the facts carry
// forward until a revision changes them, or else the newest of that era.
func revisionFor(revs []session.Revision, version string, modern bool) session.Revision {
	var best, newest *session.Revision
	for i := range revs {
		r := &revs[i]
		if r.Modern != modern {
			continue
		}
		if r.Version == version {
			return *r
		}
		if r.Version < version && (best == nil || r.Version > best.Version) {
			best = r
		}
		if newest == nil || r.Version > newest.Version {
			newest = r
		}
	}
	switch {
	case best != nil:
		return *best
	case newest != nil:
		return *newest
	}
	return session.Revision{Version: version, Modern: modern}
}

// ForServer returns opts with ModernVersions and LegacyVersions, where
// they are nil, set to the versions srv speaks (srv.SupportedVersions,
// each put in its era by the revision data of opts.Revisions, or
// DefaultRevisions), so that the supported list of the Handler's
// UnsupportedProtocolVersionError (-32022) is the supportedVersions that
// srv's server/discover lists, as a client comparing the two expects.
// Without it the Handler serves every version of its revision data, and a
// server with fewer (a modern-only one, say) would be named versions it
// does not speak. NewLifecycleHandler (and so ListenAndServe) applies it
// itself to any Lifecycle that lists its versions (VersionLister).
func ForServer(srv *session.Server, opts Options) Options {
	return forVersions(srv.SupportedVersions(), opts)
}

// VersionLister is a Lifecycle that can say which protocol versions it
// speaks, as *session.Server does (SupportedVersions).
type VersionLister interface {
	SupportedVersions() []string
}

// forVersions is ForServer for a list of versions.
func forVersions(versions []string, opts Options) Options {
	revs := opts.Revisions
	if revs == nil {
		revs = DefaultRevisions()
	}
	var modern, legacy []string
	for _, v := range versions {
		isModern := false
		for _, r := range revs {
			if r.Version == v {
				isModern = r.Modern
			}
		}
		if isModern {
			modern = append(modern, v)
		} else {
			legacy = append(legacy, v)
		}
	}
	if opts.ModernVersions == nil {
		opts.ModernVersions = append([]string{}, modern...)
	}
	if opts.LegacyVersions == nil {
		opts.LegacyVersions = append([]string{}, legacy...)
	}
	return opts
}
