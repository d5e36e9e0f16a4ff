package caddymodule

import (
	"errors"
	"strconv"

	"github.com/spf13/pflag"
)

// Page sizes a listing's --limit takes, as the management API does.
const (
	minPageSize = 1
	maxPageSize = 1000
)

// pageSize is the value of a --limit flag: 1 to 1000, refused otherwise
// when the flag is parsed (a value below 1 would otherwise be left out of
// the request and the server's default of 100 used, silently). Unset, it
// is 0: the server's default.
type pageSize int

var _ pflag.Value = (*pageSize)(nil)

func (p *pageSize) String() string { return strconv.Itoa(int(*p)) }

// Set implements pflag.Value.
func (p *pageSize) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < minPageSize || n > maxPageSize {
		return errors.New("must be a number from 1 to 1000")
	}
	*p = pageSize(n)
	return nil
}

// Type implements pflag.Value.
func (p *pageSize) Type() string { return "int" }

// limitFlag adds the --limit flag of a listing to flags.
func limitFlag(flags *pflag.FlagSet, limit *int) {
	flags.Var((*pageSize)(limit), "limit", "page size (1..1000)")
}
