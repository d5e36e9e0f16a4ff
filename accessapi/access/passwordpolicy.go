package access

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// commonPasswordsGz lists, lower-cased, the 49,233 most common passwords of
// public breach corpora: the passwords dictionary of the npm package
// @zxcvbn-ts/language-common 4.1.3 (MIT; Copyright (c) 2012-2016 Dan Wheeler
// and Dropbox, Inc., Copyright (c) 2021 @zxcvbn-ts).
//
//go:embed common_passwords.txt.gz
var commonPasswordsGz []byte

// commonPasswords is the set of commonPasswordsGz, read on first use.
var commonPasswords = sync.OnceValue(func() map[string]struct{} {
	zr, err := gzip.NewReader(bytes.NewReader(commonPasswordsGz))
	if err != nil {
		panic(fmt.Sprintf("common password list: %v", err)) // embedded at build time
	}
	set := make(map[string]struct{}, 50_000)
	sc := bufio.NewScanner(zr)
	for sc.Scan() {
		set[sc.Text()] = struct{}{}
	}
	if err := sc.Err(); err != nil {
		panic(fmt.Sprintf("common password list: %v", err))
	}
	return set
})

// IsCommonPassword reports whether password, in any case, is one of the
// most common breached passwords.
func IsCommonPassword(password string) bool {
	_, found := commonPasswords()[strings.ToLower(password)]
	return found
}

// validatePassword applies the password rules of NIST SP 800-63B: at least
// the application's minimum length (in characters), at most
// MaxPasswordBytes, not one of the most common breached passwords, and not
// containing the username. Composition rules are not imposed.
func validatePassword(app *App, username, password string) *FieldError {
	minLen := max(app.MinPasswordLength, 1)
	switch {
	case len(password) > MaxPasswordBytes:
		return &FieldError{"password", fmt.Sprintf("must be at most %d bytes", MaxPasswordBytes)}
	case utf8.RuneCountInString(password) < minLen:
		return &FieldError{"password", fmt.Sprintf("must be at least %d characters long", minLen)}
	case IsCommonPassword(password):
		return &FieldError{"password", "is one of the most common passwords; choose another"}
	case len(username) >= MinUsernameLength && strings.Contains(strings.ToLower(password), strings.ToLower(username)):
		return &FieldError{"password", "must not contain the username"}
	}
	return nil
}
