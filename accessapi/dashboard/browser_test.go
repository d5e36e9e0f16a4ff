package dashboard_test

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/chromedp"

	"github.com/appaccess/appaccess/accessapi/access"
)

// The browser tests drive a real headless Chromium: one browser for the
// package (started in TestMain), a tab per test. Set CHROME_PATH to the
// browser, or have chromium on PATH; without one they skip, unless
// APP_ACCESS_REQUIRE_BROWSER is set (as .ci/run does), when they fail.
var browserCtx context.Context

func TestMain(m *testing.M) {
	os.Exit(runWithBrowser(m))
}

func runWithBrowser(m *testing.M) int {
	path := findBrowser()
	if path == "" {
		return m.Run()
	}
	opts := []chromedp.ExecAllocatorOption{chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.DisableGPU, chromedp.WindowSize(1100, 900)}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	// The first Run starts the browser; it must have no timeout, or the
	// timeout would end the whole browser (chromedp/chromedp#1453).
	if err := chromedp.Do(ctx); err != nil {
		fmt.Fprintf(os.Stderr, "starting %s: %v\n", path, err)
		return 1
	}
	browserCtx = ctx
	return m.Run()
}

func findBrowser() string {
	if p := os.Getenv("CHROME_PATH"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// tab is one test's browser tab on the env's server. It fails the test on
// any page exception, console error or CSP violation, and saves a
// screenshot of each page it is asked to.
type tab struct {
	t   *testing.T
	e   *env
	ctx context.Context

	mu       sync.Mutex
	problems []string
}

func newTab(t *testing.T, e *env) *tab {
	t.Helper()
	if browserCtx == nil {
		if os.Getenv("APP_ACCESS_REQUIRE_BROWSER") != "" {
			t.Fatal("no Chromium: set CHROME_PATH or put chromium on PATH")
		}
		t.Skip("no Chromium on PATH and no CHROME_PATH; skipping the browser test")
	}
	ctx, cancel := chromedp.NewContext(browserCtx)
	t.Cleanup(cancel)
	tb := &tab{t: t, e: e, ctx: ctx}
	messages := chromedp.Console(ctx)
	if _, err := chromedp.Call(ctx, cdplog.Enable, cdp.Empty{}); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type != chromedp.ConsoleError && m.Type != chromedp.ConsoleException && m.Source != "security" {
				continue
			}
			if strings.HasSuffix(m.URL, "/favicon.ico") {
				continue // the client API's 404 at the site root
			}
			tb.mu.Lock()
			tb.problems = append(tb.problems, m.String())
			tb.mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		cancel()
		<-done
		tb.mu.Lock()
		defer tb.mu.Unlock()
		for _, p := range tb.problems {
			t.Errorf("browser reported: %s", p)
		}
	})
	return tb
}

// do runs steps with a time limit (derived from the tab, which has run).
func (tb *tab) do(steps ...chromedp.Action[chromedp.Void]) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		tb.t.Fatal(err)
	}
}

func (tb *tab) text(sel string) string {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 20*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Text(sel))
	if err != nil {
		tb.t.Fatal(err)
	}
	return s
}

// screenshot saves the page as name.png among the test's artifacts, and
// in $APP_ACCESS_SCREENSHOTS when set (how docs/ gets its pictures).
func (tb *tab) screenshot(name string) {
	tb.t.Helper()
	ctx, cancel := context.WithTimeout(tb.ctx, 20*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		tb.t.Fatal(err)
	}
	dirs := []string{tb.t.ArtifactDir()}
	if d := os.Getenv("APP_ACCESS_SCREENSHOTS"); d != "" {
		dirs = append(dirs, d)
	}
	for _, d := range dirs {
		if err := os.WriteFile(filepath.Join(d, name+".png"), png, 0o644); err != nil {
			tb.t.Fatal(err)
		}
	}
}

func (tb *tab) url(path string) string { return tb.e.srv.URL + path }

// signIn signs in through the form.
func (tb *tab) signIn() {
	tb.t.Helper()
	tb.do(chromedp.Navigate(tb.url("/admin/signin")), chromedp.WaitVisible("#username"))
	tb.screenshot("signin")
	tb.do(chromedp.SendKeys("#username", adminName), chromedp.SendKeys("#password", adminPassword),
		chromedp.Click("#signin"), chromedp.WaitVisible("#apps"))
}

func TestBrowser_SignInAndOut(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	codes, err := e.svc.CreateLicenses(ctx, e.app.ID, access.LicenseRequest{Count: 5, Grant: access.Grant{Minutes: ptr(int64(60))}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range codes[:3] { // the chart has something to show
		if _, err := e.svc.SignUpWithLicense(ctx, &e.app.App, c.Code, ""); err != nil {
			t.Fatal(err)
		}
	}
	tb := newTab(t, e)
	tb.signIn()
	if got := tb.text("#apps"); !strings.Contains(got, e.app.Name) {
		t.Fatalf("home page lists %q", got)
	}
	if got := tb.text(".activity"); !strings.Contains(got, "3 sign-ups") {
		t.Fatalf("home page chart says %q", got)
	}
	tb.screenshot("home")
	tb.do(chromedp.Navigate(tb.url("/admin/apps/"+e.app.ID)), chromedp.WaitVisible("#signout"))
	tb.screenshot("app")
	tb.do(chromedp.Click("#signout"), chromedp.WaitVisible("#username"))
	// Signed out, the dashboard sends the browser back to the sign-in page.
	tb.do(chromedp.Navigate(tb.url("/admin/")), chromedp.WaitVisible("#username"))
}

func TestBrowser_GenerateTenCodesAndDownloadTheCSV(t *testing.T) {
	e := newEnv(t)
	tb := newTab(t, e)
	dir := t.TempDir()
	if _, err := chromedp.CallBrowser(tb.ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: dir, EventsEnabled: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	downloaded := make(chan string, 1)
	if err := chromedp.ListenBrowser(tb.ctx, func(ev any) {
		if p, ok := ev.(*cdpbrowser.EventDownloadProgress); ok && p.State == cdpbrowser.DownloadProgressStateCompleted {
			select {
			case downloaded <- p.GUID:
			default:
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	tb.signIn()
	tb.do(chromedp.Navigate(tb.url("/admin/apps/"+e.app.ID+"/licenses")), chromedp.WaitVisible("#generate"))
	tb.screenshot("licenses")
	tb.do(chromedp.SetValue("#count", "10"), chromedp.SetValue("#minutes", "60"), chromedp.Click("#generate"))
	var guid string
	select {
	case guid = <-downloaded:
	case <-time.After(20 * time.Second):
		t.Fatal("no download completed")
	}
	f, err := os.Open(filepath.Join(dir, guid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) != 11 || rows[0][0] != "code" {
		t.Fatalf("CSV: %d rows, %v", len(rows), err)
	}
	// The codes work: one redeems, and the listing shows ten licenses.
	if _, err := e.svc.SignUpWithLicense(context.Background(), &e.app.App, rows[1][0], ""); err != nil {
		t.Fatalf("a downloaded code does not redeem: %v", err)
	}
	tb.do(chromedp.Navigate(tb.url("/admin/apps/"+e.app.ID+"/licenses?filter=unused")), chromedp.WaitVisible("#licenses"))
	if n := strings.Count(tb.text("#licenses tbody"), "unused"); n != 9 {
		t.Fatalf("%d unused licenses listed, want 9", n)
	}
}

func TestBrowser_FindAUserBanThemAndTheClientAPIRefusesThem(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	password := "a long and unusual pass 7"
	u, err := e.svc.SignUp(ctx, &e.app.App, access.SignUpRequest{Username: "buyer-ann", Password: password})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.svc.SignUp(ctx, &e.app.App, access.SignUpRequest{Username: "zed", Password: password}); err != nil {
		t.Fatal(err)
	}
	minutes := int64(600)
	if _, err := e.svc.GrantUser(ctx, e.app.ID, u.ID, access.GrantRequest{Grant: access.Grant{Minutes: &minutes}}); err != nil {
		t.Fatal(err)
	}
	login := func() (int, string) {
		req, _ := http.NewRequest("POST", e.srv.URL+"/api/auth/login",
			strings.NewReader(`{"credentials": {"username": "buyer-ann", "password": "`+password+`"}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Api-Key", e.app.APIKey)
		req.Header.Set("X-Api-Secret", e.app.APISecret)
		return do(t, http.DefaultClient, req)
	}
	if status, body := login(); status != http.StatusOK {
		t.Fatalf("login before the ban: %d %s", status, body)
	}
	tb := newTab(t, e)
	tb.signIn()
	tb.do(chromedp.Navigate(tb.url("/admin/apps/"+e.app.ID+"/users")), chromedp.WaitVisible("#prefix"),
		chromedp.SendKeys("#prefix", "buyer"), chromedp.Click("#search"),
		// The list before the search shows both users: wait for the new page.
		chromedp.WaitNotPresent(`//a[text()="zed"]`), chromedp.WaitVisible(`//a[text()="buyer-ann"]`))
	if got := tb.text("#users tbody"); strings.Contains(got, "zed") {
		t.Fatalf("the search by prefix lists %q", got)
	}
	tb.screenshot("users")
	tb.do(chromedp.Click(`//a[text()="buyer-ann"]`), chromedp.WaitVisible("#reason"))
	tb.do(chromedp.SendKeys("#reason", "chargeback"), chromedp.Click("#ban"), chromedp.WaitVisible("#unban"))
	if got := tb.text("#ban-status"); !strings.Contains(got, "chargeback") {
		t.Fatalf("ban status %q", got)
	}
	tb.screenshot("user")
	status, body := login()
	if status != http.StatusForbidden || !strings.Contains(body, `"user_banned"`) {
		t.Fatalf("login after the ban: %d %s, want 403 user_banned", status, body)
	}
	// The audit log names the ban, who made it and why.
	tb.do(chromedp.Click(`//nav/a[text()="Audit log"]`), chromedp.WaitVisible(`//td[text()="user.banned"]`))
	if got := tb.text("#audit tbody"); !strings.Contains(got, adminName) || !strings.Contains(got, "chargeback") {
		t.Fatalf("audit page %q lacks the administrator or the reason", got)
	}
	tb.screenshot("audit")
}

func TestBrowser_UploadAFile(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(t.TempDir(), "update-notes.txt")
	if err := os.WriteFile(path, []byte("version 2 is out\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tb := newTab(t, e)
	tb.signIn()
	tb.do(chromedp.Navigate(tb.url("/admin/apps/"+e.app.ID+"/content")), chromedp.WaitVisible("#upload"),
		chromedp.SetUploadFiles("#file", []string{path}), chromedp.Click("#upload"),
		chromedp.WaitVisible(`//td[text()="update-notes.txt"]`))
	tb.screenshot("content")
	files, err := e.svc.Files(context.Background(), e.app.ID)
	if err != nil || len(files) != 1 || files[0].Name != "update-notes.txt" || files[0].Size != 17 {
		t.Fatalf("stored files %+v, %v", files, err)
	}
}

func TestBrowser_SellerKeyIsShownOnceThenNeverAgain(t *testing.T) {
	e := newEnv(t)
	tb := newTab(t, e)
	tb.signIn()
	tb.do(chromedp.Navigate(tb.url("/admin/apps/"+e.app.ID+"/keys")), chromedp.WaitVisible(`input[name="name"]`),
		chromedp.SendKeys(`input[name="name"]`, "webshop"), chromedp.Click(`input[value="licenses:create"]`),
		chromedp.Submit(`input[name="name"]`), chromedp.WaitVisible("#new-key"))
	key := tb.text("#new-key")
	if !strings.HasPrefix(key, "sk_") {
		t.Fatalf("new key %q", key)
	}
	tb.screenshot("keys")
	tb.do(chromedp.Navigate(tb.url("/admin/apps/"+e.app.ID+"/keys")), chromedp.WaitVisible("#keys"))
	html, err := chromedp.Run(tb.ctx, chromedp.OuterHTML("html"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(html, key) {
		t.Fatal("the seller key is rendered again after its creation")
	}
}

// TestBrowser_WebhookSecretIsShownOnceThenNeverAgain: an endpoint made in
// the form shows its secret once; its page lists its deliveries and
// rotates the secret, again shown once.
func TestBrowser_WebhookSecretIsShownOnceThenNeverAgain(t *testing.T) {
	e := newEnv(t)
	tb := newTab(t, e)
	tb.signIn()
	tb.do(chromedp.Navigate(tb.url("/admin/apps/"+e.app.ID)), chromedp.Click(`//nav/a[text()="Webhooks"]`), chromedp.WaitVisible("#url"),
		chromedp.SendKeys("#url", "https://shop.example/hooks/app-access"), chromedp.Click(`input[value="licenses.created"]`),
		chromedp.Click(`input[value="user.signed_up"]`), chromedp.Click("#create"), chromedp.WaitVisible("#new-secret"))
	secret := tb.text("#new-secret")
	if !strings.HasPrefix(secret, access.WebhookSecretPrefix) {
		t.Fatalf("new secret %q", secret)
	}
	tb.screenshot("webhooks")
	for range 3 {
		if _, err := e.svc.CreateLicenses(context.Background(), e.app.ID, access.LicenseRequest{Count: 1, Grant: access.Grant{Minutes: ptr(int64(60))}}); err != nil {
			t.Fatal(err)
		}
	}
	tb.do(chromedp.Click(`//a[text()="Open the endpoint"]`), chromedp.WaitVisible("#deliveries"))
	if n := strings.Count(tb.text("#deliveries tbody"), "licenses.created"); n != 3 {
		t.Fatalf("the delivery log lists %d deliveries, want 3", n)
	}
	page, err := chromedp.Run(tb.ctx, chromedp.OuterHTML("html"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(page, secret) {
		t.Fatal("the endpoint's secret is rendered again after its creation")
	}
	tb.do(chromedp.SetValue("#overlap", "3600"), chromedp.Click("#rotate"), chromedp.WaitVisible("#new-secret"))
	if rotated := tb.text("#new-secret"); rotated == secret || !strings.HasPrefix(rotated, access.WebhookSecretPrefix) {
		t.Fatalf("rotated secret %q", rotated)
	}
	if got := tb.text("#previous-secret"); !strings.Contains(got, "signs too until") {
		t.Fatalf("after rotating with an overlap the page says %q", got)
	}
	tb.screenshot("webhook")
}

func ptr[T any](v T) *T { return &v }

// TestBrowser_DeletingAUserTakesAConfirmingSecondClick: the delete button
// is hidden until its summary is opened, and the second click deletes.
func TestBrowser_DeletingAUserTakesAConfirmingSecondClick(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	u, err := e.svc.SignUp(ctx, &e.app.App, access.SignUpRequest{Username: "leaving-lou", Password: "a long and unusual pass 7"})
	if err != nil {
		t.Fatal(err)
	}
	tb := newTab(t, e)
	tb.signIn()
	confirm := `//button[text()="Yes, delete user"]`
	tb.do(chromedp.Navigate(tb.url("/admin/apps/"+e.app.ID+"/users/"+u.ID)), chromedp.WaitVisible(`//summary[text()="Delete user"]`))
	visible, err := chromedp.Run(tb.ctx, chromedp.Evaluate[bool](`document.evaluate('`+confirm+`', document, null, 9, null).singleNodeValue.checkVisibility()`))
	if err != nil {
		t.Fatal(err)
	}
	if visible {
		t.Fatal("the confirming button shows before its summary is opened")
	}
	tb.do(chromedp.Click(`//summary[text()="Delete user"]`), chromedp.Click(confirm), chromedp.WaitVisible("#prefix"))
	var refusal *access.Error
	if _, err := e.svc.UserOf(ctx, e.app.ID, u.ID); !errors.As(err, &refusal) || refusal.Code != access.CodeNotFound {
		t.Fatalf("after the confirming click the user reads %v, want not found", err)
	}
}
