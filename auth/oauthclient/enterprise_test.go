package oauthclient

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestEnterpriseManaged: the ID token is exchanged at the IdP for an
// ID-JAG for the authorization server and the resource (RFC 8693), which
// the JWT bearer grant at the authorization server, the client
// authenticated with its secret, turns into the access token.
func TestEnterpriseManaged(t *testing.T) {
	var srv *httptest.Server
	exchanges, grants := 0, 0
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"resource": srv.URL + "/mcp", "authorization_servers": []string{srv.URL + "/as"}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server/as", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"issuer": srv.URL + "/as", "token_endpoint": srv.URL + "/as/token",
			"grant_types_supported": []string{grantJWTBearer}, "token_endpoint_auth_methods_supported": []string{"client_secret_basic"}})
	})
	mux.HandleFunc("/idp/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		want := map[string]string{"grant_type": grantTokenExchange, "subject_token": "id-token-of-alice", "subject_token_type": tokenTypeIDToken,
			"requested_token_type": tokenTypeIDJAG, "audience": srv.URL + "/as", "resource": srv.URL + "/mcp", "client_id": "idp-client"}
		for k, v := range want {
			if r.PostForm.Get(k) != v {
				t.Errorf("token exchange: %s = %q, want %q", k, r.PostForm.Get(k), v)
			}
		}
		exchanges++
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"access_token": "jag-1", "issued_token_type": tokenTypeIDJAG, "token_type": "N_A"})
	})
	mux.HandleFunc("/as/token", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		if id, secret, ok := r.BasicAuth(); !ok || id != "c1" || secret != "s1" {
			t.Errorf("JWT bearer grant without the client's basic auth: %q", r.Header.Get("Authorization"))
		}
		if r.PostForm.Get("grant_type") != grantJWTBearer || r.PostForm.Get("assertion") != "jag-1" || r.PostForm.Get("resource") != srv.URL+"/mcp" {
			t.Errorf("JWT bearer grant: %v", r.PostForm)
		}
		grants++
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": "at-alice", "token_type": "Bearer", "expires_in": 3600})
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer at-alice" {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
			w.WriteHeader(http.StatusUnauthorized)
		}
	})
	srv = httptest.NewServer(mux)
	defer srv.Close()
	tr := NewTransport(Config{ServerURL: srv.URL + "/mcp", ClientID: "c1", ClientSecret: "s1",
		EnterpriseIdP: &EnterpriseIdP{TokenEndpoint: srv.URL + "/idp/token", ClientID: "idp-client",
			IDToken: func(context.Context) (string, error) { return "id-token-of-alice", nil }}})
	resp, err := (&http.Client{Transport: tr}).Post(srv.URL+"/mcp", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || exchanges != 1 || grants != 1 {
		t.Fatalf("status %d after %d token exchanges and %d JWT bearer grants, want 200 after one each", resp.StatusCode, exchanges, grants)
	}
}
