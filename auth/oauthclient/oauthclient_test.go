package oauthclient

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func TestParseChallenge(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want Challenge
		ok   bool
	}{
		{[]string{`Bearer resource_metadata="https://a/.well-known/oauth-protected-resource/mcp", scope="a b"`},
			Challenge{ResourceMetadata: "https://a/.well-known/oauth-protected-resource/mcp", Scope: "a b"}, true},
		{[]string{`Basic realm="x", Bearer error="insufficient_scope", scope="mcp:write"`},
			Challenge{Error: "insufficient_scope", Scope: "mcp:write"}, true},
		{[]string{`Basic realm="x"`, `bearer error=invalid_token`}, Challenge{Error: "invalid_token"}, true},
		{[]string{`Bearer scope="a \"q\""`}, Challenge{Scope: `a "q"`}, true},
		{[]string{`DPoP error="use_dpop_nonce", resource_metadata="https://a/m"`}, Challenge{Error: "use_dpop_nonce", ResourceMetadata: "https://a/m"}, true},
		{[]string{`Basic realm="x"`}, Challenge{}, false},
		{nil, Challenge{}, false},
	} {
		got, ok := ParseChallenge(tc.in)
		if ok != tc.ok || got != tc.want {
			t.Errorf("ParseChallenge(%q) = %+v, %v; want %+v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestMetadataURLs(t *testing.T) {
	got, _ := ResourceMetadataURLs("https://h:8443/a/mcp")
	want := []string{"https://h:8443/.well-known/oauth-protected-resource/a/mcp", "https://h:8443/.well-known/oauth-protected-resource"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ResourceMetadataURLs = %q", got)
	}
	got, _ = ServerMetadataURLs("https://as/tenant1")
	want = []string{"https://as/.well-known/oauth-authorization-server/tenant1", "https://as/.well-known/openid-configuration/tenant1", "https://as/tenant1/.well-known/openid-configuration"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ServerMetadataURLs(path) = %q", got)
	}
	got, _ = ServerMetadataURLs("https://as")
	want = []string{"https://as/.well-known/oauth-authorization-server", "https://as/.well-known/openid-configuration"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ServerMetadataURLs(root) = %q", got)
	}
	if _, err := ServerMetadataURLs("not a url"); err == nil {
		t.Error("a relative issuer was accepted")
	}
}

func TestResourceMatches(t *testing.T) {
	for _, tc := range []struct {
		res, srv string
		ok       bool
	}{
		{"https://h/mcp", "https://h/mcp", true},
		{"https://h", "https://h/mcp", true},
		{"https://H/mcp/", "https://h/mcp", true},
		{"https://h/mcpx", "https://h/mcp", false},
		{"https://evil/mcp", "https://h/mcp", false},
		{"http://h/mcp", "https://h/mcp", false},
		{"/mcp", "https://h/mcp", false},
	} {
		if err := resourceMatches(tc.res, tc.srv); (err == nil) != tc.ok {
			t.Errorf("resourceMatches(%q, %q) = %v", tc.res, tc.srv, err)
		}
	}
}

// TestDiscoverServerIssuer: metadata naming another issuer is refused.
func TestDiscoverServerIssuer(t *testing.T) {
	var issuer string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/oauth-authorization-server" {
			http.NotFound(w, r)
			return
		}
		json.NewEncoder(w).Encode(map[string]string{"issuer": issuer, "authorization_endpoint": "x", "token_endpoint": "y"})
	}))
	defer srv.Close()
	issuer = srv.URL
	if _, err := DiscoverServer(context.Background(), srv.Client(), srv.URL); err != nil {
		t.Fatal(err)
	}
	issuer = srv.URL + "/"
	if _, err := DiscoverServer(context.Background(), srv.Client(), srv.URL); err == nil || !strings.Contains(err.Error(), "names issuer") {
		t.Fatalf("issuer mismatch: %v", err)
	}
}

// TestRefusesWithoutPKCE: an authorization server whose metadata does not
// advertise S256 is not used; the user is never sent to it.
func TestRefusesWithoutPKCE(t *testing.T) {
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+srv.URL+`/prm"`)
		w.WriteHeader(http.StatusUnauthorized)
	})
	mux.HandleFunc("/prm", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"resource": srv.URL + "/mcp", "authorization_servers": []string{srv.URL}})
	})
	mux.HandleFunc("/.well-known/oauth-authorization-server", func(w http.ResponseWriter, r *http.Request) {
		json.NewEncoder(w).Encode(map[string]any{"issuer": srv.URL, "authorization_endpoint": srv.URL + "/a", "token_endpoint": srv.URL + "/t"})
	})
	asked := false
	tr := NewTransport(Config{ServerURL: srv.URL + "/mcp", ClientID: "c", RedirectURL: "http://127.0.0.1/cb",
		Authorize: func(context.Context, string) (*url.URL, error) { asked = true; return nil, context.Canceled }})
	resp, err := (&http.Client{Transport: tr}).Post(srv.URL+"/mcp", "application/json", strings.NewReader(`{}`))
	if err == nil {
		resp.Body.Close()
		t.Fatalf("answered %s; want a refusal", resp.Status)
	}
	if !strings.Contains(err.Error(), "PKCE") || asked {
		t.Fatalf("err %v, user asked %v", err, asked)
	}
}

// TestClientAssertion: the ES256 assertion verifies with the public key
// and carries the RFC 7523 claims.
func TestClientAssertion(t *testing.T) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	signer, err := ParsePrivateKey(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	if err != nil {
		t.Fatal(err)
	}
	jwt, err := clientAssertion(signer, "cid", "https://as")
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		t.Fatalf("%d parts", len(parts))
	}
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	digest := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if len(sig) != 64 || !ecdsa.Verify(&key.PublicKey, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])) {
		t.Fatal("signature does not verify")
	}
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var claims map[string]any
	json.Unmarshal(payload, &claims)
	if claims["iss"] != "cid" || claims["sub"] != "cid" || claims["aud"] != "https://as" || claims["jti"] == "" {
		t.Fatalf("claims %v", claims)
	}
	if _, err := ParsePrivateKey([]byte("nope")); err == nil {
		t.Fatal("garbage parsed as a key")
	}
}
