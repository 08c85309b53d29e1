module github.com/mcpgen/mcpgen/auth/oauthclient

go 1.24.0

replace github.com/mcpgen/mcpgen => ../..

require (
	github.com/mcpgen/mcpgen v0.1.0
	golang.org/x/oauth2 v0.35.0
)
