module github.com/mcpgen/mcpgen

go 1.24.0

require (
	github.com/dave/jennifer v1.7.1
	github.com/google/go-cmp v0.7.0
	github.com/santhosh-tekuri/jsonschema/v5 v5.3.1
	github.com/spf13/pflag v1.0.10
	go.uber.org/goleak v1.3.0
)
