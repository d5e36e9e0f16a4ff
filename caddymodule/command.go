package caddymodule

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"
	"github.com/spf13/cobra"
)

func init() {
	caddycmd.RegisterCommand(caddycmd.Command{
		Name:  "app-access",
		Usage: "<apps|licenses|users|vars|files> <subcommand> [flags]",
		Short: "Manages App Access applications, licenses, users, variables and files",
		Long: `
Calls the App Access management routes (/app_access/...) of a running
server's admin endpoint. The admin address is taken from --address, else
from the config given with --config, else Caddy's default.

Output is a table; --json prints the route's JSON instead. Errors print the
problem's detail and exit non-zero.`,
		CobraFunc: buildCommand,
	})
}

// cli carries the flags every subcommand shares.
type cli struct {
	address, config, adapter string
	json                     bool
	out                      io.Writer
}

func buildCommand(cmd *cobra.Command) {
	c := &cli{out: os.Stdout}
	pf := cmd.PersistentFlags()
	pf.StringVar(&c.address, "address", "", "the admin endpoint's address")
	pf.StringVar(&c.config, "config", "", "a config file to read the admin address from")
	pf.StringVar(&c.adapter, "adapter", "", "the adapter of --config")
	pf.BoolVar(&c.json, "json", false, "print the route's JSON")
	cmd.AddCommand(c.appsCommand(), c.licensesCommand(), c.usersCommand(), c.varsCommand(), c.filesCommand())
}

// call sends a management request and returns the decoded JSON answer.
func (c *cli) call(method, path string, body any, headers http.Header) (map[string]any, []byte, error) {
	addr, err := caddycmd.DetermineAdminAPIAddress(c.address, nil, c.config, c.adapter)
	if err != nil {
		return nil, nil, err
	}
	var rdr io.Reader
	switch b := body.(type) {
	case nil:
	case io.Reader:
		rdr = b
	default:
		j, err := json.Marshal(b)
		if err != nil {
			return nil, nil, err
		}
		rdr = bytes.NewReader(j)
	}
	res, err := caddycmd.AdminAPIRequest(addr, method, "/app_access"+path, headers, rdr)
	if err != nil {
		// AdminAPIRequest turns a non-2xx answer into an error holding the
		// body; show the problem's detail.
		return nil, nil, problemError(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, nil, err
	}
	var out map[string]any
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &out)
	}
	return out, raw, nil
}

func problemError(err error) error {
	msg := err.Error()
	if i := strings.Index(msg, "{"); i >= 0 {
		var p struct {
			Detail string `json:"detail"`
			Errors []struct {
				Field, Message string
			} `json:"errors"`
		}
		if json.Unmarshal([]byte(msg[i:]), &p) == nil && p.Detail != "" {
			for _, fe := range p.Errors {
				p.Detail += fmt.Sprintf("\n  %s %s", fe.Field, fe.Message)
			}
			return errors.New(p.Detail)
		}
	}
	return err
}

// show prints an answer: raw JSON, a table of the list under key, or the
// object's fields.
func (c *cli) show(obj map[string]any, raw []byte, key string, columns ...string) error {
	if c.json || obj == nil {
		_, err := c.out.Write(raw)
		return err
	}
	tw := tabwriter.NewWriter(c.out, 0, 4, 2, ' ', 0)
	defer tw.Flush()
	if key == "" {
		for _, col := range columns {
			fmt.Fprintf(tw, "%s\t%s\n", col, cell(obj[col]))
		}
		return nil
	}
	fmt.Fprintln(tw, strings.ToUpper(strings.Join(columns, "\t")))
	items, _ := obj[key].([]any)
	for _, it := range items {
		m, _ := it.(map[string]any)
		row := make([]string, len(columns))
		for i, col := range columns {
			row[i] = cell(m[col])
		}
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	if next, ok := obj["next"].(string); ok {
		fmt.Fprintf(tw, "(more: --after %s)\n", next)
	}
	return nil
}

func cell(v any) string {
	switch x := v.(type) {
	case nil:
		return "-"
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case []any:
		return strconv.Itoa(len(x))
	case map[string]any:
		j, _ := json.Marshal(x)
		return string(j)
	}
	return fmt.Sprint(v)
}

// run adapts a subcommand body to cobra.
func run(fn func(args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		cmd.SilenceUsage = true
		return fn(args)
	}
}

var appColumns = []string{"id", "name", "api_key", "api_secret", "device_auth", "anonymous_access", "max_devices", "min_password_length", "session_ttl", "created_at"}

func (c *cli) appsCommand() *cobra.Command {
	apps := &cobra.Command{Use: "apps", Short: "Applications"}
	settings := func(cmd *cobra.Command) map[string]any {
		body := map[string]any{}
		f := cmd.Flags()
		for _, name := range []string{"name", "session-ttl"} {
			if f.Changed(name) {
				v, _ := f.GetString(name)
				body[strings.ReplaceAll(name, "-", "_")] = v
			}
		}
		for flag, key := range map[string]string{"device-auth": "device_auth", "anonymous-access": "anonymous_access"} {
			if f.Changed(flag) {
				v, _ := f.GetBool(flag)
				body[key] = v
			}
		}
		for _, name := range []string{"max-devices", "min-password-length"} {
			if f.Changed(name) {
				v, _ := f.GetInt(name)
				body[strings.ReplaceAll(name, "-", "_")] = v
			}
		}
		return body
	}
	withSettings := func(cmd *cobra.Command) *cobra.Command {
		f := cmd.Flags()
		f.String("name", "", "the application's name")
		f.Bool("device-auth", false, "require a hardware id")
		f.Bool("anonymous-access", false, "allow app_context without a user")
		f.Int("max-devices", 1, "devices per user")
		f.Int("min-password-length", 8, "minimum password length")
		f.String("session-ttl", "24h", "session lifetime")
		return cmd
	}
	var create, update *cobra.Command
	create = withSettings(&cobra.Command{Use: "create --name NAME", Short: "Create an application (its secret is shown only now)", Args: cobra.NoArgs,
		RunE: run(func([]string) error {
			obj, raw, err := c.call("POST", "/apps", settings(create), nil)
			if err != nil {
				return err
			}
			return c.show(obj, raw, "", appColumns...)
		})})
	update = withSettings(&cobra.Command{Use: "update APP_ID", Short: "Change an application's settings", Args: cobra.ExactArgs(1),
		RunE: run(func(args []string) error {
			obj, raw, err := c.call("PATCH", "/apps/"+url.PathEscape(args[0]), settings(update), nil)
			if err != nil {
				return err
			}
			return c.show(obj, raw, "", appColumns...)
		})})
	apps.AddCommand(create, update,
		c.simple("list", "List applications", 0, "GET", "/apps", "apps", "id", "name", "api_key", "device_auth", "anonymous_access", "created_at"),
		c.simple("show APP_ID", "Show an application", 1, "GET", "/apps/%s", "", appColumns...),
		c.simple("delete APP_ID", "Delete an application", 1, "DELETE", "/apps/%s", ""),
		c.simple("rotate-secret APP_ID", "Give an application a new secret", 1, "POST", "/apps/%s/rotate_secret", "", "api_secret"),
	)
	return apps
}

// simple is a subcommand that sends one request; its positional arguments
// fill the path pattern.
func (c *cli) simple(use, short string, nargs int, method, pattern, key string, columns ...string) *cobra.Command {
	return c.request(use, short, nargs, method, func(args []string) string { return fillPath(pattern, args) }, key, columns...)
}

// appSimple is simple for a route under /apps/{--app}.
func (c *cli) appSimple(use, short string, nargs int, method, pattern, key string, columns ...string) *cobra.Command {
	var app string
	return c.appScoped(c.request(use, short, nargs, method, func(args []string) string {
		return "/apps/" + url.PathEscape(app) + fillPath(pattern, args)
	}, key, columns...), &app)
}

func (c *cli) request(use, short string, nargs int, method string, path func([]string) string, key string, columns ...string) *cobra.Command {
	return &cobra.Command{Use: use, Short: short, Args: cobra.ExactArgs(nargs), RunE: run(func(args []string) error {
		obj, raw, err := c.call(method, path(args), nil, nil)
		if err != nil {
			return err
		}
		if method == "DELETE" || len(raw) == 0 {
			fmt.Fprintln(c.out, "done")
			return nil
		}
		return c.show(obj, raw, key, columns...)
	})}
}

// fillPath puts the escaped arguments into a path pattern's %s verbs.
func fillPath(pattern string, args []string) string {
	vals := make([]any, len(args))
	for i, a := range args {
		vals[i] = url.PathEscape(a)
	}
	return fmt.Sprintf(pattern, vals...)
}

// appScoped is a subcommand of an application's resources: --app is required.
func (c *cli) appScoped(cmd *cobra.Command, app *string) *cobra.Command {
	cmd.Flags().StringVar(app, "app", "", "the application's id (required)")
	_ = cmd.MarkFlagRequired("app")
	return cmd
}

var licenseColumns = []string{"id", "code", "code_hint", "minutes", "grants_lifetime_access", "revokes_lifetime_access", "note", "created_at", "used_at", "used_by"}

func (c *cli) licensesCommand() *cobra.Command {
	var (
		app, note, used, code, after string
		count, limit                 int
		minutes                      int64
		lifetime, revokes, asCSV     bool
	)
	lic := &cobra.Command{Use: "licenses", Short: "License codes"}
	create := c.appScoped(&cobra.Command{Use: "create", Short: "Issue license codes (shown in full only now)", Args: cobra.NoArgs,
		RunE: run(func([]string) error {
			body := map[string]any{"count": count, "grants_lifetime_access": lifetime, "revokes_lifetime_access": revokes, "note": note}
			if minutes > 0 {
				body["minutes"] = minutes
			}
			obj, raw, err := c.call("POST", "/apps/"+url.PathEscape(app)+"/licenses", body, nil)
			if err != nil {
				return err
			}
			if asCSV && !c.json {
				return writeLicenseCSV(c.out, obj)
			}
			return c.show(obj, raw, "licenses", "id", "code", "minutes", "grants_lifetime_access", "note")
		})}, &app)
	f := create.Flags()
	f.IntVar(&count, "count", 1, "how many codes")
	f.Int64Var(&minutes, "minutes", 0, "minutes each code adds")
	f.BoolVar(&lifetime, "lifetime", false, "codes grant lifetime access")
	f.BoolVar(&revokes, "revokes-lifetime", false, "codes revoke lifetime access")
	f.StringVar(&note, "note", "", "a note kept with the codes")
	f.BoolVar(&asCSV, "csv", false, "write the codes as CSV (code,minutes,lifetime,note) for a shop")

	list := c.appScoped(&cobra.Command{Use: "list", Short: "List licenses", Args: cobra.NoArgs,
		RunE: run(func([]string) error {
			q := url.Values{}
			for k, v := range map[string]string{"used": used, "after": after, "code": code} {
				if v != "" {
					q.Set(k, v)
				}
			}
			if limit > 0 {
				q.Set("limit", strconv.Itoa(limit))
			}
			obj, raw, err := c.call("GET", "/apps/"+url.PathEscape(app)+"/licenses?"+q.Encode(), nil, nil)
			if err != nil {
				return err
			}
			if code != "" {
				return c.show(obj, raw, "", licenseColumns...)
			}
			return c.show(obj, raw, "licenses", "id", "code_hint", "minutes", "grants_lifetime_access", "used_at", "used_by", "note")
		})}, &app)
	list.Flags().StringVar(&used, "used", "", "true or false: only used or unused licenses")
	list.Flags().StringVar(&after, "after", "", "the cursor of the next page")
	list.Flags().StringVar(&code, "code", "", "find the license with this code")
	list.Flags().IntVar(&limit, "limit", 0, "page size (1..1000)")

	lic.AddCommand(create, list,
		c.appSimple("show LICENSE_ID", "Show a license", 1, "GET", "/licenses/%s", "", licenseColumns...),
		c.appSimple("delete LICENSE_ID", "Delete an unused license", 1, "DELETE", "/licenses/%s", ""))
	return lic
}

func writeLicenseCSV(w io.Writer, obj map[string]any) error {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"code", "minutes", "lifetime", "note"})
	items, _ := obj["licenses"].([]any)
	for _, it := range items {
		m := it.(map[string]any)
		_ = cw.Write([]string{cell(m["code"]), strings.TrimPrefix(cell(m["minutes"]), "-"), cell(m["grants_lifetime_access"]), cell(m["note"])})
	}
	cw.Flush()
	return cw.Error()
}

func (c *cli) usersCommand() *cobra.Command {
	var (
		app, username, after, reason, note string
		minutes                            int64
		lifetime, revokes                  bool
		limit                              int
	)
	users := &cobra.Command{Use: "users", Short: "End users"}
	userPath := func(id, suffix string) string {
		return "/apps/" + url.PathEscape(app) + "/users/" + url.PathEscape(id) + suffix
	}
	action := func(use, short, method, suffix string, body func() any) *cobra.Command {
		return c.appScoped(&cobra.Command{Use: use, Short: short, Args: cobra.ExactArgs(1), RunE: run(func(args []string) error {
			var b any
			if body != nil {
				b = body()
			}
			obj, raw, err := c.call(method, userPath(args[0], suffix), b, nil)
			if err != nil {
				return err
			}
			if len(raw) == 0 {
				fmt.Fprintln(c.out, "done")
				return nil
			}
			return c.show(obj, raw, "", "id", "type", "minutes", "grants_lifetime_access", "revokes_lifetime_access", "occurred_at")
		})}, &app)
	}
	list := c.appScoped(&cobra.Command{Use: "list", Short: "List users", Args: cobra.NoArgs, RunE: run(func([]string) error {
		q := url.Values{}
		if username != "" {
			q.Set("username", username)
		}
		if after != "" {
			q.Set("after", after)
		}
		if limit > 0 {
			q.Set("limit", strconv.Itoa(limit))
		}
		obj, raw, err := c.call("GET", "/apps/"+url.PathEscape(app)+"/users?"+q.Encode(), nil, nil)
		if err != nil {
			return err
		}
		return c.show(obj, raw, "users", "id", "username", "created_at")
	})}, &app)
	list.Flags().StringVar(&username, "username", "", "find the user with this name")
	list.Flags().StringVar(&after, "after", "", "the cursor of the next page")
	list.Flags().IntVar(&limit, "limit", 0, "page size (1..1000)")

	ban := action("ban USER_ID", "Ban a user and end their sessions", "POST", "/ban", func() any { return map[string]any{"reason": reason} })
	ban.Flags().StringVar(&reason, "reason", "", "why the user is banned")
	grant := action("grant USER_ID", "Grant membership time or lifetime access", "POST", "/grant", func() any {
		b := map[string]any{"grants_lifetime_access": lifetime, "revokes_lifetime_access": revokes, "note": note}
		if minutes > 0 {
			b["minutes"] = minutes
		}
		return b
	})
	grant.Flags().Int64Var(&minutes, "minutes", 0, "minutes to add")
	grant.Flags().BoolVar(&lifetime, "lifetime", false, "grant lifetime access")
	grant.Flags().BoolVar(&revokes, "revokes-lifetime", false, "revoke lifetime access")
	grant.Flags().StringVar(&note, "note", "", "a note kept in the ledger")
	users.AddCommand(list, ban, grant,
		c.appSimple("show USER_ID", "Show a user", 1, "GET", "/users/%s", "",
			"id", "username", "membership", "banned", "ban_reason", "devices", "last_login_ip", "last_login_at", "created_at", "activations"),
		action("unban USER_ID", "Lift a ban", "POST", "/unban", nil),
		action("reset-devices USER_ID", "Free all device slots", "DELETE", "/devices", nil),
		action("end-sessions USER_ID", "End all sessions", "DELETE", "/sessions", nil),
		action("delete USER_ID", "Delete a user", "DELETE", "", nil),
	)
	return users
}

func (c *cli) varsCommand() *cobra.Command {
	var app string
	vars := &cobra.Command{Use: "vars", Short: "Application variables"}
	set := c.appScoped(&cobra.Command{Use: "set NAME VALUE", Short: "Set a variable", Args: cobra.ExactArgs(2), RunE: run(func(args []string) error {
		obj, raw, err := c.call("PUT", "/apps/"+url.PathEscape(app)+"/variables/"+url.PathEscape(args[0]), map[string]string{"value": args[1]}, nil)
		if err != nil {
			return err
		}
		return c.show(obj, raw, "", "name", "value")
	})}, &app)
	vars.AddCommand(set,
		c.appSimple("list", "List variables", 0, "GET", "/variables", "variables", "name", "value"),
		c.appSimple("delete NAME", "Delete a variable", 1, "DELETE", "/variables/%s", ""))
	return vars
}

var fileColumns = []string{"id", "name", "mime_type", "is_encrypted", "size", "sha256", "created_at"}

func (c *cli) filesCommand() *cobra.Command {
	var (
		app, name, mimeType string
		encrypted           bool
	)
	files := &cobra.Command{Use: "files", Short: "Application files"}
	upload := c.appScoped(&cobra.Command{Use: "upload PATH", Short: "Upload a file (streamed)", Args: cobra.ExactArgs(1), RunE: run(func(args []string) error {
		f, err := os.Open(args[0])
		if err != nil {
			return err
		}
		defer f.Close()
		if name == "" {
			name = filepath.Base(args[0])
		}
		q := url.Values{"name": {name}, "encrypted": {strconv.FormatBool(encrypted)}}
		h := http.Header{}
		if mimeType != "" {
			h.Set("Content-Type", mimeType)
		} else {
			h.Set("Content-Type", "application/octet-stream")
		}
		obj, raw, err := c.call("POST", "/apps/"+url.PathEscape(app)+"/files?"+q.Encode(), f, h)
		if err != nil {
			return err
		}
		return c.show(obj, raw, "", fileColumns...)
	})}, &app)
	upload.Flags().StringVar(&name, "name", "", "the file's name (default: the path's base name)")
	upload.Flags().StringVar(&mimeType, "mime-type", "", "the file's media type (default application/octet-stream)")
	upload.Flags().BoolVar(&encrypted, "encrypted", false, "store the file encrypted")
	files.AddCommand(upload,
		c.appSimple("list", "List files", 0, "GET", "/files", "files", fileColumns...),
		c.appSimple("delete FILE_ID", "Delete a file", 1, "DELETE", "/files/%s", ""))
	return files
}
