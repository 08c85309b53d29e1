package genimpl

// EnforceVersion is the two-sided version guard of generated code, as
// protobuf-go's protoimpl.EnforceVersion is for its: every package mcpgen
// generates (the bindings of a revision, an extension, a typed-tools
// package) refers to it once, with the version N of generated code it is:
//
//	const (
//		_ = genimpl.EnforceVersion(N - genimpl.MinVersion)
//		_ = genimpl.EnforceVersion(genimpl.MaxVersion - N)
//	)
//
// EnforceVersion is unsigned, so a constant conversion of a negative value
// does not compile: code older than MinVersion fails on the first line and
// code newer than MaxVersion on the second ("cannot convert ... to type
// genimpl.EnforceVersion" or "... overflows genimpl.EnforceVersion"),
// before anything subtler can go wrong, and the header of the generated
// file names the mcpgen version that wrote it. genimpl is the one entry
// package of generated code into the support packages, so one guard
// covers them all (jsonrpc2, session, toolsupport, …).
//
// The contract: when the generator starts emitting code that needs
// something the support packages did not provide before (a new function,
// a changed signature or meaning), it writes the next N, and MaxVersion
// (and GenVersion) move to it in the same change. MinVersion moves up when
// the support packages stop serving code that old, which must then be
// regenerated.
type EnforceVersion uint

// The versions of generated code the support packages accept.
const (
	// GenVersion is the version the generator of this module writes.
	GenVersion = 1
	// MinVersion is the oldest version of generated code still served.
	MinVersion = 1
	// MaxVersion is the newest version of generated code served.
	MaxVersion = 1
)
