package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/runtime/jsonrpc2"
	"github.com/mcpgen/mcpgen/runtime/streamhttp"
)

// OfflineAccess is the scope of refresh tokens, which MCP servers do not
// challenge for nor advertise (2026-07-28 authorization, Refresh Tokens).
const OfflineAccess = "offline_access"

// WellKnownPath is the RFC 9728 well-known path prefix of Protected
// Resource Metadata.
const WellKnownPath = "/.well-known/oauth-protected-resource"

// Config describes a protected MCP endpoint.
type Config struct {
	// Resource is the canonical URI of the MCP server (RFC 8707), e.g.
	// https://mcp.example.com/mcp: the "resource" of its metadata and the
	// audience every token must name. Required.
	Resource string
	// AuthorizationServers are the issuers of tokens for this resource
	// (RFC 9728 authorization_servers). At least one is required.
	AuthorizationServers []string
	// Verifier checks bearer tokens. Required.
	Verifier TokenVerifier
	// Scopes are required for every request (GET and DELETE included); they
	// are the scope of a 401's challenge (ScopesSupported when empty).
	Scopes []string
	// MethodScopes are further scopes a JSON-RPC method requires (keyed by
	// method name, e.g. "tools/call", "resources/read").
	MethodScopes map[string][]string
	// ToolScopes are further scopes a tools/call of one tool requires
	// (keyed by tool name).
	ToolScopes map[string][]string
	// ScopesSupported is the metadata's scopes_supported.
	ScopesSupported []string
	// ResourceName and ResourceDocumentation are optional metadata fields.
	ResourceName          string
	ResourceDocumentation string
	// Now is the clock expiry is checked with (default time.Now).
	Now func() time.Time
	// Logger receives refusals at Debug and verifier outages at Warn
	// (default slog.Default()).
	Logger *slog.Logger
}

// ResourceServer enforces a Config. Build it with New.
type ResourceServer struct {
	cfg         Config
	resource    string // canonical
	metadataURL string // path-based well-known URI of the metadata
	metadata    []byte
	log         *slog.Logger
}

// Metadata is the Protected Resource Metadata document (RFC 9728 section 2)
// fields this package serves.
type Metadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers"`
	ScopesSupported        []string `json:"scopes_supported,omitempty"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ResourceName           string   `json:"resource_name,omitempty"`
	ResourceDocumentation  string   `json:"resource_documentation,omitempty"`
}

// New checks cfg and returns its ResourceServer.
func New(cfg Config) (*ResourceServer, error) {
	if cfg.Verifier == nil {
		return nil, errors.New("auth: Config.Verifier is required")
	}
	if len(cfg.AuthorizationServers) == 0 {
		return nil, errors.New("auth: Config.AuthorizationServers needs at least one authorization server (RFC 9728, MCP authorization)")
	}
	for _, as := range cfg.AuthorizationServers {
		if u, err := url.Parse(as); err != nil || u.Scheme == "" || u.Host == "" {
			return nil, fmt.Errorf("auth: Config.AuthorizationServers: %q is not an absolute URL", as)
		}
	}
	for _, list := range [][]string{cfg.Scopes, cfg.ScopesSupported} {
		if slices.Contains(list, OfflineAccess) {
			// 2026-07-28 authorization, Refresh Tokens: whether to
			// issue refresh tokens is the client's and the authorization
			// server's business.
			return nil, errors.New("auth: Config.Scopes and ScopesSupported must not list offline_access (MCP servers SHOULD NOT challenge for or advertise it)")
		}
	}
	res, err := CanonicalResource(cfg.Resource)
	if err != nil {
		return nil, fmt.Errorf("auth: Config.Resource: %w", err)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	u, _ := url.Parse(res)
	path := u.Path
	u.Path, u.RawQuery = WellKnownPath+path, ""
	md, err := json.Marshal(Metadata{
		Resource:               res,
		AuthorizationServers:   cfg.AuthorizationServers,
		ScopesSupported:        cfg.ScopesSupported,
		BearerMethodsSupported: []string{"header"},
		ResourceName:           cfg.ResourceName,
		ResourceDocumentation:  cfg.ResourceDocumentation,
	})
	if err != nil {
		return nil, err
	}
	return &ResourceServer{cfg: cfg, resource: res, metadataURL: u.String(), metadata: md, log: cfg.Logger}, nil
}

// Resource returns the canonical server URI.
func (rs *ResourceServer) Resource() string { return rs.resource }

// MetadataURL returns the URL of the metadata that 401 and 403 challenges
// name (resource_metadata): the path-based well-known URI.
func (rs *ResourceServer) MetadataURL() string { return rs.metadataURL }

// MetadataPaths returns the well-known paths the metadata is served at:
// path-based first (for an endpoint at /mcp,
// /.well-known/oauth-protected-resource/mcp), then the root one; a
// resource at the root has only the latter.
func (rs *ResourceServer) MetadataPaths() []string {
	u, _ := url.Parse(rs.resource)
	if u.Path == "" {
		return []string{WellKnownPath}
	}
	return []string{WellKnownPath + u.Path, WellKnownPath}
}

// EndpointPath returns the path of the MCP endpoint ("/" for a resource at
// the root).
func (rs *ResourceServer) EndpointPath() string {
	u, _ := url.Parse(rs.resource)
	if u.Path == "" {
		return "/"
	}
	return u.Path
}

// MetadataHandler serves the Protected Resource Metadata document (GET,
// HEAD; any origin may read it, since browser-based clients discover with
// it).
func (rs *ResourceServer) MetadataHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Access-Control-Allow-Origin", "*")
		switch r.Method {
		case http.MethodGet, http.MethodHead:
		case http.MethodOptions:
			w.Header().Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
			w.WriteHeader(http.StatusNoContent)
			return
		default:
			w.Header().Set("Allow", "GET, HEAD, OPTIONS")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "max-age=3600")
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodGet {
			_, _ = w.Write(rs.metadata)
		}
	})
}

// Mount registers on mux the endpoint h behind Middleware at EndpointPath
// and the metadata at every MetadataPaths path.
func (rs *ResourceServer) Mount(mux *http.ServeMux, h http.Handler) {
	mux.Handle(rs.EndpointPath(), rs.Middleware(h))
	for _, p := range rs.MetadataPaths() {
		mux.Handle(p, rs.MetadataHandler())
	}
}

// Apply installs the per-message scope check and the session binding in
// opts: use it on the Options of the streamhttp.Handler that Middleware
// wraps.
func (rs *ResourceServer) Apply(opts *streamhttp.Options) {
	opts.Authorize = rs.Authorize
	opts.SessionOwner = SessionOwner
}

// SessionOwner is a streamhttp Options.SessionOwner: the owner of a request
// is its verified identity's Owner ("" without one).
func SessionOwner(r *http.Request) string {
	if id, ok := IdentityFrom(r.Context()); ok {
		return id.Owner()
	}
	return ""
}

// Middleware verifies the bearer token of every request before next sees
// it (and before its body is read): no token or an invalid, expired or
// wrong-audience one gets 401, a token without Config.Scopes gets 403.
// next runs with the Identity in the request's ctx.
func (rs *ResourceServer) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := rs.authenticate(w, r)
		if !ok {
			return
		}
		if missing := missingScopes(id, rs.cfg.Scopes); len(missing) > 0 {
			rs.forbid(w, id, rs.cfg.Scopes, missing)
			return
		}
		next.ServeHTTP(w, r.WithContext(WithIdentity(r.Context(), id)))
	})
}

func (rs *ResourceServer) authenticate(w http.ResponseWriter, r *http.Request) (*Identity, bool) {
	if q := r.URL.Query(); q.Has("access_token") {
		// RFC 6750 2.3 is forbidden by MCP: refuse rather than ignore, so
		// the client learns its token went where it leaks.
		rs.challenge(w, http.StatusBadRequest, "invalid_request", "access tokens must not be sent in the query string")
		return nil, false
	}
	tok, present, err := bearerToken(r)
	if err != nil {
		rs.challenge(w, http.StatusBadRequest, "invalid_request", err.Error())
		return nil, false
	}
	if !present {
		rs.log.Debug("auth: request without a bearer token", "path", r.URL.Path)
		rs.challenge(w, http.StatusUnauthorized, "", "")
		return nil, false
	}
	id, err := rs.cfg.Verifier.Verify(r.Context(), tok)
	if err != nil || id == nil {
		if errors.Is(err, ErrVerifierUnavailable) {
			rs.log.Warn("auth: token verifier unavailable", "error", err)
			w.Header().Set("Retry-After", "5")
			writeJSONError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "the token cannot be verified now")
			return nil, false
		}
		if err == nil {
			err = errors.New("verifier returned no identity")
		}
		rs.log.Debug("auth: invalid token", "error", err)
		rs.challenge(w, http.StatusUnauthorized, "invalid_token", "the access token is invalid")
		return nil, false
	}
	if !id.Expiry.IsZero() && !rs.cfg.Now().Before(id.Expiry) {
		rs.log.Debug("auth: expired token", "subject", id.Subject)
		rs.challenge(w, http.StatusUnauthorized, "invalid_token", "the access token expired")
		return nil, false
	}
	if !rs.audienceOK(id.Audience) {
		rs.log.Debug("auth: token for another resource", "audience", id.Audience, "resource", rs.resource)
		rs.challenge(w, http.StatusUnauthorized, "invalid_token", "the access token was not issued for this resource")
		return nil, false
	}
	return id, true
}

// audienceOK: one of aud must be this resource, compared in canonical form
// (RFC 8707; upper-case scheme and host accepted, as the MCP page asks).
func (rs *ResourceServer) audienceOK(aud []string) bool {
	for _, a := range aud {
		if c, err := CanonicalResource(a); err == nil && c == rs.resource {
			return true
		}
	}
	return false
}

// Authorize is a streamhttp Options.Authorize: it checks the scopes the
// message's method (and, for tools/call, its tool) requires, answering 403
// insufficient_scope with the scopes to step up to. A request that did not
// pass Middleware (no Identity) is refused 401.
func (rs *ResourceServer) Authorize(w http.ResponseWriter, r *http.Request, m *jsonrpc2.Message) bool {
	id, ok := IdentityFrom(r.Context())
	if !ok {
		rs.challenge(w, http.StatusUnauthorized, "", "")
		return false
	}
	need := rs.RequiredScopes(m)
	if missing := missingScopes(id, need); len(missing) > 0 {
		rs.log.Debug("auth: insufficient scope", "method", m.Method, "missing", missing, "subject", id.Subject)
		rs.forbid(w, id, need, missing)
		return false
	}
	return true
}

// RequiredScopes returns the scopes message m requires: Config.Scopes,
// MethodScopes of its method and, for tools/call, ToolScopes of its tool.
func (rs *ResourceServer) RequiredScopes(m *jsonrpc2.Message) []string {
	need := slices.Clone(rs.cfg.Scopes)
	if m.Kind == jsonrpc2.KindRequest || m.Kind == jsonrpc2.KindNotification {
		need = appendNew(need, rs.cfg.MethodScopes[m.Method]...)
		if m.Method == "tools/call" && len(rs.cfg.ToolScopes) > 0 {
			var p struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(m.Params, &p)
			need = appendNew(need, rs.cfg.ToolScopes[p.Name]...)
		}
	}
	return need
}

func missingScopes(id *Identity, need []string) []string {
	var missing []string
	for _, s := range need {
		if !id.HasScope(s) {
			missing = append(missing, s)
		}
	}
	return missing
}

func appendNew(to []string, ss ...string) []string {
	for _, s := range ss {
		if !slices.Contains(to, s) {
			to = append(to, s)
		}
	}
	return to
}

// forbid answers 403 insufficient_scope. The challenge's scope is what the
// operation needs plus what the token already has (the page's recommended
// approach: a client that re-authorizes with it loses nothing).
func (rs *ResourceServer) forbid(w http.ResponseWriter, id *Identity, need, missing []string) {
	scope := appendNew(slices.Clone(need), id.Scopes...)
	scope = slices.DeleteFunc(scope, func(s string) bool { return s == OfflineAccess })
	rs.writeChallenge(w, http.StatusForbidden, "insufficient_scope", "additional scope required: "+strings.Join(missing, " "), scope)
}

// challenge answers with the Bearer challenge of a 401 (or a 400 for a
// malformed request): the scope is Config.Scopes, else ScopesSupported.
func (rs *ResourceServer) challenge(w http.ResponseWriter, status int, code, desc string) {
	scope := rs.cfg.Scopes
	if len(scope) == 0 {
		scope = rs.cfg.ScopesSupported
	}
	rs.writeChallenge(w, status, code, desc, scope)
}

func (rs *ResourceServer) writeChallenge(w http.ResponseWriter, status int, code, desc string, scope []string) {
	params := []string{`resource_metadata=` + quote(rs.metadataURL)}
	if len(scope) > 0 {
		params = append(params, `scope=`+quote(strings.Join(scope, " ")))
	}
	if code != "" {
		params = append(params, `error=`+quote(code))
	}
	if desc != "" {
		params = append(params, `error_description=`+quote(desc))
	}
	w.Header().Set("WWW-Authenticate", "Bearer "+strings.Join(params, ", "))
	if code == "" {
		// RFC 6750 3.1: a request without authentication gets no error code.
		code, desc = "unauthorized", "a bearer token is required"
	}
	writeJSONError(w, status, code, desc)
}

func writeJSONError(w http.ResponseWriter, status int, code, desc string) {
	body, _ := json.Marshal(struct {
		Error       string `json:"error"`
		Description string `json:"error_description,omitempty"`
	}{code, desc})
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// quote makes s an RFC 7230 quoted-string.
func quote(s string) string {
	s = strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s)
	return `"` + s + `"`
}
