package caddymodule

import (
	"github.com/spf13/cobra"

	"github.com/appaccess/appaccess/accessapi/adminclient"
	"github.com/appaccess/appaccess/accessapi/wire"
)

var appColumns = []column[wire.App]{
	{"id", func(a wire.App) string { return a.ID }},
	{"name", func(a wire.App) string { return a.Name }},
	{"api_key", func(a wire.App) string { return a.APIKey }},
	{"api_secret", func(a wire.App) string { return text(a.APISecret) }},
	{"device_auth", func(a wire.App) string { return yesNo(a.DeviceAuth) }},
	{"anonymous_access", func(a wire.App) string { return yesNo(a.AnonymousAccess) }},
	{"max_devices", func(a wire.App) string { return number(a.MaxDevices) }},
	{"min_password_length", func(a wire.App) string { return number(a.MinPasswordLength) }},
	{"session_ttl", func(a wire.App) string { return a.SessionTTL }},
	{"created_at", func(a wire.App) string { return a.CreatedAt }},
}

// appListColumns are the columns of apps list: no secret is ever listed.
var appListColumns = []column[wire.App]{appColumns[0], appColumns[1], appColumns[2], appColumns[4], appColumns[5], appColumns[9]}

var secretColumns = []column[wire.SecretRotation]{
	{"api_secret", func(s wire.SecretRotation) string { return s.APISecret }},
}

// appSettingsFlags are the flags of apps create and update; only the ones
// given are sent.
type appSettingsFlags struct {
	name, sessionTTL            string
	deviceAuth, anonymousAccess bool
	maxDevices, minPassword     int
}

func (f *appSettingsFlags) add(cmd *cobra.Command) *cobra.Command {
	fl := cmd.Flags()
	fl.StringVar(&f.name, "name", "", "the application's name")
	fl.BoolVar(&f.deviceAuth, "device-auth", false, "require a hardware id")
	fl.BoolVar(&f.anonymousAccess, "anonymous-access", false, "allow app_context without a user")
	fl.IntVar(&f.maxDevices, "max-devices", 1, "devices per user")
	fl.IntVar(&f.minPassword, "min-password-length", 8, "minimum password length")
	fl.StringVar(&f.sessionTTL, "session-ttl", "24h", "session lifetime")
	return cmd
}

func (f *appSettingsFlags) settings(cmd *cobra.Command) wire.AppSettings {
	var st wire.AppSettings
	changed := cmd.Flags().Changed
	if changed("name") {
		st.Name = &f.name
	}
	if changed("device-auth") {
		st.DeviceAuth = &f.deviceAuth
	}
	if changed("anonymous-access") {
		st.AnonymousAccess = &f.anonymousAccess
	}
	if changed("max-devices") {
		st.MaxDevices = &f.maxDevices
	}
	if changed("min-password-length") {
		st.MinPasswordLength = &f.minPassword
	}
	if changed("session-ttl") {
		st.SessionTTL = &f.sessionTTL
	}
	return st
}

func (c *cli) appsCommand() *cobra.Command {
	apps := &cobra.Command{Use: "apps", Short: "Applications"}
	var createFlags, updateFlags appSettingsFlags
	create := createFlags.add(&cobra.Command{Use: "create --name NAME", Short: "Create an application (its secret is shown only now)", Args: cobra.NoArgs,
		RunE: c.run(func(cmd *cobra.Command, cl *adminclient.Client, _ []string) error {
			app, err := cl.CreateApp(cmd.Context(), createFlags.settings(cmd))
			if err != nil {
				return err
			}
			return printObject(c.printer(), *app, appColumns)
		})})
	update := updateFlags.add(&cobra.Command{Use: "update APP_ID", Short: "Change an application's settings", Args: cobra.ExactArgs(1),
		RunE: c.run(func(cmd *cobra.Command, cl *adminclient.Client, args []string) error {
			app, err := cl.UpdateApp(cmd.Context(), args[0], updateFlags.settings(cmd))
			if err != nil {
				return err
			}
			return printObject(c.printer(), *app, appColumns)
		})})
	list := &cobra.Command{Use: "list", Short: "List applications", Args: cobra.NoArgs,
		RunE: c.run(func(cmd *cobra.Command, cl *adminclient.Client, _ []string) error {
			page, err := cl.Apps(cmd.Context())
			if err != nil {
				return err
			}
			return printPage(c.printer(), page, appListColumns)
		})}
	show := &cobra.Command{Use: "show APP_ID", Short: "Show an application", Args: cobra.ExactArgs(1),
		RunE: c.run(func(cmd *cobra.Command, cl *adminclient.Client, args []string) error {
			app, err := cl.App(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return printObject(c.printer(), *app, appColumns)
		})}
	del := &cobra.Command{Use: "delete APP_ID", Short: "Delete an application", Args: cobra.ExactArgs(1),
		RunE: c.run(func(cmd *cobra.Command, cl *adminclient.Client, args []string) error {
			if err := cl.DeleteApp(cmd.Context(), args[0]); err != nil {
				return err
			}
			return printDone(c.printer())
		})}
	rotate := &cobra.Command{Use: "rotate-secret APP_ID", Short: "Give an application a new secret", Args: cobra.ExactArgs(1),
		RunE: c.run(func(cmd *cobra.Command, cl *adminclient.Client, args []string) error {
			s, err := cl.RotateSecret(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return printObject(c.printer(), *s, secretColumns)
		})}
	apps.AddCommand(create, update, list, show, del, rotate)
	return apps
}
