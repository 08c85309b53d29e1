package auth_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/mcpgen/mcpgen/runtime/auth"
)

// TestIntrospection: RFC 7662 answers become identities (aud a string or an
// array, exp, scope); inactive is an invalid token; an endpoint failure is
// an outage, not an invalid token; the resource server authenticates.
func TestIntrospection(t *testing.T) {
	exp := time.Now().Add(time.Hour).Unix()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "rs" || p != "secret" {
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch r.PostFormValue("token") {
		case "good":
			w.Write([]byte(`{"active":true,"sub":"alice","scope":"mcp tools:write","client_id":"c1","aud":["` + resource + `","x"],"exp":` + strconv.FormatInt(exp, 10) + `,"iss":"` + issuer + `"}`))
		case "one-aud":
			w.Write([]byte(`{"active":true,"sub":"bob","aud":"` + resource + `"}`))
		case "other-issuer":
			w.Write([]byte(`{"active":true,"sub":"bob","iss":"https://evil.example"}`))
		case "broken":
			http.Error(w, "boom", http.StatusInternalServerError)
		default:
			w.Write([]byte(`{"active":false}`))
		}
	}))
	defer srv.Close()
	v := &auth.IntrospectionVerifier{Endpoint: srv.URL, ClientID: "rs", ClientSecret: "secret", Issuer: issuer}
	ctx := context.Background()
	id, err := v.Verify(ctx, "good")
	if err != nil || id.Subject != "alice" || id.ClientID != "c1" || len(id.Scopes) != 2 || len(id.Audience) != 2 || id.Expiry.Unix() != exp || id.Issuer != issuer {
		t.Errorf("good: %+v, %v", id, err)
	}
	if id, err := v.Verify(ctx, "one-aud"); err != nil || len(id.Audience) != 1 || id.Issuer != issuer {
		t.Errorf("one-aud: %+v, %v", id, err)
	}
	for _, tok := range []string{"revoked", "other-issuer"} {
		if _, err := v.Verify(ctx, tok); !errors.Is(err, auth.ErrInvalidToken) {
			t.Errorf("%s: %v, want ErrInvalidToken", tok, err)
		}
	}
	if _, err := v.Verify(ctx, "broken"); !errors.Is(err, auth.ErrVerifierUnavailable) {
		t.Errorf("broken endpoint: %v, want ErrVerifierUnavailable", err)
	}
	bad := &auth.IntrospectionVerifier{Endpoint: srv.URL, ClientID: "rs", ClientSecret: "wrong"}
	if _, err := bad.Verify(ctx, "good"); !errors.Is(err, auth.ErrVerifierUnavailable) {
		t.Errorf("endpoint refusing the resource server: %v, want ErrVerifierUnavailable", err)
	}
}
