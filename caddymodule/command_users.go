package caddymodule

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/appaccess/appaccess/accessapi/adminclient"
	"github.com/appaccess/appaccess/accessapi/wire"
)

var userListColumns = []column[wire.UserSummary]{
	{"id", func(u wire.UserSummary) string { return u.ID }},
	{"username", func(u wire.UserSummary) string { return u.Username }},
	{"created_at", func(u wire.UserSummary) string { return u.CreatedAt }},
}

var userColumns = []column[wire.UserDetail]{
	{"id", func(u wire.UserDetail) string { return u.ID }},
	{"username", func(u wire.UserDetail) string { return u.Username }},
	{"membership", func(u wire.UserDetail) string { return membershipText(u.Membership) }},
	{"banned", func(u wire.UserDetail) string { return yesNo(u.Banned) }},
	{"ban_reason", func(u wire.UserDetail) string { return optional(u.BanReason) }},
	{"devices", func(u wire.UserDetail) string { return number(len(u.Devices)) }},
	{"last_login_ip", func(u wire.UserDetail) string { return optional(u.LastLoginIP) }},
	{"last_login_at", func(u wire.UserDetail) string { return optional(u.LastLoginAt) }},
	{"created_at", func(u wire.UserDetail) string { return u.CreatedAt }},
	{"activations", func(u wire.UserDetail) string { return number(len(u.Activations)) }},
}

var deviceColumns = []column[wire.Device]{
	{"hardware_id", func(d wire.Device) string { return d.HardwareID }},
	{"registered_at", func(d wire.Device) string { return d.RegisteredAt }},
}

var ledgerColumns = []column[wire.LedgerEntry]{
	{"id", func(a wire.LedgerEntry) string { return a.ID }},
	{"type", func(a wire.LedgerEntry) string { return a.Type }},
	{"minutes", func(a wire.LedgerEntry) string { return optionalNumber(a.Minutes) }},
	{"grants_lifetime_access", func(a wire.LedgerEntry) string { return yesNo(a.GrantsLifetimeAccess) }},
	{"revokes_lifetime_access", func(a wire.LedgerEntry) string { return yesNo(a.RevokesLifetimeAccess) }},
	{"occurred_at", func(a wire.LedgerEntry) string { return a.OccurredAt }},
	{"note", func(a wire.LedgerEntry) string { return text(a.Note) }},
}

// printUser prints a user's fields, then the devices and the ledger as
// tables of their own.
func printUser(p printer, u *wire.UserDetail) error {
	if p.json {
		return p.writeJSON(u)
	}
	if err := printObject(p, *u, userColumns); err != nil {
		return err
	}
	if len(u.Devices) > 0 {
		fmt.Fprintln(p.out)
		if err := printTable(p.out, u.Devices, deviceColumns); err != nil {
			return err
		}
	}
	if len(u.Activations) > 0 {
		fmt.Fprintln(p.out)
		return printTable(p.out, u.Activations, ledgerColumns)
	}
	return nil
}

func (c *cli) usersCommand() *cobra.Command {
	var (
		app, username, prefix, after, reason, note string
		minutes                                    int64
		lifetime, revokes                          bool
		limit                                      int
	)
	users := &cobra.Command{Use: "users", Short: "End users"}
	// action is a subcommand that acts on one user and prints "done".
	action := func(use, short string, act func(*adminclient.Client, context.Context, string, string) error) *cobra.Command {
		return doneCommand(c, appScoped(&cobra.Command{Use: use, Short: short, Args: cobra.ExactArgs(1)}, &app),
			func(cmd *cobra.Command, cl *adminclient.Client, args []string) error {
				return act(cl, cmd.Context(), app, args[0])
			})
	}
	list := listCommand(c, appScoped(&cobra.Command{Use: "list", Short: "List users", Args: cobra.NoArgs}, &app),
		userListColumns, func(cmd *cobra.Command, cl *adminclient.Client, _ []string) (*wire.Page[wire.UserSummary], error) {
			return cl.Users(cmd.Context(), app, adminclient.UserQuery{Username: username, Prefix: prefix, After: after, Limit: limit})
		})
	list.Flags().StringVar(&username, "username", "", "find the user with this name")
	list.Flags().StringVar(&prefix, "prefix", "", "list the users whose name starts with this")
	list.Flags().StringVar(&after, "after", "", "the cursor of the next page")
	limitFlag(list.Flags(), &limit)

	show := appScoped(&cobra.Command{Use: "show USER_ID", Short: "Show a user", Args: cobra.ExactArgs(1),
		RunE: c.run(func(cmd *cobra.Command, cl *adminclient.Client, args []string) error {
			u, err := cl.User(cmd.Context(), app, args[0])
			if err != nil {
				return err
			}
			return printUser(c.printer(), u)
		})}, &app)

	ban := action("ban USER_ID", "Ban a user and end their sessions", func(cl *adminclient.Client, ctx context.Context, app, id string) error {
		return cl.BanUser(ctx, app, id, wire.BanRequest{Reason: reason})
	})
	ban.Flags().StringVar(&reason, "reason", "", "why the user is banned")

	grant := showCommand(c, appScoped(&cobra.Command{Use: "grant USER_ID", Short: "Grant membership time or lifetime access", Args: cobra.ExactArgs(1)}, &app),
		ledgerColumns, func(cmd *cobra.Command, cl *adminclient.Client, args []string) (*wire.LedgerEntry, error) {
			req := wire.GrantRequest{GrantsLifetimeAccess: lifetime, RevokesLifetimeAccess: revokes, Note: note}
			// Given, --minutes is sent as it is: the server's rule (a
			// positive number) is told, not "minutes is required".
			if cmd.Flags().Changed("minutes") {
				req.Minutes = &minutes
			}
			return cl.Grant(cmd.Context(), app, args[0], req)
		})
	grant.Flags().Int64Var(&minutes, "minutes", 0, "minutes to add")
	grant.Flags().BoolVar(&lifetime, "lifetime", false, "grant lifetime access")
	grant.Flags().BoolVar(&revokes, "revokes-lifetime", false, "revoke lifetime access")
	grant.Flags().StringVar(&note, "note", "", "a note kept in the ledger")

	// The new password is read from the standard input, so it stays out
	// of the shell's history and the process list.
	// On a terminal it is read without echo.
	var password string
	resetPassword := doneCommand(c, c.readsPassword(appScoped(&cobra.Command{Use: "reset-password USER_ID", Short: "Set a user's password (read from stdin) and end their sessions", Args: cobra.ExactArgs(1)}, &app), &password),
		func(cmd *cobra.Command, cl *adminclient.Client, args []string) error {
			return cl.ResetPassword(cmd.Context(), app, args[0], password)
		})

	activations := listCommand(c, appScoped(&cobra.Command{Use: "activations USER_ID", Short: "List a user's ledger of activations, a page at a time", Args: cobra.ExactArgs(1)}, &app),
		ledgerColumns, func(cmd *cobra.Command, cl *adminclient.Client, args []string) (*wire.Page[wire.LedgerEntry], error) {
			return cl.Activations(cmd.Context(), app, args[0], after, limit)
		})
	activations.Flags().StringVar(&after, "after", "", "the cursor of the next page")
	limitFlag(activations.Flags(), &limit)

	users.AddCommand(list, show, ban, grant, resetPassword, activations,
		action("unban USER_ID", "Lift a ban", (*adminclient.Client).UnbanUser),
		action("reset-devices USER_ID", "Free all device slots", (*adminclient.Client).ResetDevices),
		action("end-sessions USER_ID", "End all sessions", (*adminclient.Client).EndSessions),
		action("delete USER_ID", "Delete a user", (*adminclient.Client).DeleteUser),
	)
	return users
}
