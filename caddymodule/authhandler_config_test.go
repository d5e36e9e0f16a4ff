package caddymodule

import (
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

func TestAuthHandler_AnIdentityHeaderNameThatIsNotATokenIsRefused(t *testing.T) {
	for _, tt := range []struct {
		name    string
		headers IdentityHeaders
		want    string // "" for valid
	}{
		{"defaults", IdentityHeaders{}, ""},
		{"renamed and switched off", IdentityHeaders{UserID: "X-User", Username: "-", AppID: "x_app.id", MembershipExpiresAt: "X-Until"}, ""},
		// Go's transport refuses such a request: every user who passed
		// would get 502 from the proxy.
		{"a space", IdentityHeaders{UserID: "X User"}, "header_user_id"},
		{"a colon", IdentityHeaders{Username: "X-Name:"}, "header_username"},
		{"non-ASCII", IdentityHeaders{AppID: "X-Äpp"}, "header_app_id"},
		{"a slash", IdentityHeaders{MembershipExpiresAt: "X/Until"}, "header_membership_expires_at"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := &AuthHandler{AllowAnonymous: "off", Headers: tt.headers}
			err := h.Validate()
			switch {
			case tt.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tt.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tt.want+":")):
				t.Fatalf("error %v, want one naming %s", err, tt.want)
			}
		})
	}
}

func TestCaddyfile_RequireActiveMembershipNamesTheValuesItTakes(t *testing.T) {
	h := new(AuthHandler)
	err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser("app_access_auth {\n\trequire_active_membership maybe\n}"))
	// It said "invalid syntax".
	if err == nil || !strings.Contains(err.Error(), `require_active_membership: must be on or off, not "maybe"`) {
		t.Fatalf("error %v", err)
	}
}
