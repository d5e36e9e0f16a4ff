package caddymodule

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/appaccess/appaccess/accessapi/access"
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
	{"token_requires_hardware_id", func(a wire.App) string { return yesNo(a.TokenRequiresHardwareID) }},
	{"max_sessions", func(a wire.App) string { return number(a.MaxSessions) }},
	{"created_at", func(a wire.App) string { return a.CreatedAt }},
	{"offline_token_ttl", func(a wire.App) string { return text(a.OfflineTokenTTL) }},
}

// appShowColumns are apps show's: the settings, then the counts.
var appShowColumns = append(appColumns[:len(appColumns):len(appColumns)], []column[wire.App]{
	{"licenses", func(a wire.App) string { return count(a.Counts, func(c wire.AppCounts) int64 { return c.Licenses }) }},
	{"licenses_used", func(a wire.App) string {
		return count(a.Counts, func(c wire.AppCounts) int64 { return c.LicensesUsed })
	}},
	{"licenses_unused", func(a wire.App) string {
		return count(a.Counts, func(c wire.AppCounts) int64 { return c.LicensesUnused })
	}},
	{"users", func(a wire.App) string { return count(a.Counts, func(c wire.AppCounts) int64 { return c.Users }) }},
	{"active_members", func(a wire.App) string {
		return count(a.Counts, func(c wire.AppCounts) int64 { return c.ActiveMembers })
	}},
	{"signing_keys", func(a wire.App) string { return signingKeysText(a.SigningKeys) }},
}...)

// signingKeysText shows an application's published signing keys on one
// line: id, algorithm and public key of each, the active one marked.
func signingKeysText(keys []wire.SigningKey) string {
	if len(keys) == 0 {
		return "-"
	}
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k.ID + " " + k.Algorithm + " " + k.PublicKey
		if k.Active {
			parts[i] += " (active)"
		}
	}
	return strings.Join(parts, "; ")
}

var signingKeyColumns = []column[wire.SigningKey]{
	{"id", func(k wire.SigningKey) string { return k.ID }},
	{"algorithm", func(k wire.SigningKey) string { return k.Algorithm }},
	{"public_key", func(k wire.SigningKey) string { return k.PublicKey }},
	{"created_at", func(k wire.SigningKey) string { return k.CreatedAt }},
	{"active", func(k wire.SigningKey) string { return yesNo(k.Active) }},
}

// signingKeysCommand is apps signing-keys: rotate and retire.
func (c *cli) signingKeysCommand() *cobra.Command {
	keys := &cobra.Command{Use: "signing-keys", Short: "The keys an application's answers and offline tokens are signed with"}
	keys.AddCommand(
		showCommand(c, &cobra.Command{Use: "rotate APP_ID", Short: "Make a new active signing key (the old ones stay published)", Args: cobra.ExactArgs(1)},
			signingKeyColumns, func(cmd *cobra.Command, cl *adminclient.Client, args []string) (*wire.SigningKey, error) {
				return cl.RotateSigningKey(cmd.Context(), args[0])
			}),
		doneCommand(c, &cobra.Command{Use: "retire APP_ID KEY_ID", Short: "Stop publishing a signing key that is not the active one", Args: cobra.ExactArgs(2)},
			func(cmd *cobra.Command, cl *adminclient.Client, args []string) error {
				return cl.RetireSigningKey(cmd.Context(), args[0], args[1])
			}),
	)
	return keys
}

// count is one of an application's counts, or "-" where none were sent.
func count(c *wire.AppCounts, pick func(wire.AppCounts) int64) string {
	if c == nil {
		return "-"
	}
	return strconv.FormatInt(pick(*c), 10)
}

// appListColumns are the columns of apps list: no secret is ever listed.
var appListColumns = []column[wire.App]{appColumns[0], appColumns[1], appColumns[2], appColumns[4], appColumns[5], appColumns[11]}

var secretColumns = []column[wire.SecretRotation]{
	{"api_secret", func(s wire.SecretRotation) string { return s.APISecret }},
}

// appSettingsFlags are the flags of apps create and update; only the ones
// given are sent.
type appSettingsFlags struct {
	name, sessionTTL, offlineTokenTTL        string
	deviceAuth, anonymousAccess, tokenDevice bool
	maxDevices, minPassword, maxSessions     int
}

// add registers the flags on cmd. create shows the defaults a new
// application gets; update shows none, since a flag not given keeps the
// application's current value.
func (f *appSettingsFlags) add(cmd *cobra.Command, create bool) *cobra.Command {
	fl := cmd.Flags()
	pick := func(def int) int {
		if create {
			return def
		}
		return 0
	}
	pickText := func(def string) string {
		if create {
			return def
		}
		return ""
	}
	fl.StringVar(&f.name, "name", "", "the application's name")
	fl.BoolVar(&f.deviceAuth, "device-auth", false, "require a hardware id")
	fl.BoolVar(&f.anonymousAccess, "anonymous-access", false, "allow app_context without a user")
	fl.IntVar(&f.maxDevices, "max-devices", pick(1), "devices per user")
	fl.IntVar(&f.minPassword, "min-password-length", pick(8), "minimum password length")
	fl.StringVar(&f.sessionTTL, "session-ttl", pickText("24h"), "session lifetime")
	fl.IntVar(&f.maxSessions, "max-sessions", pick(10), "open sessions per user (the oldest ends)")
	fl.BoolVar(&f.tokenDevice, "token-requires-hardware-id", false, "with device auth, require x-hardware-id on token requests")
	fl.StringVar(&f.offlineTokenTTL, "offline-token-ttl", pickText("72h"), "offline license token lifetime (never past the membership)")
	if !create {
		cmd.Long = cmd.Short + ". Only the settings given change; the others keep their value.\n" +
			"A boolean setting is switched off with --flag=false."
	}
	return cmd
}

func (f *appSettingsFlags) settings(cmd *cobra.Command) wire.AppSettings {
	given := cmd.Flags().Changed
	return wire.AppSettings{
		Name:                    ifGiven(given("name"), &f.name),
		DeviceAuth:              ifGiven(given("device-auth"), &f.deviceAuth),
		AnonymousAccess:         ifGiven(given("anonymous-access"), &f.anonymousAccess),
		MaxDevices:              ifGiven(given("max-devices"), &f.maxDevices),
		MinPasswordLength:       ifGiven(given("min-password-length"), &f.minPassword),
		SessionTTL:              ifGiven(given("session-ttl"), &f.sessionTTL),
		TokenRequiresHardwareID: ifGiven(given("token-requires-hardware-id"), &f.tokenDevice),
		MaxSessions:             ifGiven(given("max-sessions"), &f.maxSessions),
		OfflineTokenTTL:         ifGiven(given("offline-token-ttl"), &f.offlineTokenTTL),
	}
}

// ifGiven is v when its flag was given, else nil (the setting is kept).
func ifGiven[T any](given bool, v *T) *T {
	if given {
		return v
	}
	return nil
}

// activityColumns are the columns of apps activity.
var activityColumns = []column[wire.ActivityDay]{
	{"day", func(d wire.ActivityDay) string { return d.Day }},
	{"sign_ups", func(d wire.ActivityDay) string { return strconv.FormatInt(d.SignUps, 10) }},
	{"activations", func(d wire.ActivityDay) string { return strconv.FormatInt(d.Activations, 10) }},
}

// activityCommand is apps activity: sign-ups and activations per day.
func (c *cli) activityCommand() *cobra.Command {
	var days int
	cmd := &cobra.Command{Use: "activity APP_ID", Short: "Sign-ups and license activations per UTC day, ending today", Args: cobra.ExactArgs(1)}
	cmd.Flags().IntVar(&days, "days", 0, "how many days, 1 to 366 (default 14)")
	cmd.RunE = c.run(func(cmd *cobra.Command, cl *adminclient.Client, args []string) error {
		// 0 is how the client asks for the default: a --days 0 given
		// must not quietly become 14 days.
		if cmd.Flags().Changed("days") && days < 1 {
			return fmt.Errorf("--days must be from 1 to %d", access.MaxActivityDays)
		}
		a, err := cl.Activity(cmd.Context(), args[0], days)
		if err != nil {
			return err
		}
		if p := c.printer(); p.json {
			return p.writeJSON(a)
		}
		return printTable(c.out, a.Days, activityColumns)
	})
	return cmd
}

func (c *cli) appsCommand() *cobra.Command {
	apps := &cobra.Command{Use: "apps", Short: "Applications"}
	var createFlags, updateFlags appSettingsFlags
	apps.AddCommand(
		showCommand(c, createFlags.add(&cobra.Command{Use: "create --name NAME", Short: "Create an application (its secret is shown only now)", Args: cobra.NoArgs}, true),
			appColumns, func(cmd *cobra.Command, cl *adminclient.Client, _ []string) (*wire.App, error) {
				return cl.CreateApp(cmd.Context(), createFlags.settings(cmd))
			}),
		showCommand(c, updateFlags.add(&cobra.Command{Use: "update APP_ID", Short: "Change an application's settings", Args: cobra.ExactArgs(1)}, false),
			appColumns, func(cmd *cobra.Command, cl *adminclient.Client, args []string) (*wire.App, error) {
				return cl.UpdateApp(cmd.Context(), args[0], updateFlags.settings(cmd))
			}),
		listCommand(c, &cobra.Command{Use: "list", Short: "List applications", Args: cobra.NoArgs},
			appListColumns, func(cmd *cobra.Command, cl *adminclient.Client, _ []string) (*wire.Page[wire.App], error) {
				return cl.Apps(cmd.Context())
			}),
		showCommand(c, &cobra.Command{Use: "show APP_ID", Short: "Show an application and its counts", Args: cobra.ExactArgs(1)},
			appShowColumns, func(cmd *cobra.Command, cl *adminclient.Client, args []string) (*wire.App, error) {
				return cl.App(cmd.Context(), args[0])
			}),
		doneCommand(c, &cobra.Command{Use: "delete APP_ID", Short: "Delete an application", Args: cobra.ExactArgs(1)},
			func(cmd *cobra.Command, cl *adminclient.Client, args []string) error {
				return cl.DeleteApp(cmd.Context(), args[0])
			}),
		c.activityCommand(),
		showCommand(c, &cobra.Command{Use: "rotate-secret APP_ID", Short: "Give an application a new secret", Args: cobra.ExactArgs(1)},
			secretColumns, func(cmd *cobra.Command, cl *adminclient.Client, args []string) (*wire.SecretRotation, error) {
				return cl.RotateSecret(cmd.Context(), args[0])
			}),
		c.signingKeysCommand(),
	)
	return apps
}
