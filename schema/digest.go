package schema

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// officialCanonical maps the canonical digest (see CanonicalDigest) of
// each official schema.json to its revision, so a copy is recognised
// whatever its whitespace, line endings, key order or string escapes: a
// git checkout with autocrlf, or a re-indented vendored file, is still
// the official schema. TestOfficialCanonicalDigests keeps it equal to the
// embedded schemas of package official.
var officialCanonical = map[string]string{
	"9a1a5ef2d4db51e864947eee3081637b13b78dfc3699edbcb352761987a0fee8": "2024-11-05",
	"dd69e073199dd24e9e86bbd0e03c960c9c6b96a70d95070bb2644cbf1ca03178": "2025-03-26",
	"cff2c4f638c2b5849dd6b5ec150c751232821c8350a897126c3f6775092cf59d": "2025-06-18",
	"9105f0f264e7b7d9c4125b0a5c844ae5b16e7c5cb947ec04db6e3c8eb325923b": "2025-11-25",
	"6b3a3dd3090f1a3954dc653be746b86c4cab968de0717b541f40d2ae9955a2b1": "2026-07-28",
}

// OfficialRevision returns the revision of the official schema whose
// canonical digest is digest, or "".
func OfficialRevision(digest string) string { return officialCanonical[digest] }

// CanonicalDigest is the hex sha256 of the canonical form of a JSON
// document: parsed, then written back with object keys sorted, no
// whitespace, and strings escaped the one way encoding/json escapes them
// (numbers keep their literal text). Two files that differ only in
// formatting have the same digest.
func CanonicalDigest(data []byte) (string, error) {
	v, err := decodeJSON(data)
	if err != nil {
		return "", err
	}
	return canonicalDigest(v)
}

// canonicalDigest is CanonicalDigest of an already decoded document (as
// decodeJSON returns it: numbers as json.Number).
func canonicalDigest(v any) (string, error) {
	h := sha256.New()
	enc := json.NewEncoder(h)
	enc.SetEscapeHTML(false)
	// encoding/json writes map keys sorted and no insignificant space;
	// Encode's trailing newline is the same for every document.
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
