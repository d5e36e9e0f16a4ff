package caddymodule

import (
	"strconv"
	"time"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"go.uber.org/zap"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/webhook"
)

// WebhooksConfig tunes the delivery of webhooks (docs/webhooks.md).
type WebhooksConfig struct {
	// AllowPrivateNetworks lets deliveries reach loopback, private,
	// link-local (cloud metadata), CGNAT and other internal addresses,
	// which are refused by default so that an endpoint URL cannot be used
	// to probe the server's own network. Set it only when every endpoint
	// is trusted, such as a receiver on the same host.
	AllowPrivateNetworks bool `json:"allow_private_networks,omitempty"`
	// Timeout bounds one attempt. Default: 15s.
	Timeout caddy.Duration `json:"timeout,omitempty"`
	// Concurrency bounds the attempts in flight on this instance.
	// Default: 16.
	Concurrency int `json:"concurrency,omitempty"`
	// PollInterval is how often the store is asked for due deliveries
	// (events on this instance start a poll at once). Default: 1s.
	PollInterval caddy.Duration `json:"poll_interval,omitempty"`
	// RetryBase is the least wait between attempts; the waits double from
	// it. Default: 5s.
	RetryBase caddy.Duration `json:"retry_base,omitempty"`
	// RetryWindow is how long a delivery is retried before it fails.
	// Default: 24h.
	RetryWindow caddy.Duration `json:"retry_window,omitempty"`
	// Retention is how long deliveries are kept for the delivery log;
	// the periodic cleanup (every session_cleanup_interval) deletes older
	// ones. Default: 720h (30 days).
	Retention caddy.Duration `json:"retention,omitempty"`
}

// dispatcherConfig is the configuration as the dispatcher takes it.
func (c *WebhooksConfig) dispatcherConfig(fileKey []byte) webhook.Config {
	if c == nil {
		c = &WebhooksConfig{}
	}
	return webhook.Config{Key: access.WebhookKey(fileKey), AllowPrivateNetworks: c.AllowPrivateNetworks,
		Timeout: time.Duration(c.Timeout), Concurrency: c.Concurrency, PollInterval: time.Duration(c.PollInterval),
		Backoff: access.WebhookBackoff{Base: time.Duration(c.RetryBase), Window: time.Duration(c.RetryWindow)}}
}

func (c *WebhooksConfig) retention() time.Duration {
	if c == nil {
		return 0
	}
	return time.Duration(c.Retention)
}

// unmarshalWebhooks reads a webhooks block:
//
//	webhooks {
//		allow_private_networks
//		timeout       <duration>
//		concurrency   <n>
//		poll_interval <duration>
//		retry_base    <duration>
//		retry_window  <duration>
//		retention     <duration>
//	}
func unmarshalWebhooks(d *caddyfile.Dispenser) (*WebhooksConfig, error) {
	c := new(WebhooksConfig)
	durations := map[string]*caddy.Duration{"timeout": &c.Timeout, "poll_interval": &c.PollInterval, "retry_base": &c.RetryBase,
		"retry_window": &c.RetryWindow, "retention": &c.Retention}
	for nesting := d.Nesting(); d.NextBlock(nesting); {
		key := d.Val()
		if key == "allow_private_networks" {
			if d.NextArg() {
				return nil, d.ArgErr()
			}
			c.AllowPrivateNetworks = true
			continue
		}
		var arg string
		if !d.AllArgs(&arg) {
			return nil, d.ArgErr()
		}
		if p, ok := durations[key]; ok {
			v, err := caddy.ParseDuration(arg)
			if err != nil || v <= 0 {
				return nil, d.Errf("webhooks %s: must be a positive duration", key)
			}
			*p = caddy.Duration(v)
			continue
		}
		if key == "concurrency" {
			n, err := strconv.Atoi(arg)
			if err != nil || n < 1 {
				return nil, d.Errf("webhooks concurrency: must be a positive number")
			}
			c.Concurrency = n
			continue
		}
		return nil, d.Errf("unknown webhooks option %q", key)
	}
	return c, nil
}

// newWebhooks returns the outbox listener and the dispatcher of the
// store's webhooks; their failures are logged (ids only, never a secret).
func (a *App) newWebhooks(store access.Store, fileKey []byte) (*access.WebhookOutbox, *webhook.Dispatcher) {
	log := a.logger.Named("webhooks")
	cfg := a.Webhooks.dispatcherConfig(fileKey)
	cfg.OnError = func(err error) { log.Error("delivering webhooks", zap.Error(err)) }
	cfg.OnAttempt = func(outcome access.DeliveryStatus, took time.Duration) {
		webhookAttemptsTotal.WithLabelValues(string(outcome)).Inc()
		webhookAttemptSeconds.Observe(took.Seconds())
	}
	d := webhook.New(store, cfg)
	outbox := access.NewWebhookOutbox(store, access.WebhookOutboxConfig{
		CacheTTL: time.Duration(a.Staleness),
		OnError:  func(err error) { log.Error("writing a webhook delivery", zap.Error(err)) },
		OnQueued: d.Wake,
	})
	return outbox, d
}
