package caddymodule

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// readsPassword makes cmd read a password (readPassword) into *password
// before it runs: before its --timeout starts, so the time a person takes
// to type it is not time the server failed to answer in.
func (c *cli) readsPassword(cmd *cobra.Command, password *string) *cobra.Command {
	cmd.PreRunE = func(cmd *cobra.Command, _ []string) error {
		cmd.SilenceUsage = true
		var err error
		*password, err = readPassword(c.in, cmd.ErrOrStderr())
		return err
	}
	return cmd
}

// readPassword reads a password from in: on a terminal it prompts on
// prompt and reads it twice without echo, so the password is not shown on
// the screen and a typing slip is caught; from anything else (a pipe, a
// file) it reads one line, without its line end.
func readPassword(in io.Reader, prompt io.Writer) (string, error) {
	f, ok := in.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return readSecretLine(in)
	}
	read := func(label string) (string, error) {
		fmt.Fprint(prompt, label)
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(prompt)
		if err != nil {
			return "", fmt.Errorf("reading the new password from the terminal: %w", err)
		}
		return string(b), nil
	}
	password, err := read("Password (not shown): ")
	if err != nil {
		return "", err
	}
	again, err := read("The same password again: ")
	if err != nil {
		return "", err
	}
	if again != password {
		return "", errors.New("the two passwords typed differ; nothing was changed")
	}
	return password, nil
}

// readSecretLine reads one line (a password) from r, without its line end.
func readSecretLine(r io.Reader) (string, error) {
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && !(errors.Is(err, io.EOF) && line != "") {
		return "", fmt.Errorf("reading the new password from the standard input: %w", err)
	}
	return strings.TrimRight(line, "\r\n"), nil
}
