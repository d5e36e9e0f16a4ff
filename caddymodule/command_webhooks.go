package caddymodule

import (
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/adminclient"
	"github.com/appaccess/appaccess/accessapi/wire"
)

var webhookColumns = []column[wire.Webhook]{
	{"id", func(w wire.Webhook) string { return w.ID }},
	{"url", func(w wire.Webhook) string { return text(w.URL) }},
	{"events", func(w wire.Webhook) string { return strings.Join(w.Events, " ") }},
	{"enabled", func(w wire.Webhook) string { return yesNo(w.Enabled) }},
	{"created", func(w wire.Webhook) string { return w.CreatedAt }},
}

var deliveryColumns = []column[wire.WebhookDelivery]{
	{"id", func(d wire.WebhookDelivery) string { return d.ID }},
	{"event", func(d wire.WebhookDelivery) string { return d.Event }},
	{"created", func(d wire.WebhookDelivery) string { return d.CreatedAt }},
	{"status", func(d wire.WebhookDelivery) string { return d.Status }},
	{"attempts", func(d wire.WebhookDelivery) string { return number(d.Attempts) }},
	{"next_attempt", func(d wire.WebhookDelivery) string { return optional(d.NextAttemptAt) }},
	{"last_status", func(d wire.WebhookDelivery) string {
		if d.LastStatus == nil {
			return ""
		}
		return number(*d.LastStatus)
	}},
	{"last_error", func(d wire.WebhookDelivery) string { return text(optional(d.LastError)) }},
}

// webhooksCommand manages an application's webhook endpoints and shows
// their delivery logs.
func (c *cli) webhooksCommand() *cobra.Command {
	var (
		app, url, after string
		events          []string
		limit           int
		overlap         time.Duration
	)
	hooks := &cobra.Command{Use: "webhooks", Short: "Webhook endpoints of an application and their deliveries"}
	create := appScoped(&cobra.Command{Use: "create", Short: "Add an endpoint; its signing secret (whsec_…) is printed once", Args: cobra.NoArgs}, &app)
	create.Flags().StringVar(&url, "url", "", "the endpoint's http or https URL (required)")
	names := make([]string, len(access.WebhookEvents))
	for i, k := range access.WebhookEvents {
		names[i] = string(k)
	}
	create.Flags().StringSliceVar(&events, "event", nil, "an event to send (repeatable, required): "+strings.Join(names, ", "))
	_ = create.MarkFlagRequired("url")
	_ = create.MarkFlagRequired("event")
	createdColumns := append([]column[wire.Webhook]{{"secret", func(w wire.Webhook) string { return w.Secret }}}, webhookColumns...)
	deliveries := listCommand(c, appScoped(&cobra.Command{Use: "deliveries WEBHOOK_ID", Short: "Show an endpoint's delivery log, newest first",
		Args: cobra.ExactArgs(1)}, &app),
		deliveryColumns, func(cmd *cobra.Command, cl *adminclient.Client, args []string) (*wire.Page[wire.WebhookDelivery], error) {
			return cl.Deliveries(cmd.Context(), app, args[0], after, limit)
		})
	deliveries.Flags().StringVar(&after, "after", "", "the cursor of the next page")
	limitFlag(deliveries.Flags(), &limit)
	rotate := appScoped(&cobra.Command{Use: "rotate-secret WEBHOOK_ID",
		Short: "Give an endpoint a new signing secret, printed once; the old one keeps signing for the overlap", Args: cobra.ExactArgs(1)}, &app)
	rotate.Flags().DurationVar(&overlap, "overlap", access.DefaultWebhookSecretOverlap,
		"how long deliveries are signed with the old secret too (0s: it stops at once; at most 168h)")
	rotatedColumns := slices.Concat(createdColumns, []column[wire.Webhook]{{"previous_secret_expires",
		func(w wire.Webhook) string { return optional(w.PreviousSecretExpiresAt) }}})
	hooks.AddCommand(
		showCommand(c, create, createdColumns, func(cmd *cobra.Command, cl *adminclient.Client, _ []string) (*wire.Webhook, error) {
			return cl.CreateWebhook(cmd.Context(), app, wire.WebhookSettings{URL: &url, Events: events})
		}),
		listCommand(c, appScoped(&cobra.Command{Use: "list", Short: "List the endpoints", Args: cobra.NoArgs}, &app),
			webhookColumns, func(cmd *cobra.Command, cl *adminclient.Client, _ []string) (*wire.Page[wire.Webhook], error) {
				return cl.Webhooks(cmd.Context(), app)
			}),
		doneCommand(c, appScoped(&cobra.Command{Use: "delete WEBHOOK_ID", Short: "Remove an endpoint", Args: cobra.ExactArgs(1)}, &app),
			func(cmd *cobra.Command, cl *adminclient.Client, args []string) error {
				return cl.DeleteWebhook(cmd.Context(), app, args[0])
			}),
		showCommand(c, rotate, rotatedColumns, func(cmd *cobra.Command, cl *adminclient.Client, args []string) (*wire.Webhook, error) {
			var given *time.Duration
			if cmd.Flags().Changed("overlap") {
				given = &overlap
			}
			return cl.RotateWebhookSecret(cmd.Context(), app, args[0], given)
		}),
		deliveries,
		showCommand(c, appScoped(&cobra.Command{Use: "redeliver WEBHOOK_ID DELIVERY_ID",
			Short: "Send a delivered or failed delivery again (same webhook-id and payload)", Args: cobra.ExactArgs(2)}, &app),
			deliveryColumns, func(cmd *cobra.Command, cl *adminclient.Client, args []string) (*wire.WebhookDelivery, error) {
				return cl.Redeliver(cmd.Context(), app, args[0], args[1])
			}),
	)
	return hooks
}
