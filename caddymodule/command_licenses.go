package caddymodule

import (
	"errors"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/appaccess/appaccess/accessapi/adminclient"
	"github.com/appaccess/appaccess/accessapi/wire"
)

var (
	licenseID        = column[wire.License]{"id", func(l wire.License) string { return l.ID }}
	licenseCode      = column[wire.License]{"code", func(l wire.License) string { return text(l.Code) }}
	licenseCodeHint  = column[wire.License]{"code_hint", func(l wire.License) string { return l.CodeHint }}
	licenseMinutes   = column[wire.License]{"minutes", func(l wire.License) string { return optionalNumber(l.Minutes) }}
	licenseLifetime  = column[wire.License]{"grants_lifetime_access", func(l wire.License) string { return yesNo(l.GrantsLifetimeAccess) }}
	licenseRevokes   = column[wire.License]{"revokes_lifetime_access", func(l wire.License) string { return yesNo(l.RevokesLifetimeAccess) }}
	licenseNote      = column[wire.License]{"note", func(l wire.License) string { return l.Note }}
	licenseCreatedAt = column[wire.License]{"created_at", func(l wire.License) string { return l.CreatedAt }}
	licenseUsedAt    = column[wire.License]{"used_at", func(l wire.License) string { return optional(l.UsedAt) }}
	licenseUsedBy    = column[wire.License]{"used_by", func(l wire.License) string { return optional(l.UsedBy) }}
)

var (
	licenseColumns       = []column[wire.License]{licenseID, licenseCode, licenseCodeHint, licenseMinutes, licenseLifetime, licenseRevokes, licenseNote, licenseCreatedAt, licenseUsedAt, licenseUsedBy}
	issuedLicenseColumns = []column[wire.License]{licenseID, licenseCode, licenseMinutes, licenseLifetime, licenseNote}
	licenseListColumns   = []column[wire.License]{licenseID, licenseCodeHint, licenseMinutes, licenseLifetime, licenseUsedAt, licenseUsedBy, licenseNote}

	// licenseCSVColumns are the rows of licenses create --csv, for a
	// shop's import: code,minutes,lifetime,note.
	licenseCSVColumns = []column[wire.License]{
		{"code", func(l wire.License) string { return l.Code }},
		{"minutes", func(l wire.License) string {
			if l.Minutes == nil {
				return ""
			}
			return number(*l.Minutes)
		}},
		{"lifetime", func(l wire.License) string { return yesNo(l.GrantsLifetimeAccess) }},
		{"note", func(l wire.License) string { return l.Note }},
	}
)

func (c *cli) licensesCommand() *cobra.Command {
	var (
		app, note, used, code, after string
		count, limit                 int
		minutes                      int64
		lifetime, revokes, asCSV     bool
	)
	lic := &cobra.Command{Use: "licenses", Short: "License codes"}
	create := appScoped(&cobra.Command{Use: "create", Short: "Issue license codes (shown in full only now)", Args: cobra.NoArgs,
		RunE: c.run(func(cmd *cobra.Command, cl *adminclient.Client, _ []string) error {
			req := wire.LicenseRequest{Count: &count, GrantsLifetimeAccess: lifetime, RevokesLifetimeAccess: revokes, Note: note}
			// Given, --minutes is sent as it is: the server's rule (a
			// positive number) is told, not "minutes is required".
			if cmd.Flags().Changed("minutes") {
				req.Minutes = &minutes
			}
			issued, err := cl.CreateLicenses(cmd.Context(), app, req)
			if err != nil {
				return err
			}
			switch {
			case c.json:
				return c.printer().writeJSON(issued)
			case asCSV:
				return writeCSV(c.out, issued.Licenses, licenseCSVColumns)
			}
			return printTable(c.out, issued.Licenses, issuedLicenseColumns)
		})}, &app)
	f := create.Flags()
	f.IntVar(&count, "count", 1, "how many codes")
	f.Int64Var(&minutes, "minutes", 0, "minutes each code adds")
	f.BoolVar(&lifetime, "lifetime", false, "codes grant lifetime access")
	f.BoolVar(&revokes, "revokes-lifetime", false, "codes revoke lifetime access")
	f.StringVar(&note, "note", "", "a note kept with the codes")
	f.BoolVar(&asCSV, "csv", false, "write the codes as CSV (code,minutes,lifetime,note) for a shop")

	list := appScoped(&cobra.Command{Use: "list", Short: "List licenses, or find the one with --code", Args: cobra.NoArgs,
		RunE: c.run(func(cmd *cobra.Command, cl *adminclient.Client, _ []string) error {
			if code != "" {
				// The code goes in a request body, never in a URI the
				// admin endpoint logs.
				l, err := cl.LookupLicense(cmd.Context(), app, code)
				if err != nil {
					return err
				}
				return printObject(c.printer(), *l, licenseColumns)
			}
			q := adminclient.LicenseQuery{After: after, Limit: limit}
			if used != "" {
				u, err := strconv.ParseBool(used)
				if err != nil {
					return errors.New("--used must be true or false")
				}
				q.Used = &u
			}
			page, err := cl.Licenses(cmd.Context(), app, q)
			if err != nil {
				return err
			}
			return printPage(c.printer(), page, licenseListColumns)
		})}, &app)
	list.Flags().StringVar(&used, "used", "", "true or false: only used or unused licenses")
	list.Flags().StringVar(&after, "after", "", "the cursor of the next page")
	list.Flags().StringVar(&code, "code", "", "find the license with this code")
	limitFlag(list.Flags(), &limit)
	// --code finds one license: a filter or a page given with it would
	// be ignored without a word.
	for _, other := range []string{"used", "limit", "after"} {
		list.MarkFlagsMutuallyExclusive("code", other)
	}

	show := showCommand(c, appScoped(&cobra.Command{Use: "show LICENSE_ID", Short: "Show a license", Args: cobra.ExactArgs(1)}, &app),
		licenseColumns, func(cmd *cobra.Command, cl *adminclient.Client, args []string) (*wire.License, error) {
			return cl.License(cmd.Context(), app, args[0])
		})
	del := doneCommand(c, appScoped(&cobra.Command{Use: "delete LICENSE_ID", Short: "Delete an unused license", Args: cobra.ExactArgs(1)}, &app),
		func(cmd *cobra.Command, cl *adminclient.Client, args []string) error {
			return cl.DeleteLicense(cmd.Context(), app, args[0])
		})
	lic.AddCommand(create, list, show, del)
	return lic
}
