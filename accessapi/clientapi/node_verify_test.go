package clientapi_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/clientapi"
	"github.com/appaccess/appaccess/accessapi/storetest"
)

// verifyAnswersJS is a verifier of signed answers and offline tokens
// written from docs/api.md alone ("Signed responses", "Offline license
// tokens"), with Node's own crypto: what a client in another language
// builds. It prints a JSON report; it exits non-zero if its self-checks
// (a tampered answer, token or key) pass.
const verifyAnswersJS = `
const crypto = require("crypto"), fs = require("fs");
const m = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const sha = (b) => crypto.createHash("sha256").update(b).digest();
const spki = (raw) => crypto.createPublicKey({ key: Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), raw]), format: "der", type: "spki" });
const keys = {};
for (const k of m.keys) {
	const raw = Buffer.from(k, "base64");
	keys[sha(raw).subarray(0, 12).toString("base64url")] = spki(raw);
}
const boundRequest = ["authorization", "if-range", "range", "x-api-key", "x-api-license-code", "x-api-password", "x-api-username", "x-hardware-id"];
const boundAnswer = ["content-range", "content-type", "etag", "retry-after"];
const lines = (names, get) => names.map((n) => n + ":" + (get[n] || "") + "\n").join("");

// verify returns "" for an answer that verifies, else what failed.
function verify(a) {
	const parts = (a.response["app-access-signature"] || "").split("; ");
	if (parts[0] !== "v2") return "version";
	const f = {}, order = [];
	for (const p of parts.slice(1)) {
		const i = p.indexOf("=");
		f[p.slice(0, i)] = p.slice(i + 1);
		order.push(p.slice(0, i));
	}
	if (order.join(",") !== "kid,ts,salt,idx,proof,sig") return "fields " + order;
	const key = keys[f.kid];
	if (!key) return "kid";
	if ((a.response["x-app-access-nonce"] || "") !== a.nonce) return "nonce";
	const binding = lines(boundRequest, a.request) + sha(Buffer.from(a.requestBody, "base64")).toString("hex");
	const input = ["app-access-response-v2", a.method, a.target, String(a.status), a.nonce, f.ts, f.kid, f.salt,
		sha(binding).toString("hex"), sha(lines(boundAnswer, a.response)).toString("hex"),
		sha(Buffer.from(a.body, "base64")).toString("hex")].join("\n");
	let h = sha(Buffer.concat([Buffer.from([0]), Buffer.from(input)]));
	const proof = Buffer.from(f.proof, "base64"), idx = Number(f.idx), depth = proof.length / 32;
	if (!Number.isInteger(depth) || !Number.isInteger(idx) || idx < 0 || idx >= 2 ** depth) return "proof";
	for (let i = 0; i < depth; i++) {
		const sib = proof.subarray(32 * i, 32 * i + 32);
		h = sha(Buffer.concat([Buffer.from([1]), ((idx >> i) & 1) === 0 ? h : sib, ((idx >> i) & 1) === 0 ? sib : h]));
	}
	const root = Buffer.from("app-access-responses-v2\n" + h.toString("hex"));
	return crypto.verify(null, root, key, Buffer.from(f.sig, "base64")) ? "" : "signature";
}

// token returns the payload of a valid offline token, else null.
function token(t) {
	const [prefix, payload, sig] = t.split(".");
	if (prefix !== "aat1" || !payload || !sig) return null;
	const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
	const key = keys[claims.kid];
	if (!key || !crypto.verify(null, Buffer.from("aat1." + payload), key, Buffer.from(sig, "base64url"))) return null;
	return claims;
}

const out = { failures: [], verified: 0, batched: 0, statuses: {} };
for (const a of m.answers) {
	const why = verify(a);
	if (why) out.failures.push(a.method + " " + a.target + " " + a.status + ": " + why);
	else out.verified++;
	if (why === "" && !/proof=;/.test(a.response["app-access-signature"])) out.batched++;
	out.statuses[a.status] = (out.statuses[a.status] || 0) + 1;
}
const a = m.answers[0], tampered = (mod) => verify(Object.assign(JSON.parse(JSON.stringify(a)), mod(JSON.parse(JSON.stringify(a)))));
const checks = {
	"a changed body": tampered((c) => ({ body: Buffer.from(Buffer.from(c.body, "base64").toString() + " ").toString("base64") })),
	"another nonce": tampered((c) => ({ nonce: c.nonce + "x" })),
	"another status": tampered(() => ({ status: 299 })),
	"another credential": tampered((c) => ({ request: Object.assign(c.request, { "x-api-key": "other" }) })),
};
for (const [name, why] of Object.entries(checks)) if (why === "") { console.error("verified " + name); process.exit(2); }
out.token = token(m.token);
if (token(m.token.slice(0, -2) + (m.token.endsWith("AA") ? "AQ" : "AA")) !== null) { console.error("verified a tampered token"); process.exit(2); }
process.stdout.write(JSON.stringify(out));
`

// capturedAnswer is one request and its answer as the verifier reads them.
type capturedAnswer struct {
	Method      string            `json:"method"`
	Target      string            `json:"target"`
	Nonce       string            `json:"nonce"`
	Request     map[string]string `json:"request"` // lower-case names
	RequestBody []byte            `json:"requestBody"`
	Status      int               `json:"status"`
	Response    map[string]string `json:"response"` // lower-case names
	Body        []byte            `json:"body"`
}

// TestSignedAnswers_VerifyWithAVerifierWrittenFromTheDocsInNode: a verifier
// written in JavaScript from docs/api.md alone, with Node's crypto,
// verifies every answer of 64 concurrent clients (successes and refusals,
// GETs and POSTs with bodies, batches of several answers with their
// proofs) and an offline token, and refuses tampered ones. This proves the
// docs are enough for a client in another language.
func TestSignedAnswers_VerifyWithAVerifierWrittenFromTheDocsInNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("APP_ACCESS_REQUIRE_NODE") == "1" {
			t.Fatalf("node is required (APP_ACCESS_REQUIRE_NODE=1): %v", err)
		}
		t.Skip("node is not installed")
	}
	ctx := context.Background()
	svc := access.NewService(storetest.SQLite(t), access.Config{Staleness: time.Hour,
		Argon2: access.Argon2Params{MemoryKiB: 64, Iterations: 1, Parallelism: 1},
		// The refusals below come from one address: throttling is out of
		// their way, so that each is the refusal it is and not a 429.
		Throttle: access.ThrottlePolicy{AccountAddressFree: 1e9, AddressFree: 1e9, AccountFree: 1e9, CodeFree: 1e9, SecretFree: 1e9, SignUpsPerAddress: 1e9}})
	yes, name := true, "node"
	app, err := svc.CreateApp(ctx, access.AppSettings{Name: &name, AnonymousAccess: &yes, DeviceAuth: &yes})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.SignUp(ctx, &app.App, access.SignUpRequest{Username: "alice", Password: "vortex-lamp-71", HardwareID: "hw-1"}); err != nil {
		t.Fatal(err)
	}
	ls, err := svc.CreateLicenses(ctx, app.ID, access.LicenseRequest{Count: 1, Grant: access.Grant{Minutes: ptr[int64](60)}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.ActivateLicense(ctx, &app.App, access.ActivateRequest{Code: ls[0].Code, Username: "alice", Password: "vortex-lamp-71"}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(clientapi.NewHandler(svc, nil, nil))
	defer srv.Close()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	do := func(method, target, body string, h map[string]string) capturedAnswer {
		var rb io.Reader
		if body != "" {
			rb = strings.NewReader(body)
		}
		req, _ := http.NewRequest(method, srv.URL+target, rb)
		c := capturedAnswer{Method: method, Target: target, Request: map[string]string{}, RequestBody: []byte(body), Response: map[string]string{}}
		c.Nonce = fmt.Sprintf("n-%d", time.Now().UnixNano())
		h["x-api-key"], h["x-api-secret"], h["X-App-Access-Nonce"] = app.APIKey, app.APISecret, c.Nonce
		for k, v := range h {
			req.Header.Set(k, v)
			c.Request[strings.ToLower(k)] = v
		}
		res, err := hc.Do(req)
		if err != nil {
			t.Error(err)
			return c
		}
		defer res.Body.Close()
		c.Body, _ = io.ReadAll(res.Body)
		c.Status = res.StatusCode
		for k := range res.Header {
			c.Response[strings.ToLower(k)] = res.Header.Get(k)
		}
		return c
	}
	// The activation refusal and the login are slow (a hash): the
	// anonymous reads around them wait for signatures together.
	calls := []func() capturedAnswer{
		func() capturedAnswer { return do("GET", "/app_context?lang=en", "", map[string]string{}) },
		func() capturedAnswer {
			return do("GET", "/app_context", "", map[string]string{"Authorization": "Bearer not-a-token", "x-hardware-id": "hw-1"})
		},
		func() capturedAnswer {
			return do("POST", "/auth/login", `{"credentials":{"username":"alice","password":"vortex-lamp-71"},"hardware_id":"hw-1"}`, map[string]string{})
		},
		func() capturedAnswer {
			return do("POST", "/activate_license", `{"code":"`+ls[0].Code+`x","username":"alice","password":"nope"}`, map[string]string{})
		},
		func() capturedAnswer { return do("POST", "/sign_up", `{"username":""}`, map[string]string{}) },
		func() capturedAnswer {
			return do("GET", "/files/00000000-0000-0000-0000-000000000000", "", map[string]string{"Range": "bytes=0-1"})
		},
		func() capturedAnswer { return do("HEAD", "/app_context", "", map[string]string{}) },
	}
	var (
		mu      sync.Mutex
		answers []capturedAnswer
		wg      sync.WaitGroup
	)
	for i := range 64 {
		wg.Go(func() {
			for j := range 12 {
				c := calls[(i+j)%len(calls)]()
				mu.Lock()
				answers = append(answers, c)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	issued := do("POST", "/auth/offline_token", "", map[string]string{"x-api-username": "alice", "x-api-password": "vortex-lamp-71", "x-hardware-id": "hw-1"})
	var tok struct {
		Token string `json:"token"`
	}
	if err := json.Unmarshal(issued.Body, &tok); err != nil || issued.Status != http.StatusOK {
		t.Fatalf("offline token: %d %s", issued.Status, issued.Body)
	}
	answers = append(answers, issued)
	keys, err := svc.SigningKeys(ctx, app.ID)
	if err != nil {
		t.Fatal(err)
	}
	input := map[string]any{"answers": answers, "token": tok.Token, "keys": []string{base64.StdEncoding.EncodeToString(keys[0].PublicKey)}}
	dir := t.TempDir()
	in, script := filepath.Join(dir, "answers.json"), filepath.Join(dir, "verify.js")
	b, _ := json.Marshal(input)
	if err := os.WriteFile(in, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, []byte(verifyAnswersJS), 0o600); err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(cctx, node, script, in)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node verifier: %v\n%s", err, stderr.String())
	}
	var report struct {
		Failures []string       `json:"failures"`
		Verified int            `json:"verified"`
		Batched  int            `json:"batched"`
		Statuses map[string]int `json:"statuses"`
		Token    *struct {
			Sub      string `json:"sub"`
			Username string `json:"username"`
			HWID     string `json:"hwid"`
		} `json:"token"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &report); err != nil {
		t.Fatalf("node's report %q: %v", stdout.String(), err)
	}
	t.Logf("node verified %d answers (statuses %v), %d of them in batches of several", report.Verified, report.Statuses, report.Batched)
	if len(report.Failures) > 0 || report.Verified != len(answers) {
		t.Fatalf("node refused %d of %d answers: %v", len(report.Failures), len(answers), report.Failures[:min(5, len(report.Failures))])
	}
	if report.Batched == 0 {
		t.Error("no answer was signed in a batch of several: the proofs went unchecked")
	}
	if len(report.Statuses) < 4 {
		t.Errorf("statuses %v: want successes and refusals", report.Statuses)
	}
	if report.Token == nil || report.Token.Username != "alice" || report.Token.HWID != "hw-1" {
		t.Errorf("node did not verify the offline token: %+v", report.Token)
	}
}
