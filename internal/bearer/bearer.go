// Package bearer owns the check of a bearer token (RFC 6750) in an HTTP
// Authorization header or gRPC authorization metadata, shared by REST and
// gRPC so that both accept exactly the same credentials.
package bearer

import (
	"crypto/subtle"
	"strings"
)

// Token returns the token of a "Bearer <token>" credential. As RFC 7235
// says, the scheme is case-insensitive and separated from the token by one
// or more spaces; any other scheme, or no token, is false.
func Token(credential string) (string, bool) {
	scheme, rest, ok := strings.Cut(credential, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	tok := strings.TrimLeft(rest, " ")
	return tok, tok != ""
}

// Matches reports whether credential carries the bearer token want, in
// constant time with respect to the token's content.
func Matches(credential, want string) bool {
	tok, ok := Token(credential)
	return ok && subtle.ConstantTimeCompare([]byte(tok), []byte(want)) == 1
}
