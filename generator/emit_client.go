package generator

import "github.com/dave/jennifer/jen"

func init() { register("client.go", emitClient) }

// emitClient writes client.go: the ClientHandler interface and its
// per-method handler interfaces (the requests and notifications a client
// receives from its server), RegisterClient and ClientCaller, which a server
// uses to call its client.
// The shared machinery is in emit_server.go.
func emitClient(g *gen, f *jen.File) (bool, error) { return emitSide(g, f, clientSide) }
