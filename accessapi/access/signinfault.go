package access

import "errors"

// SignInFault is a failed administrator sign-in whose cause is the
// server's, not the client's: the administrator's TOTP secret cannot be
// opened (the file key changed, or the stored secret is damaged). The
// client is answered as for any other failed sign-in (errors.As finds the
// invalid_credentials refusal first, and the attempt counts as a failure),
// since an answer of its own would tell a guesser that the password was
// right. Cause is for the operator's log; it names the administrator and
// never a secret.
type SignInFault struct {
	Username string
	Cause    error
}

func (f *SignInFault) Error() string {
	return "administrator sign-in of " + f.Username + " failed on the server's side: " + f.Cause.Error()
}

// Unwrap gives the refusal the client sees, then the cause.
func (f *SignInFault) Unwrap() []error { return []error{errAdminSignIn, f.Cause} }

// signInFault reports whether err is a SignInFault.
func signInFault(err error) bool {
	var f *SignInFault
	return errors.As(err, &f)
}
