package caddymodule

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// readPassword reads a password from in: on a terminal it prompts on
// prompt and reads without echo, so the password is not shown on the
// screen; from anything else (a pipe, a file) it reads one line, without
// its line end.
func readPassword(in io.Reader, prompt io.Writer) (string, error) {
	if f, ok := in.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		fmt.Fprint(prompt, "Password (not shown): ")
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(prompt)
		if err != nil {
			return "", fmt.Errorf("reading the new password from the terminal: %w", err)
		}
		return string(b), nil
	}
	return readSecretLine(in)
}

// readSecretLine reads one line (a password) from r, without its line end.
func readSecretLine(r io.Reader) (string, error) {
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && !(errors.Is(err, io.EOF) && line != "") {
		return "", fmt.Errorf("reading the new password from the standard input: %w", err)
	}
	return strings.TrimRight(line, "\r\n"), nil
}
