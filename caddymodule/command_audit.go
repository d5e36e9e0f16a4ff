package caddymodule

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/appaccess/appaccess/accessapi/adminclient"
	"github.com/appaccess/appaccess/accessapi/wire"
)

var auditColumns = []column[wire.AuditEntry]{
	{"time", func(e wire.AuditEntry) string { return e.Time }},
	{"principal", func(e wire.AuditEntry) string { return text(e.Principal.Kind + " " + e.Principal.Name) }},
	{"action", func(e wire.AuditEntry) string { return e.Action }},
	{"user_id", func(e wire.AuditEntry) string { return optional(e.UserID) }},
	{"target", func(e wire.AuditEntry) string { return text(e.Target) }},
	{"before", func(e wire.AuditEntry) string { return text(string(e.Before)) }},
	{"after", func(e wire.AuditEntry) string { return text(string(e.After)) }},
	{"id", func(e wire.AuditEntry) string { return e.ID }},
}

// auditCommand is `caddy app-access audit`: a page of an application's
// audit log, or of the server's own without --app, oldest first.
func (c *cli) auditCommand() *cobra.Command {
	var (
		app, action, user, since, until, after string
		limit                                  int
	)
	cmd := listCommand(c, &cobra.Command{Use: "audit", Short: "Show an application's audit log, or the server's, oldest first",
		Long: "Show an application's audit log, oldest first: who did what to which target, and when.\n" +
			"Without --app, the server's own log: administrators and their TOTP, dashboard sign-ins and sign-outs,\n" +
			"export, import and backup.\n" +
			"--since and --until take RFC 3339 times (since inclusive, until exclusive)."},
		auditColumns, func(cmd *cobra.Command, cl *adminclient.Client, _ []string) (*wire.Page[wire.AuditEntry], error) {
			q := adminclient.AuditQuery{Action: action, UserID: user, After: after, Limit: limit}
			var err error
			if q.Since, err = flagTime("since", since); err != nil {
				return nil, err
			}
			if q.Until, err = flagTime("until", until); err != nil {
				return nil, err
			}
			return cl.AuditLog(cmd.Context(), app, q)
		})
	cmd.Args = cobra.NoArgs
	f := cmd.Flags()
	f.StringVar(&app, "app", "", "the application's id; without it, the server's own log")
	f.StringVar(&action, "action", "", "only this action, such as user.banned or variable.set")
	f.StringVar(&user, "user", "", "only the entries about this user id")
	f.StringVar(&since, "since", "", "only entries at or after this RFC 3339 time")
	f.StringVar(&until, "until", "", "only entries before this RFC 3339 time")
	f.StringVar(&after, "after", "", "the cursor of the next page")
	limitFlag(f, &limit)
	return cmd
}

// flagTime parses an optional RFC 3339 flag value.
func flagTime(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("--%s: not an RFC 3339 time such as 2026-01-02T15:04:05Z: %q", name, v)
	}
	return t, nil
}
