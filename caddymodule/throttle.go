package caddymodule

import (
	"strconv"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"

	"github.com/appaccess/appaccess/accessapi/access"
)

// ThrottleConfig sets the thresholds of the throttling of every path that
// checks a secret (docs/security.md). Zero fields keep the defaults, which
// applications may override in their settings.
type ThrottleConfig struct {
	// AccountAddressFree is the failures of one account from one address
	// before waits begin. Default: 10.
	AccountAddressFree int `json:"account_address_free,omitempty"`
	// AddressFree is the password failures of one address across accounts
	// before waits begin. Default: 20.
	AddressFree int `json:"address_free,omitempty"`
	// AccountFree is the failures of one account across addresses before
	// waits begin for addresses and devices that never logged in to it.
	// Default: 50.
	AccountFree int `json:"account_free,omitempty"`
	// CodeFree is the failed license codes of one address; the right code
	// is never held back. Default: 100.
	CodeFree int `json:"code_free,omitempty"`
	// SecretFree is the wrong application secrets of one address, across
	// applications; the right secret is never held back. Default: 100.
	SecretFree int `json:"secret_free,omitempty"`
	// SignUpsPerAddress is the accounts one address may create per
	// window. Default: 1000.
	SignUpsPerAddress int `json:"sign_ups_per_address,omitempty"`
	// FirstDelay is the wait after the first failure past the free ones;
	// each further failure doubles it. Default: 1s.
	FirstDelay caddy.Duration `json:"first_delay,omitempty"`
	// MaxDelay caps the wait. Default: 15m.
	MaxDelay caddy.Duration `json:"max_delay,omitempty"`
	// Window is how long a failure counts. Default: 1h.
	Window caddy.Duration `json:"window,omitempty"`
}

// policy is the configuration as the service takes it.
func (c *ThrottleConfig) policy() access.ThrottlePolicy {
	if c == nil {
		return access.ThrottlePolicy{}
	}
	return access.ThrottlePolicy{
		AccountAddressFree: c.AccountAddressFree, AddressFree: c.AddressFree, AccountFree: c.AccountFree,
		CodeFree: c.CodeFree, SecretFree: c.SecretFree, SignUpsPerAddress: c.SignUpsPerAddress,
		FirstDelay: time.Duration(c.FirstDelay), MaxDelay: time.Duration(c.MaxDelay), Window: time.Duration(c.Window),
	}
}

// unmarshalThrottle reads a throttle block:
//
//	throttle {
//		account_address_free <n>
//		address_free         <n>
//		account_free         <n>
//		code_free            <n>
//		secret_free          <n>
//		sign_ups_per_address <n>
//		first_delay          <duration>
//		max_delay            <duration>
//		window               <duration>
//	}
func unmarshalThrottle(d *caddyfile.Dispenser) (*ThrottleConfig, error) {
	c := new(ThrottleConfig)
	counts := map[string]*int{
		"account_address_free": &c.AccountAddressFree, "address_free": &c.AddressFree, "account_free": &c.AccountFree,
		"code_free": &c.CodeFree, "secret_free": &c.SecretFree, "sign_ups_per_address": &c.SignUpsPerAddress,
	}
	durations := map[string]*caddy.Duration{"first_delay": &c.FirstDelay, "max_delay": &c.MaxDelay, "window": &c.Window}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		key := d.Val()
		var arg string
		if !d.AllArgs(&arg) {
			return nil, d.ArgErr()
		}
		if n, ok := counts[key]; ok {
			v, err := strconv.Atoi(arg)
			if err != nil || v < 1 {
				return nil, d.Errf("throttle %s: must be a positive number", key)
			}
			*n = v
			continue
		}
		if p, ok := durations[key]; ok {
			v, err := caddy.ParseDuration(arg)
			if err != nil || v <= 0 {
				return nil, d.Errf("throttle %s: must be a positive duration", key)
			}
			*p = caddy.Duration(v)
			continue
		}
		return nil, d.Errf("unknown throttle option %q", key)
	}
	return c, nil
}
