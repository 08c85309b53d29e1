package oauthclient

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/asn1"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"time"
)

// jwtBearerAssertion is the client_assertion_type of private_key_jwt
// client authentication (RFC 7523 section 2.2).
const jwtBearerAssertion = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"

// ParsePrivateKey reads a PEM private key (PKCS #8, or SEC 1 "EC PRIVATE
// KEY", or PKCS #1 "RSA PRIVATE KEY") for Config.ClientAssertionKey.
func ParsePrivateKey(pemData []byte) (crypto.Signer, error) {
	block, _ := pem.Decode(pemData)
	if block == nil {
		return nil, errors.New("private key: no PEM block")
	}
	var key any
	var err error
	switch block.Type {
	case "EC PRIVATE KEY":
		key, err = x509.ParseECPrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	}
	if err != nil {
		return nil, fmt.Errorf("private key: %w", err)
	}
	s, ok := key.(crypto.Signer)
	if !ok {
		return nil, fmt.Errorf("private key: %T cannot sign", key)
	}
	return s, nil
}

// clientAssertion makes a signed JWT that authenticates clientID at the
// authorization server audience (RFC 7523 section 3): ES256 for a P-256
// key, RS256 for an RSA key. Each call makes a new one (own jti, iat,
// five-minute exp), as each token request needs.
func clientAssertion(key crypto.Signer, clientID, audience string) (string, error) {
	var alg string
	switch k := key.Public().(type) {
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() {
			return "", errors.New("client assertion: only P-256 EC keys (ES256) are supported")
		}
		alg = "ES256"
	case *rsa.PublicKey:
		alg = "RS256"
	default:
		return "", fmt.Errorf("client assertion: unsupported key %T", k)
	}
	jti := make([]byte, 16)
	if _, err := rand.Read(jti); err != nil {
		return "", err
	}
	now := time.Now()
	return signJWT(key, alg, map[string]any{"alg": alg, "typ": "JWT"}, map[string]any{"iss": clientID, "sub": clientID, "aud": audience,
		"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(), "jti": base64.RawURLEncoding.EncodeToString(jti)})
}

// signJWT makes a compact JWS of claims with header, signed by key with
// alg (ES256 or RS256).
func signJWT(key crypto.Signer, alg string, header, claims map[string]any) (string, error) {
	h, err := json.Marshal(header)
	if err != nil {
		return "", err
	}
	c, err := json.Marshal(claims)
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	signing := enc.EncodeToString(h) + "." + enc.EncodeToString(c)
	digest := sha256.Sum256([]byte(signing))
	var sig []byte
	if alg == "ES256" {
		der, err := key.Sign(rand.Reader, digest[:], crypto.SHA256)
		if err != nil {
			return "", err
		}
		// JWS wants r||s, 32 bytes each, not ASN.1 (RFC 7518 section 3.4).
		var rs struct{ R, S *big.Int }
		if _, err := asn1.Unmarshal(der, &rs); err != nil {
			return "", err
		}
		sig = make([]byte, 64)
		rs.R.FillBytes(sig[:32])
		rs.S.FillBytes(sig[32:])
	} else {
		var err error
		if sig, err = key.Sign(rand.Reader, digest[:], crypto.SHA256); err != nil {
			return "", err
		}
	}
	return signing + "." + enc.EncodeToString(sig), nil
}
