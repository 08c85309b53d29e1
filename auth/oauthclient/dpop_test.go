package oauthclient

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// checkProof verifies a DPoP proof (RFC 9449 section 4.3) for method and
// target, with ath for token when not empty, and returns its claims and
// the JWK thumbprint-like key of its public key (x.y).
func checkProof(p, method, target, token string) (map[string]any, string, error) {
	parts := strings.Split(p, ".")
	if len(parts) != 3 {
		return nil, "", errors.New("not a compact JWS")
	}
	dec := base64.RawURLEncoding
	hb, _ := dec.DecodeString(parts[0])
	var h struct {
		Typ, Alg string
		JWK      map[string]string `json:"jwk"`
	}
	if err := json.Unmarshal(hb, &h); err != nil || h.Typ != "dpop+jwt" || h.Alg != "ES256" || h.JWK["kty"] != "EC" || h.JWK["d"] != "" {
		return nil, "", fmt.Errorf("header %s", hb)
	}
	x, _ := dec.DecodeString(h.JWK["x"])
	y, _ := dec.DecodeString(h.JWK["y"])
	pub := &ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).SetBytes(x), Y: new(big.Int).SetBytes(y)}
	sig, _ := dec.DecodeString(parts[2])
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if len(sig) != 64 || !ecdsa.Verify(pub, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		return nil, "", errors.New("signature does not verify")
	}
	cb, _ := dec.DecodeString(parts[1])
	var c map[string]any
	if err := json.Unmarshal(cb, &c); err != nil {
		return nil, "", err
	}
	if c["htm"] != method || c["htu"] != target {
		return nil, "", fmt.Errorf("htm %v htu %v, want %s %s", c["htm"], c["htu"], method, target)
	}
	if iat, _ := c["iat"].(float64); time.Since(time.Unix(int64(iat), 0)).Abs() > time.Minute {
		return nil, "", fmt.Errorf("iat %v", c["iat"])
	}
	if token != "" {
		sum := sha256.Sum256([]byte(token))
		if c["ath"] != dec.EncodeToString(sum[:]) {
			return nil, "", fmt.Errorf("ath %v", c["ath"])
		}
	}
	return c, h.JWK["x"] + "." + h.JWK["y"], nil
}

// TestDPoP: an authorization server that advertises ES256 DPoP and an MCP
// server, both requiring a nonce: the token request carries a proof and is
// sent again with the authorization server's nonce; the token (bound to
// the proof's key) goes with the DPoP scheme and a fresh proof (ath, jti)
// on each request, sent again once with the MCP server's nonce.
func TestDPoP(t *testing.T) {
	var mu sync.Mutex
	jtis := map[string]bool{}
	var asNonceAsked, rsNonceAsked, served int
	bound := map[string]string{} // token -> key
	var srv *httptest.Server
	fresh := func(c map[string]any) error {
		mu.Lock()
		defer mu.Unlock()
		jti, _ := c["jti"].(string)
		if jti == "" || jtis[jti] {
			return fmt.Errorf("jti %q not fresh", jti)
		}
		jtis[jti] = true
		return nil
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"resource": srv.URL + "/mcp", "authorization_servers": []string{srv.URL}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"issuer": srv.URL, "authorization_endpoint": srv.URL + "/authorize", "token_endpoint": srv.URL + "/token",
			"code_challenge_methods_supported": []string{"S256"}, "dpop_signing_alg_values_supported": []string{"ES256"}})
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		c, key, err := checkProof(r.Header.Get("DPoP"), "POST", srv.URL+"/token", "")
		if err == nil {
			err = fresh(c)
		}
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]string{"error": "invalid_dpop_proof", "error_description": err.Error()})
			return
		}
		if c["nonce"] != "as-nonce" {
			mu.Lock()
			asNonceAsked++
			mu.Unlock()
			w.Header().Set("DPoP-Nonce", "as-nonce")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			json.NewEncoder(w).Encode(map[string]string{"error": "use_dpop_nonce"})
			return
		}
		mu.Lock()
		bound["token-1"] = key
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": "token-1", "token_type": "DPoP", "expires_in": 3600})
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		scheme, tok, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		if scheme != "DPoP" {
			w.Header().Set("WWW-Authenticate", `DPoP resource_metadata="`+srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		c, key, err := checkProof(r.Header.Get("DPoP"), r.Method, srv.URL+"/mcp", tok)
		if err == nil {
			err = fresh(c)
		}
		mu.Lock()
		if err == nil && bound[tok] != key {
			err = errors.New("the proof's key is not the token's")
		}
		mu.Unlock()
		if err != nil {
			t.Errorf("MCP request: %v", err)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if c["nonce"] != "rs-nonce" {
			mu.Lock()
			rsNonceAsked++
			mu.Unlock()
			w.Header().Set("DPoP-Nonce", "rs-nonce")
			w.Header().Set("WWW-Authenticate", `DPoP error="use_dpop_nonce", error_description="nonce required"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		served++
		mu.Unlock()
		w.Write(body)
	})
	srv = httptest.NewServer(mux)
	defer srv.Close()

	tr := NewTransport(Config{ServerURL: srv.URL + "/mcp", ClientID: "c1", RedirectURL: "http://127.0.0.1/cb", DPoP: true,
		Authorize: func(_ context.Context, authURL string) (*url.URL, error) {
			u, _ := url.Parse(authURL)
			return url.Parse("http://127.0.0.1/cb?code=abc&state=" + url.QueryEscape(u.Query().Get("state")))
		}})
	hc := &http.Client{Transport: tr}
	for i := range 3 {
		resp, err := hc.Post(srv.URL+"/mcp", "application/json", strings.NewReader(fmt.Sprintf(`{"n":%d}`, i)))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || string(b) != fmt.Sprintf(`{"n":%d}`, i) {
			t.Fatalf("request %d: %d %s", i, resp.StatusCode, b)
		}
	}
	if asNonceAsked != 1 || rsNonceAsked != 1 || served != 3 {
		t.Errorf("nonce challenges: authorization server %d, MCP server %d (want 1 each); served %d of 3", asNonceAsked, rsNonceAsked, served)
	}
}

// Without DPoP in the authorization server's metadata, Config.DPoP sends
// no proof and the token goes as a bearer token.
func TestDPoPNotAdvertised(t *testing.T) {
	var srv *httptest.Server
	mux := http.NewServeMux()
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"resource": srv.URL + "/mcp", "authorization_servers": []string{srv.URL}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"issuer": srv.URL, "token_endpoint": srv.URL + "/token", "grant_types_supported": []string{"client_credentials"}})
	})
	mux.HandleFunc("/token", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("DPoP") != "" {
			t.Error("a DPoP proof to a server that does not advertise DPoP")
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"access_token": "plain", "token_type": "Bearer", "expires_in": 3600})
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer plain" || r.Header.Get("DPoP") != "" {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+srv.URL+`/.well-known/oauth-protected-resource/mcp"`)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
	})
	srv = httptest.NewServer(mux)
	defer srv.Close()
	tr := NewTransport(Config{ServerURL: srv.URL + "/mcp", ClientID: "c1", ClientSecret: "s", ClientCredentials: true, DPoP: true})
	resp, err := (&http.Client{Transport: tr}).Post(srv.URL+"/mcp", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
}
