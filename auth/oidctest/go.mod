module github.com/mcpgen/mcpgen/auth/oidctest

go 1.26.0

replace (
	github.com/mcpgen/mcpgen => ../..
	github.com/mcpgen/mcpgen/auth/oauthclient => ../oauthclient
)
