package caddymodule

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/appaccess/appaccess/accessapi/adminclient"
	"github.com/appaccess/appaccess/accessapi/wire"
)

// exportCommand streams the server's whole store to FILE or the standard
// output.
func (c *cli) exportCommand() *cobra.Command {
	cmd := markUnbounded(&cobra.Command{Use: "export [FILE]", Args: cobra.MaximumNArgs(1),
		Short: "Write every record of the store to FILE (JSON Lines; the standard output without FILE)",
		Long: `Write every record of the store (applications, users, licenses, ledger, devices,
sessions, bans, variables and files) as JSON Lines, to FILE (a new file, mode 0600)
or the standard output. Secrets and codes stay hashed. Import it into an empty store
with "caddy app-access import": the way from one machine to a MongoDB replica set.`})
	cmd.RunE = c.run(func(cmd *cobra.Command, cl *adminclient.Client, args []string) (err error) {
		out, name := c.out, "the standard output"
		if len(args) == 1 {
			f, err := os.OpenFile(args[0], os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
			if err != nil {
				return fmt.Errorf("export file: %w", err)
			}
			defer func() {
				if cerr := f.Close(); err == nil && cerr != nil {
					err = fmt.Errorf("export file: %w", cerr)
				}
				if err != nil {
					_ = os.Remove(args[0]) // no partial export stays
				}
			}()
			out, name = f, args[0]
		}
		p := newProgress(cmd.ErrOrStderr(), "exported")
		if _, err := cl.Export(cmd.Context(), io.MultiWriter(out, p)); err != nil {
			return err
		}
		p.finish()
		if !bytes.HasPrefix(p.lastLine(), []byte(`{"type":"end"`)) {
			return fmt.Errorf("the export stopped before its end (see the server's log); %s is incomplete", name)
		}
		// Into a file, --json tells it on the standard output (which
		// the JSON Lines themselves are without FILE).
		if len(args) == 1 && c.json {
			return c.printer().writeJSON(doneJSON{OK: true, Path: args[0]})
		}
		return nil
	})
	return cmd
}

// importCommand streams an export from FILE or the standard input into
// the server's empty store.
func (c *cli) importCommand() *cobra.Command {
	cmd := markUnbounded(&cobra.Command{Use: "import [FILE]", Args: cobra.MaximumNArgs(1),
		Short: "Read an export from FILE (the standard input without FILE) into the server's empty store",
		Long: `Read an export made by "caddy app-access export" into the server's store, which
must be empty. A truncated or altered file is refused with the number of the bad line,
and nothing is imported.`})
	cmd.RunE = c.run(func(cmd *cobra.Command, cl *adminclient.Client, args []string) error {
		in := c.in
		if len(args) == 1 {
			f, err := os.Open(args[0])
			if err != nil {
				return fmt.Errorf("import file: %w", err)
			}
			defer f.Close()
			in = f
		}
		p := newProgress(cmd.ErrOrStderr(), "sent")
		src := &sourceReader{r: in}
		sum, err := cl.Import(cmd.Context(), io.TeeReader(src, p))
		p.finish()
		if src.err != nil {
			return fmt.Errorf("reading the export to import: %w", src.err)
		}
		if err != nil {
			return err
		}
		if c.json {
			return c.printer().writeJSON(sum)
		}
		return printImport(c.out, sum)
	})
	return cmd
}

// printImport prints the records imported, by type, in two aligned
// columns whatever the length of a type's name (webhook_delivery).
func printImport(w io.Writer, sum *wire.ImportSummary) error {
	types := make([]string, 0, len(sum.Records))
	for t := range sum.Records {
		types = append(types, t)
	}
	sort.Strings(types)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, t := range types {
		fmt.Fprintf(tw, "%s\t%d\n", t, sum.Records[t])
	}
	return tw.Flush()
}

// backupCommand has the server copy its embedded database to FILE.
func (c *cli) backupCommand() *cobra.Command {
	cmd := markUnbounded(&cobra.Command{Use: "backup FILE", Args: cobra.ExactArgs(1),
		Short: "Copy the embedded SQLite database to FILE, a new file on the server's machine, while it serves",
		Long: `Have the server copy its embedded SQLite database (a consistent snapshot, taken
while it keeps serving) to FILE, a new file of mode 0600 on the server's machine; a
relative FILE is taken from this folder. The copy is checked (PRAGMA quick_check)
before it appears. An existing file is never overwritten; a folder that does not
exist is refused, not created.
The copy holds no file key: keep the data folder's file.key (or file_key) with it.

To restore, stop the server, delete app_access.db-wal and app_access.db-shm from
the data folder if they are there (a server that did not stop cleanly leaves the
old database's log, which SQLite would replay into the copy), and put the copy in
the data folder as app_access.db. A server on MongoDB refuses: use mongodump.`})
	cmd.RunE = c.run(func(cmd *cobra.Command, cl *adminclient.Client, args []string) error {
		path, err := filepath.Abs(args[0])
		if err != nil {
			return err
		}
		b, err := cl.Backup(cmd.Context(), path)
		if err != nil {
			return err
		}
		if c.json {
			return c.printer().writeJSON(b)
		}
		_, err = fmt.Fprintf(c.out, "%s\t%d bytes\n", b.Path, b.Bytes)
		return err
	})
	return cmd
}

// progress prints a line on stderr, rewritten at most twice a second, of
// the bytes and lines that passed through it; it keeps the last line. It
// is safe for concurrent use: an import's body may still be read by the
// transport when the server has answered.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	verb     string
	bytes    int64
	lines    int64
	last     []byte
	lineDone bool
	shownAt  time.Time
	live     bool // rewrite the line as it goes (a terminal)
}

// newProgress returns a progress line on w. Only a terminal gets the line
// rewritten as it goes: a file or pipe (a cron job's log) gets the final
// line alone, without carriage returns.
func newProgress(w io.Writer, verb string) *progress {
	return &progress{w: w, verb: verb, live: isTerminal(w)}
}

// isTerminal reports whether w is a character device, such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

func (p *progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.bytes += int64(len(b))
	for rest := b; len(rest) > 0; {
		if p.lineDone {
			p.last, p.lineDone = p.last[:0], false
		}
		i := bytes.IndexByte(rest, '\n')
		if i < 0 {
			p.keep(rest)
			break
		}
		p.keep(rest[:i])
		p.lines++
		p.lineDone = true
		rest = rest[i+1:]
	}
	if p.live && time.Since(p.shownAt) >= 500*time.Millisecond {
		p.show("\r")
	}
	return len(b), nil
}

// keep remembers the start of the current line (enough to know its type).
func (p *progress) keep(b []byte) {
	if room := 64 - len(p.last); room > 0 {
		p.last = append(p.last, b[:min(room, len(b))]...)
	}
}

func (p *progress) show(end string) {
	p.shownAt = time.Now()
	start := ""
	if p.live {
		start = "\r"
	}
	fmt.Fprintf(p.w, "%s%s %.1f MB, %d records%s", start, p.verb, float64(p.bytes)/1e6, p.lines, end)
}

func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.show("\n")
}

// lastLine is the start of the last line that passed through.
func (p *progress) lastLine() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]byte(nil), p.last...)
}
