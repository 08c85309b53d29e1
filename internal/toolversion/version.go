// Package toolversion is mcpgen's own version: what "mcpgen version" prints and
// what the header of every file mcpgen generates names. It is the one
// source of truth for both, so a generated file always says which mcpgen
// wrote it in the words "mcpgen version" would use.
package toolversion

import "runtime/debug"

// Module is the path of the module mcpgen is built from.
const Module = "github.com/mcpgen/mcpgen"

// Dev is the version of this source tree. It is what a build from a
// checkout reports (go run, go build, go generate in the repository, a
// module replaced by a local directory), because such a build has no
// module version of its own; keeping it a constant keeps the repository's
// generated files byte-stable whoever regenerates them. Raise it when a
// release is tagged, to the next version with a -dev suffix.
const Dev = "v0.1.0"

// HeaderPrefix starts the header line that names the version.
const HeaderPrefix = "mcpgen version: "

// HeaderLine is the line of a generated file's header, after the "Code
// generated" line, that names the mcpgen version v that wrote it; an empty
// v is Dev. Every generator of mcpgen writes it this way, and "mcpgen
// check" reads it back.
func HeaderLine(v string) string {
	if v == "" {
		v = Dev
	}
	return HeaderPrefix + v
}

// String is the version of the running mcpgen: the module version recorded
// in the build info when mcpgen was built from a version fetched through the
// module system (go install github.com/mcpgen/mcpgen/cmd/mcpgen@v1.2.3, or
// go tool mcpgen in a module that requires a release), else Dev.
func String() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return Dev
	}
	return fromBuildInfo(bi)
}

// fromBuildInfo picks the version out of bi. Only a module that came from
// the module cache counts: it has a checksum (Sum) and no replacement. A
// build from a checkout may carry a version stamped from the VCS
// ("v0.2.0+dirty", a pseudo-version) that changes with every commit or
// edit, and a replaced module carries the version it replaces (the
// downstream example requires v0.0.0 and replaces it with the checkout):
// neither says what code mcpgen is, so both report Dev.
func fromBuildInfo(bi *debug.BuildInfo) string {
	m := bi.Main
	if m.Path != Module {
		// A main package of another module that imports mcpgen (a test
		// binary, a program calling the generator): mcpgen is a
		// dependency.
		for _, d := range bi.Deps {
			if d.Path == Module {
				m = *d
				break
			}
		}
	}
	if m.Path != Module || m.Replace != nil || m.Sum == "" || m.Version == "" || m.Version == "(devel)" {
		return Dev
	}
	return m.Version
}

// GeneratedCode is the version of the code mcpgen's generators write, the N
// of the guard every generated package refers to once
// (genimpl.EnforceVersion(N - genimpl.MinVersion) and
// genimpl.EnforceVersion(genimpl.MaxVersion - N)). It must equal
// runtime/genimpl's GenVersion (generated/guard_test.go checks): raise both
// in the change that makes generated code need something new of the
// support packages.
const GeneratedCode = 1

// GuardImport is the import path of the package whose EnforceVersion the
// guard converts: the one entry package of generated code into the
// support packages.
const GuardImport = Module + "/runtime/genimpl"
