package caddymodule

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/appaccess/appaccess/accessapi/adminclient"
	"github.com/appaccess/appaccess/accessapi/wire"
)

var adminColumns = []column[wire.Admin]{
	{"username", func(a wire.Admin) string { return a.Username }},
	{"totp", func(a wire.Admin) string { return yesNo(a.TOTPEnabled) }},
	{"created", func(a wire.Admin) string { return a.CreatedAt }},
}

var totpColumns = []column[wire.TOTPEnrolment]{
	{"secret", func(e wire.TOTPEnrolment) string { return e.Secret }},
	{"url", func(e wire.TOTPEnrolment) string { return e.URL }},
}

// adminsCommand manages dashboard administrators.
func (c *cli) adminsCommand() *cobra.Command {
	var username string
	named := func(cmd *cobra.Command) *cobra.Command {
		cmd.Flags().StringVar(&username, "username", "", "the administrator's username (required)")
		_ = cmd.MarkFlagRequired("username")
		return cmd
	}
	admins := &cobra.Command{Use: "admins", Short: "Dashboard administrators"}
	var password string
	admins.AddCommand(
		showCommand(c, c.readsPassword(named(&cobra.Command{Use: "create", Short: "Create an administrator; the password is read from stdin", Args: cobra.NoArgs}), &password),
			adminColumns, func(cmd *cobra.Command, cl *adminclient.Client, _ []string) (*wire.Admin, error) {
				return cl.CreateAdmin(cmd.Context(), wire.NewAdmin{Username: username, Password: password})
			}),
		listCommand(c, &cobra.Command{Use: "list", Short: "List administrators", Args: cobra.NoArgs},
			adminColumns, func(cmd *cobra.Command, cl *adminclient.Client, _ []string) (*wire.Page[wire.Admin], error) {
				return cl.Admins(cmd.Context())
			}),
		doneCommand(c, c.readsPassword(named(&cobra.Command{Use: "set-password", Short: "Set an administrator's password (read from stdin; for a forgotten one) and end their sessions; TOTP stays", Args: cobra.NoArgs}), &password),
			func(cmd *cobra.Command, cl *adminclient.Client, _ []string) error {
				return cl.SetAdminPassword(cmd.Context(), username, password)
			}),
		doneCommand(c, named(&cobra.Command{Use: "delete", Short: "Delete an administrator and end their sessions", Args: cobra.NoArgs}),
			func(cmd *cobra.Command, cl *adminclient.Client, _ []string) error {
				return cl.DeleteAdmin(cmd.Context(), username)
			}),
		showCommand(c, named(&cobra.Command{Use: "totp-begin", Short: "Give an administrator a new pending TOTP secret (shown once); an enabled one stays in force until totp-confirm", Args: cobra.NoArgs}),
			totpColumns, func(cmd *cobra.Command, cl *adminclient.Client, _ []string) (*wire.TOTPEnrolment, error) {
				return cl.BeginTOTP(cmd.Context(), username)
			}),
		doneCommand(c, named(&cobra.Command{Use: "totp-confirm CODE", Short: "Enable the pending TOTP secret with a code from the authenticator", Args: cobra.ExactArgs(1)}),
			func(cmd *cobra.Command, cl *adminclient.Client, args []string) error {
				return cl.ConfirmTOTP(cmd.Context(), username, args[0])
			}),
		doneCommand(c, named(&cobra.Command{Use: "totp-disable", Short: "Remove an administrator's TOTP secrets, enabled and pending", Args: cobra.NoArgs}),
			func(cmd *cobra.Command, cl *adminclient.Client, _ []string) error {
				return cl.DisableTOTP(cmd.Context(), username)
			}),
	)
	return admins
}

var sellerKeyColumns = []column[wire.SellerKey]{
	{"id", func(k wire.SellerKey) string { return k.ID }},
	{"name", func(k wire.SellerKey) string { return k.Name }},
	{"scopes", func(k wire.SellerKey) string { return strings.Join(k.Scopes, " ") }},
	{"created", func(k wire.SellerKey) string { return k.CreatedAt }},
	{"last_used", func(k wire.SellerKey) string { return text(k.LastUsedAt) }},
}

// keysCommand manages an application's seller keys.
func (c *cli) keysCommand() *cobra.Command {
	var app, name string
	var scopes []string
	keys := &cobra.Command{Use: "keys", Short: "Seller keys: scoped API keys of an application"}
	create := appScoped(&cobra.Command{Use: "create", Short: "Create a seller key; its secret is printed once", Args: cobra.NoArgs}, &app)
	create.Flags().StringVar(&name, "name", "", "what the key is for (required)")
	create.Flags().StringSliceVar(&scopes, "scope", nil, "a scope (repeatable): licenses:create, licenses:read, users:read, users:write, content:write, audit:read")
	_ = create.MarkFlagRequired("name")
	createdColumns := append([]column[wire.SellerKey]{{"key", func(k wire.SellerKey) string { return k.Key }}}, sellerKeyColumns...)
	keys.AddCommand(
		showCommand(c, create, createdColumns, func(cmd *cobra.Command, cl *adminclient.Client, _ []string) (*wire.SellerKey, error) {
			return cl.CreateSellerKey(cmd.Context(), app, wire.NewSellerKey{Name: name, Scopes: scopes})
		}),
		listCommand(c, appScoped(&cobra.Command{Use: "list", Short: "List seller keys", Args: cobra.NoArgs}, &app),
			sellerKeyColumns, func(cmd *cobra.Command, cl *adminclient.Client, _ []string) (*wire.Page[wire.SellerKey], error) {
				return cl.SellerKeys(cmd.Context(), app)
			}),
		doneCommand(c, appScoped(&cobra.Command{Use: "revoke KEY_ID", Short: "Revoke a seller key at once", Args: cobra.ExactArgs(1)}, &app),
			func(cmd *cobra.Command, cl *adminclient.Client, args []string) error {
				return cl.RevokeSellerKey(cmd.Context(), app, args[0])
			}),
	)
	return keys
}
