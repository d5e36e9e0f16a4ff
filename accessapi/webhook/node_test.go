package webhook_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/storetest"
	"github.com/appaccess/appaccess/accessapi/webhook"
)

// standardWebhooksVersion is the npm package the signatures are checked
// with: the Standard Webhooks reference implementation for JavaScript.
const standardWebhooksVersion = "standardwebhooks@1.1.1"

// verifyJS verifies a request with the npm package, as a receiver would.
const verifyJS = `
const fs = require("fs");
const { Webhook } = require(process.argv[2] + "/node_modules/standardwebhooks");
const m = JSON.parse(fs.readFileSync(process.argv[3], "utf8"));
const headers = { "webhook-id": m.id, "webhook-timestamp": m.timestamp, "webhook-signature": m.signature };
let payload;
for (const secret of m.secrets) {
	payload = new Webhook(secret).verify(m.body, headers); // throws if refused
}
try {
	new Webhook(m.other).verify(m.body, headers);
	console.error("verified under another secret");
	process.exit(2);
} catch (e) {}
try {
	new Webhook(m.secrets[0]).verify(m.body.replace("signed_up", "banned"), headers);
	console.error("verified a tampered body");
	process.exit(2);
} catch (e) {}
process.stdout.write(JSON.stringify(payload));
`

func TestSignature_VerifiesWithTheStandardWebhooksNPMPackage(t *testing.T) {
	node, nodeErr := exec.LookPath("node")
	npm, npmErr := exec.LookPath("npm")
	if nodeErr != nil || npmErr != nil {
		if os.Getenv("APP_ACCESS_REQUIRE_NODE") == "1" {
			t.Fatalf("node and npm are required (APP_ACCESS_REQUIRE_NODE=1): %v %v", nodeErr, npmErr)
		}
		t.Skip("node or npm is not installed")
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	install := exec.CommandContext(ctx, npm, "install", "--prefix", dir, "--no-audit", "--no-fund", standardWebhooksVersion)
	install.Env = append(os.Environ(), "npm_config_cache="+filepath.Join(dir, ".npm"))
	if out, err := install.CombinedOutput(); err != nil {
		if os.Getenv("APP_ACCESS_REQUIRE_NODE") == "1" {
			t.Fatalf("npm install %s: %v\n%s", standardWebhooksVersion, err, out)
		}
		t.Skipf("npm install %s failed (offline?): %v\n%s", standardWebhooksVersion, err, out)
	}

	for _, tt := range []struct {
		name   string
		rotate bool // a rotation with an overlap: both secrets must verify
	}{
		{"one secret", false},
		{"during a rotation's overlap, the new and the old secret", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, storetest.SQLite(t), nil, "")
			rc := newReceiver(t, nil)
			h := r.hook(t, rc.URL, access.EventUserSignedUp)
			secrets := []string{h.Secret}
			if tt.rotate {
				rotated, err := r.svc.RotateWebhookSecret(ctx, r.app.ID, h.ID, time.Hour)
				if err != nil {
					t.Fatal(err)
				}
				secrets = []string{rotated.Secret, h.Secret}
			}
			r.run(t, webhook.Config{})
			u := r.signUp(t, "frank")
			got := rc.wait(t, 1, 10*time.Second)[0]

			msg, err := json.Marshal(map[string]any{"id": got.id, "timestamp": got.stamp, "signature": got.signature,
				"body": string(got.body), "secrets": secrets, "other": access.NewWebhookSecret()})
			if err != nil {
				t.Fatal(err)
			}
			msgFile, script := filepath.Join(t.TempDir(), "message.json"), filepath.Join(dir, "verify.js")
			for name, b := range map[string][]byte{msgFile: msg, script: []byte(verifyJS)} {
				if err := os.WriteFile(name, b, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			out, err := exec.CommandContext(ctx, node, script, dir, msgFile).CombinedOutput()
			if err != nil {
				t.Fatalf("standardwebhooks refused the request: %v\n%s", err, out)
			}
			var payload struct {
				Type string `json:"type"`
				Data struct {
					UserID string `json:"user_id"`
				} `json:"data"`
			}
			if err := json.Unmarshal(out, &payload); err != nil || payload.Type != "user.signed_up" || payload.Data.UserID != u.ID {
				t.Fatalf("verified payload %s (%v)", out, err)
			}
		})
	}
}
