package caddymodule

import (
	"fmt"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/appaccess/appaccess/accessapi/access"
)

// pageSize is the value of a --limit flag: 1 to access.MaxPageSize, as
// the management API takes, refused otherwise
// when the flag is parsed (a value below 1 would otherwise be left out of
// the request and the server's default of 100 used, silently). Unset, it
// is 0: the server's default.
type pageSize int

var _ pflag.Value = (*pageSize)(nil)

func (p *pageSize) String() string { return strconv.Itoa(int(*p)) }

// Set implements pflag.Value.
func (p *pageSize) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > access.MaxPageSize {
		return fmt.Errorf("must be a number from 1 to %d", access.MaxPageSize)
	}
	*p = pageSize(n)
	return nil
}

// Type implements pflag.Value.
func (p *pageSize) Type() string { return "int" }

// limitFlag adds the --limit flag of a listing to flags.
func limitFlag(flags *pflag.FlagSet, limit *int) {
	flags.Var((*pageSize)(limit), "limit", fmt.Sprintf("page size (1..%d)", access.MaxPageSize))
}
