module example.com/downstream

go 1.24.0

tool github.com/mcpgen/mcpgen/cmd/mcpgen

require github.com/mcpgen/mcpgen v0.0.0

require (
	github.com/dave/jennifer v1.7.1 // indirect
	github.com/santhosh-tekuri/jsonschema/v5 v5.3.1 // indirect
	github.com/spf13/pflag v1.0.10 // indirect
)

// This example builds against the mcpgen of the clone it lives in. A real
// repository drops this line and requires a released version instead.
replace github.com/mcpgen/mcpgen => ../..
