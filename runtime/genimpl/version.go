package genimpl

// SupportPackageIsVersion1 is the version guard of generated bindings, as
// grpc's SupportPackageIsVersionN and protobuf-go's EnforceVersion are for
// theirs: every package mcpgen generates refers to it once, in doc.go,
//
//	const _ = genimpl.SupportPackageIsVersion1
//
// so bindings compile only against support packages (genimpl and the
// rest of the runtime of the module github.com/mcpgen/mcpgen) that still
// implement what that generator relied on. Bindings written by an mcpgen
// newer than this module refer to a version this package does not declare
// yet, and bindings too old for this module to support refer to one it no
// longer declares: either way the build fails with "undefined:
// genimpl.SupportPackageIsVersionN" on that line, before anything
// subtler can go wrong, and the header of the generated file names the
// mcpgen version that wrote it.
//
// The contract: when the generator starts emitting code that needs
// something the support packages did not provide before (a new function,
// a changed signature or meaning), it refers to the next version, and the
// support packages add the next constant in the same change. The older
// constants stay for as long as the support packages still serve the code
// generated against them; removing one is the deliberate end of support
// for bindings that old, which must then be regenerated.
const SupportPackageIsVersion1 = true
