package oauthclient

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// DPoP (RFC 9449, the MCP DPoP extension SEP-1932): with Config.DPoP, a
// Transport whose authorization server advertises ES256 in
// dpop_signing_alg_values_supported binds its tokens to a key of its own:
// every token request carries a DPoP proof, and a token the server issued
// as token_type DPoP is presented with the DPoP scheme and a fresh proof
// per request (htm, htu, iat, jti, and ath, the token's hash). A server
// that asks for a nonce (use_dpop_nonce with a DPoP-Nonce header, the
// authorization server in a 400, the MCP server in a 401) gets the request
// again with it, once; later proofs to that origin carry the newest nonce
// it sent.

// dpopKeys is a Transport's DPoP key and the nonces servers gave it.
type dpopKeys struct {
	key *ecdsa.PrivateKey
	jwk map[string]any // the public key, as the proofs' jwk header

	mu     sync.Mutex
	nonces map[string]string // by origin (scheme://host)
}

func newDPoP(key *ecdsa.PrivateKey) (*dpopKeys, error) {
	if key == nil {
		var err error
		if key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader); err != nil {
			return nil, err
		}
	}
	if key.Curve != elliptic.P256() {
		return nil, errors.New("oauthclient: Config.DPoPKey must be a P-256 key (ES256)")
	}
	ecdh, err := key.PublicKey.ECDH()
	if err != nil {
		return nil, err
	}
	pub := ecdh.Bytes() // 0x04 || X || Y, 32 bytes each
	enc := base64.RawURLEncoding
	return &dpopKeys{key: key, nonces: map[string]string{},
		jwk: map[string]any{"kty": "EC", "crv": "P-256", "x": enc.EncodeToString(pub[1:33]), "y": enc.EncodeToString(pub[33:])}}, nil
}

func origin(u *url.URL) string { return strings.ToLower(u.Scheme) + "://" + strings.ToLower(u.Host) }

// proof makes a DPoP proof for a request (RFC 9449 section 4.2); with an
// access token it carries ath, its hash.
func (d *dpopKeys) proof(method string, target *url.URL, accessToken string) (string, error) {
	jti := make([]byte, 16)
	if _, err := rand.Read(jti); err != nil {
		return "", err
	}
	htu := *target
	htu.RawQuery, htu.Fragment, htu.RawFragment = "", "", ""
	claims := map[string]any{"jti": base64.RawURLEncoding.EncodeToString(jti), "htm": method, "htu": htu.String(), "iat": time.Now().Unix()}
	d.mu.Lock()
	if n := d.nonces[origin(target)]; n != "" {
		claims["nonce"] = n
	}
	d.mu.Unlock()
	if accessToken != "" {
		sum := sha256.Sum256([]byte(accessToken))
		claims["ath"] = base64.RawURLEncoding.EncodeToString(sum[:])
	}
	return signJWT(d.key, "ES256", map[string]any{"typ": "dpop+jwt", "alg": "ES256", "jwk": d.jwk}, claims)
}

// remember keeps the nonce a response gives (DPoP-Nonce) for its origin;
// it reports whether the response carried one.
func (d *dpopKeys) remember(resp *http.Response) bool {
	n := resp.Header.Get("DPoP-Nonce")
	if n == "" || resp.Request == nil {
		return false
	}
	d.mu.Lock()
	d.nonces[origin(resp.Request.URL)] = n
	d.mu.Unlock()
	return true
}

// supportsDPoP reports whether the authorization server takes ES256 DPoP
// proofs (RFC 9449 section 5.1).
func supportsDPoP(as *ServerMetadata) bool {
	return slices.Contains(as.DPoPSigningAlgValuesSupported, "ES256")
}

// dpopTokenTransport adds a DPoP proof to the token requests sent through
// it (form POSTs), and sends one again with the nonce the authorization
// server asks for (RFC 9449 section 8).
type dpopTokenTransport struct {
	base http.RoundTripper
	d    *dpopKeys
}

func (t dpopTokenTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodPost {
		return t.base.RoundTrip(req)
	}
	for retried := false; ; retried = true {
		p, err := t.d.proof(req.Method, req.URL, "")
		if err != nil {
			return nil, err
		}
		try := req.Clone(req.Context())
		if retried {
			if req.GetBody == nil {
				return nil, errors.New("oauthclient: token request body cannot be sent again with the DPoP nonce")
			}
			if try.Body, err = req.GetBody(); err != nil {
				return nil, err
			}
		}
		try.Header.Set("DPoP", p)
		resp, err := t.base.RoundTrip(try)
		if err != nil {
			return nil, err
		}
		if !t.d.remember(resp) || resp.StatusCode != http.StatusBadRequest || retried {
			return resp, nil
		}
		// A 400 with a nonce: use_dpop_nonce means "again, with it".
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		resp.Body.Close()
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(body, &e) != nil || e.Error != "use_dpop_nonce" {
			resp.Body = io.NopCloser(bytes.NewReader(body))
			return resp, nil
		}
	}
}

// isDPoPNonceChallenge reports whether a resource server's 401 asks for
// the request again with the DPoP nonce it sent (RFC 9449 section 9).
func isDPoPNonceChallenge(resp *http.Response) bool {
	if resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("DPoP-Nonce") == "" {
		return false
	}
	ch, ok := ParseChallenge(resp.Header.Values("WWW-Authenticate"))
	return ok && ch.Error == "use_dpop_nonce"
}
