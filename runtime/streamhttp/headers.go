package streamhttp

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"net/http"
	"strings"
	"unicode/utf8"
)

// ParamHeader is one x-mcp-header annotation of a tool's inputSchema: the
// header Mcp-Param-{Name} mirrors the argument at Path (a chain of
// properties keys from the arguments object).
type ParamHeader struct {
	Name string
	Path []string
}

const (
	b64Prefix = "=?base64?"
	b64Suffix = "?="
)

// EncodeHeaderValue encodes a value for Mcp-Name or Mcp-Param-*: as is when
// it is plain header-safe ASCII, else in the Base64 sentinel form
// (streamable-http.mdx "Value Encoding").
func EncodeHeaderValue(v string) string {
	safe := v == strings.TrimSpace(v) && !(strings.HasPrefix(v, b64Prefix) && strings.HasSuffix(v, b64Suffix))
	for i := 0; safe && i < len(v); i++ {
		c := v[i]
		safe = (c >= 0x20 && c <= 0x7e) || c == '\t'
	}
	if safe {
		return v
	}
	return b64Prefix + base64.StdEncoding.EncodeToString([]byte(v)) + b64Suffix
}

// decodeHeaderValue undoes EncodeHeaderValue; ok is false for characters a
// header value may not carry or a broken Base64 form.
func decodeHeaderValue(v string) (string, bool) {
	if strings.HasPrefix(v, b64Prefix) && strings.HasSuffix(v, b64Suffix) && len(v) >= len(b64Prefix)+len(b64Suffix) {
		b, err := base64.StdEncoding.DecodeString(v[len(b64Prefix) : len(v)-len(b64Suffix)])
		if err != nil || !utf8.Valid(b) {
			return "", false
		}
		return string(b), true
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !((c >= 0x20 && c <= 0x7e) || c == '\t') {
			return "", false
		}
	}
	return v, true
}

// checkParamHeaders validates Mcp-Param-* headers against the arguments:
// a present non-null value needs its header, equal after decoding (integers
// compared numerically); an absent or null value must have no header.
func checkParamHeaders(hd http.Header, params []ParamHeader, args json.RawMessage) string {
	var obj map[string]json.RawMessage
	_ = json.Unmarshal(args, &obj)
	for _, ph := range params {
		name := HeaderParamPrefix + ph.Name
		got := hd.Values(name)
		val := lookupPath(obj, ph.Path)
		if val == nil || bytes.Equal(val, []byte("null")) {
			if len(got) > 0 {
				return name + " header present but the argument is absent"
			}
			continue
		}
		if len(got) != 1 {
			return name + " header is required when the argument is present"
		}
		hv, ok := decodeHeaderValue(got[0])
		if !ok {
			return name + " header value has invalid characters"
		}
		if !valueMatches(val, hv) {
			return name + " header value does not match the body"
		}
	}
	return ""
}

func lookupPath(obj map[string]json.RawMessage, path []string) json.RawMessage {
	for i, k := range path {
		v, ok := obj[k]
		if !ok {
			return nil
		}
		if i == len(path)-1 {
			return v
		}
		obj = nil
		if json.Unmarshal(v, &obj) != nil {
			return nil
		}
	}
	return nil
}

func valueMatches(val json.RawMessage, header string) bool {
	switch {
	case len(val) > 0 && val[0] == '"':
		var s string
		return json.Unmarshal(val, &s) == nil && s == header
	case bytes.Equal(val, []byte("true")), bytes.Equal(val, []byte("false")):
		return string(val) == header
	default:
		a, ok1 := new(big.Rat).SetString(string(val))
		b, ok2 := new(big.Rat).SetString(header)
		return ok1 && ok2 && a.Cmp(b) == 0
	}
}
