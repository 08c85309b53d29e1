package schema

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// OfficialRevision returns the revision of the official schema whose
// canonical digest (see CanonicalDigest) is digest, or "": the revision
// table's CanonicalSHA256 column, so a copy is recognised whatever its
// whitespace, line endings, key order or string escapes (a git checkout
// with autocrlf, or a re-indented vendored file, is still the official
// schema). TestOfficialCanonicalDigests keeps the column equal to the
// embedded schemas of package official.
func OfficialRevision(digest string) string {
	for _, r := range revisionTable {
		if r.CanonicalSHA256 == digest && digest != "" {
			return r.Version
		}
	}
	return ""
}

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
