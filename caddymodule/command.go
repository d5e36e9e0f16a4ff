package caddymodule

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"

	"github.com/appaccess/appaccess/accessapi/adminclient"
	"github.com/appaccess/appaccess/accessapi/wire"
)

// EnvAdminAddress names the variable with the admin address, the one the
// top-level Caddyfile gives its admin endpoint.
const EnvAdminAddress = "APP_ACCESS_ADMIN"

func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "app-access",
		Usage: "<apps|licenses|users|vars|files|audit|export|import|backup|admins|keys|webhooks> [subcommand] [flags]",
		Short: "Manages App Access applications, licenses, users, content, webhooks and the store",
		Long: `
Calls the App Access management routes (/app_access/...) of a running
server's admin endpoint. The admin address is --address, else the
APP_ACCESS_ADMIN variable (the one the top-level Caddyfile listens on),
else the admin address of the config given with --config (adapted as
caddy's own commands do), else Caddy's default localhost:2019. It may be
written localhost:2019, http://localhost:2019 or unix//path/to/admin.sock.

Output is a table; --json prints the route's JSON instead ({"ok":true}
for a route that answers no body). Errors print the
problem's detail and exit non-zero; so does a call the server does not
answer within --timeout (2m; export, import, backup and files upload wait
as long as they take).`,
		CobraFunc: func(cmd *cobra.Command) { newCLI(os.Stdin, os.Stdout).build(cmd) },
	})
}

// cli carries the flags every subcommand shares.
type cli struct {
	address, config, adapter string
	json                     bool
	timeout                  time.Duration
	in                       io.Reader // where reset-password reads the new password
	out                      io.Writer
}

func newCLI(in io.Reader, out io.Writer) *cli { return &cli{in: in, out: out} }

// sourceReader reads what a command sends (a file to upload, an export to
// import) and keeps its first error other than the end, so that a source
// that cannot be read (a folder, an I/O error) is told as such, not as a
// server that cannot be reached.
type sourceReader struct {
	r   io.Reader
	err error
}

func (s *sourceReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) && s.err == nil {
		s.err = err
	}
	return n, err
}

// build adds the shared flags and the resource commands to the root.
func (c *cli) build(cmd *cobra.Command) {
	pf := cmd.PersistentFlags()
	pf.StringVar(&c.address, "address", "", "the admin endpoint's address (default: $"+EnvAdminAddress+", else the --config's, else localhost:2019)")
	pf.StringVar(&c.config, "config", "", "a config file to read the admin address from")
	pf.StringVar(&c.adapter, "adapter", "", "the adapter of --config")
	pf.BoolVar(&c.json, "json", false, "print the route's JSON")
	pf.DurationVar(&c.timeout, "timeout", defaultTimeout, "how long to wait for the server's answer, 0 for no limit (export, import, backup and files upload: no limit unless given)")
	cmd.AddCommand(c.appsCommand(), c.licensesCommand(), c.usersCommand(), c.varsCommand(), c.filesCommand(),
		c.exportCommand(), c.importCommand(), c.backupCommand(), c.auditCommand())
	cmd.AddCommand(c.adminsCommand(), c.keysCommand(), c.webhooksCommand())
	refuseUnknownSubcommands(cmd)
}

// refuseUnknownSubcommands makes every command that only groups others
// (app-access, apps, licenses, ...) fail on a word that is none of its
// subcommands, instead of printing its help and exiting 0 as cobra does:
// a script with a typo must not pass. Without a word it prints its help.
func refuseUnknownSubcommands(cmd *cobra.Command) {
	for _, sub := range cmd.Commands() {
		refuseUnknownSubcommands(sub)
	}
	if !cmd.HasSubCommands() || cmd.Run != nil || cmd.RunE != nil {
		return
	}
	cmd.Args = cobra.ArbitraryArgs
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return cmd.Help()
		}
		cmd.SilenceUsage = true
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if cmd.SuggestionsMinimumDistance <= 0 {
			cmd.SuggestionsMinimumDistance = 2
		}
		if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
			msg += "; did you mean " + strings.Join(s, " or ") + "?"
		}
		return fmt.Errorf("%s (see %s --help)", msg, cmd.CommandPath())
	}
}

// adminAddress finds the admin endpoint: --address, else the variable,
// else --config's admin address, else Caddy's default. It says where the
// address came from, for the message when nothing answers there.
func (c *cli) adminAddress() (address, source string, err error) {
	if c.address != "" {
		return c.address, "--address", nil
	}
	if env := os.Getenv(EnvAdminAddress); env != "" {
		return env, "$" + EnvAdminAddress, nil
	}
	address, err = caddycmd.DetermineAdminAPIAddress("", nil, c.config, c.adapter)
	if err != nil {
		return "", "", fmt.Errorf("reading the admin address from %s: %w", c.config, err)
	}
	if c.config != "" {
		return address, "the admin address of " + c.config, nil
	}
	return address, "Caddy's default", nil
}

// client is the management API client of the server the flags name.
func (c *cli) client() (*adminclient.Client, string, error) {
	addr, source, err := c.adminAddress()
	if err != nil {
		return nil, "", err
	}
	cl, err := adminclient.New(addr)
	return cl, source, err
}

// defaultTimeout bounds a call when --timeout is not given: a server that
// accepts the connection but never answers (wedged, or another program on
// that port) fails the command instead of hanging it for ever.
const defaultTimeout = 2 * time.Minute

// unbounded marks, in a command's annotations, a command whose call takes
// as long as the data it moves (export, import, backup, files upload): no
// time limit unless --timeout is given.
const unbounded = "app-access-unbounded"

// markUnbounded marks cmd unbounded and returns it.
func markUnbounded(cmd *cobra.Command) *cobra.Command {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[unbounded] = "true"
	return cmd
}

// timeoutOf is how long cmd waits for the server: --timeout when given,
// else none for an unbounded command, else defaultTimeout.
func (c *cli) timeoutOf(cmd *cobra.Command) time.Duration {
	if f := cmd.Flags().Lookup("timeout"); f != nil && f.Changed {
		return c.timeout
	}
	if cmd.Annotations[unbounded] != "" {
		return 0
	}
	return defaultTimeout
}

// run adapts a subcommand body to cobra: it gets the client, bounds the
// call's time, and words the error a user sees.
func (c *cli) run(fn func(cmd *cobra.Command, cl *adminclient.Client, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		cmd.SilenceUsage = true
		cl, source, err := c.client()
		if err != nil {
			return err
		}
		timeout := c.timeoutOf(cmd)
		if timeout > 0 {
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			cmd.SetContext(ctx)
		}
		err = fn(cmd, cl, args)
		if timeout > 0 && errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("no answer from the admin endpoint at %s within %s (that address is from %s; --timeout waits longer, 0 without limit)", cl.Address(), timeout, source)
		}
		return userError(err, source)
	}
}

// userError words a failed call: a problem's detail and its invalid
// fields, or the address that did not answer and where it came from.
func userError(err error, source string) error {
	var p *adminclient.Problem
	var ce *adminclient.ConnectError
	switch {
	case errors.As(err, &p):
		var b strings.Builder
		b.WriteString(p.Detail)
		for _, f := range p.Fields {
			fmt.Fprintf(&b, "\n  %s %s", f.Field, f.Message)
		}
		return errors.New(b.String())
	case errors.As(err, &ce):
		return fmt.Errorf("%w\n(that address is from %s; point --address or $%s at the server's admin endpoint)", err, source, EnvAdminAddress)
	}
	return err
}

// routeCall is what a subcommand sends: one call of a route.
type routeCall[T any] func(cmd *cobra.Command, cl *adminclient.Client, args []string) (T, error)

// showCommand makes cmd call a route and print the value it answers as
// label/value rows.
func showCommand[T any](c *cli, cmd *cobra.Command, cols []column[T], send routeCall[*T]) *cobra.Command {
	cmd.RunE = c.run(func(cmd *cobra.Command, cl *adminclient.Client, args []string) error {
		v, err := send(cmd, cl, args)
		if err != nil {
			return err
		}
		return printObject(c.printer(), *v, cols)
	})
	return cmd
}

// listCommand makes cmd call a list route and print the page as a table.
func listCommand[T wire.Listable](c *cli, cmd *cobra.Command, cols []column[T], send routeCall[*wire.Page[T]]) *cobra.Command {
	cmd.RunE = c.run(func(cmd *cobra.Command, cl *adminclient.Client, args []string) error {
		page, err := send(cmd, cl, args)
		if err != nil {
			return err
		}
		return printPage(c.printer(), page, cols)
	})
	return cmd
}

// doneCommand makes cmd call a route that answers no body and print done.
func doneCommand(c *cli, cmd *cobra.Command, send func(cmd *cobra.Command, cl *adminclient.Client, args []string) error) *cobra.Command {
	cmd.RunE = c.run(func(cmd *cobra.Command, cl *adminclient.Client, args []string) error {
		if err := send(cmd, cl, args); err != nil {
			return err
		}
		return printDone(c.printer())
	})
	return cmd
}

// appScoped adds the required --app flag of an application's resources.
func appScoped(cmd *cobra.Command, app *string) *cobra.Command {
	cmd.Flags().StringVar(app, "app", "", "the application's id (required)")
	_ = cmd.MarkFlagRequired("app")
	return cmd
}
