module github.com/mcpgen/mcpgen/auth/jwtverify

go 1.25.0

require github.com/mcpgen/mcpgen v0.1.0

require github.com/go-jose/go-jose/v4 v4.1.9

replace github.com/mcpgen/mcpgen => ../..
