package streamhttp

import (
	"errors"
	"slices"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/session"
)

// ErrNoRevisions is the error (and, from the constructors that cannot
// return one, the panic value) of a Handler or ClientTransport given no
// revision data: streamhttp holds no revision facts of its own (which
// versions each era has, their headers, the methods a revision removed,
// SSE priming), so it must be handed the generated mcpYYYYMMDD.Revision()
// of each revision it speaks, in Options.Revisions or
// ClientOptions.Revisions, or take them from the *session.Server it serves
// (NewHandler, ListenAndServe, ForServer).
var ErrNoRevisions = errors.New("streamhttp: no revisions: set Options.Revisions (ClientOptions.Revisions) to the generated Revision() of each revision spoken, e.g. []session.Revision{mcp20260728.Revision(), mcp20251125.Revision()}")

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

// revisionFor returns the data of version among the revisions of revs
// that have the Streamable HTTP transport; for a version revs does not
// describe so (one Options.ModernVersions names without its data, or a
// revision without the transport, 2024-11-05, negotiated over it anyway),
// the newest such revision of the same era not after it, as the facts
// carry forward until a revision changes them, or else the oldest of that
// era, whose transport is the closest.
func revisionFor(revs []session.Revision, version string, modern bool) session.Revision {
	var best, oldest *session.Revision
	for i := range revs {
		r := &revs[i]
		if r.Modern != modern || len(r.HTTPHeaders) == 0 {
			continue
		}
		if r.Version == version {
			return *r
		}
		if r.Version < version && (best == nil || r.Version > best.Version) {
			best = r
		}
		if oldest == nil || r.Version < oldest.Version {
			oldest = r
		}
	}
	switch {
	case best != nil:
		return *best
	case oldest != nil:
		return *oldest
	}
	return session.Revision{Version: version, Modern: modern}
}

// newestRevision returns the data of the newest revision of era among
// revs that has the Streamable HTTP transport (a zero Revision of era if
// none has).
func newestRevision(revs []session.Revision, modern bool) session.Revision {
	era := EraLegacy
	if modern {
		era = EraModern
	}
	if v := Versions(revs, era); len(v) > 0 {
		return revisionFor(revs, v[0], modern)
	}
	return session.Revision{Modern: modern}
}

// forRevisions completes opts with the revisions a Lifecycle serves: revs become
// opts.Revisions where that is nil, and their versions, each in its era,
// the versions served where those are nil. A version of revs without the
// Streamable HTTP transport (2024-11-05) is served too, as a legacy
// session with the transport of the oldest revision that has it.
func forRevisions(revs []session.Revision, opts Options) Options {
	if opts.Revisions == nil {
		opts.Revisions = revs
	}
	var modern, legacy []string
	for _, v := range revs {
		isModern := false
		for _, r := range opts.Revisions {
			if r.Version == v.Version {
				isModern = r.Modern
			}
		}
		if isModern {
			modern = append(modern, v.Version)
		} else {
			legacy = append(legacy, v.Version)
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
