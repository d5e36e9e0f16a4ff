package openapitest

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestCheckFindsEveryKindOfDifference: the checks fail on each kind of
// difference from the document and pass an answer that matches it.
func TestCheckFindsEveryKindOfDifference(t *testing.T) {
	client, err := Client()
	if err != nil {
		t.Fatal(err)
	}
	management, err := Management()
	if err != nil {
		t.Fatal(err)
	}
	const user = `{"id":"5cc86e7d-1f0c-4a57-9d34-2f6c1e0b8a11","username":"alice","membership":{"is_active":false,"is_lifetime":false,"expires_at":null}}`
	const problem401 = `{"type":"urn:app-access:problem:invalid_application","title":"Invalid application credentials","status":401,"detail":"No.","code":"invalid_application"}`
	jsonHeaders := map[string]string{"Content-Type": "application/json", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}
	problemHeaders := map[string]string{"Content-Type": "application/problem+json", "Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
		"WWW-Authenticate": `Bearer realm="app-access"`}
	with := func(h map[string]string, kv ...string) map[string]string {
		out := map[string]string{}
		for k, v := range h {
			out[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == "" {
				delete(out, kv[i])
			} else {
				out[kv[i]] = kv[i+1]
			}
		}
		return out
	}
	for _, tc := range []struct {
		name      string
		v         *Validator
		method    string
		path      string
		status    int
		headers   map[string]string
		body      string
		wantError string
	}{
		{"a matching answer passes", client, "POST", "/sign_up", 201, jsonHeaders, user, ""},
		{"an undeclared property", client, "POST", "/sign_up", 201, jsonHeaders, strings.Replace(user, `"username"`, `"extra":1,"username"`, 1), "extra"},
		{"a missing property", client, "POST", "/sign_up", 201, jsonHeaders, strings.Replace(user, `"username":"alice",`, "", 1), "username"},
		{"a malformed uuid", client, "POST", "/sign_up", 201, jsonHeaders, strings.Replace(user, "5cc86e7d-", "5cc86e7d", 1), "uuid"},
		{"a status the operation does not have", client, "POST", "/sign_up", 200, jsonHeaders, user, "200"},
		{"a missing Cache-Control", client, "POST", "/sign_up", 201, with(jsonHeaders, "Cache-Control", ""), user, "Cache-Control"},
		{"another Cache-Control", client, "POST", "/sign_up", 201, with(jsonHeaders, "Cache-Control", "max-age=60"), user, "Cache-Control"},
		{"an undeclared header", client, "POST", "/sign_up", 201, with(jsonHeaders, "X-Debug", "1"), user, "X-Debug"},
		{"a matching problem passes", client, "POST", "/sign_up", 401, problemHeaders, problem401, ""},
		{"a problem without WWW-Authenticate", client, "POST", "/sign_up", 401, with(problemHeaders, "WWW-Authenticate", ""), problem401, "WWW-Authenticate"},
		{"a code of another status", client, "POST", "/sign_up", 401, problemHeaders, strings.ReplaceAll(problem401, "invalid_application", "user_banned"), "code"},
		{"a code outside the enum", client, "POST", "/sign_up", 401, problemHeaders, strings.ReplaceAll(problem401, "invalid_application", "nope"), "code"},
		{"429 without Retry-After", client, "POST", "/auth/login", 429, with(problemHeaders, "WWW-Authenticate", ""),
			`{"type":"urn:app-access:problem:too_many_attempts","title":"Too many attempts","status":429,"detail":"Wait.","code":"too_many_attempts"}`, "Retry-After"},
		{"the router's 405 passes", client, "DELETE", "/sign_up", 405, with(problemHeaders, "WWW-Authenticate", "", "Allow", "POST"),
			`{"type":"urn:app-access:problem:method_not_allowed","title":"Method not allowed","status":405,"detail":"Use POST.","code":"method_not_allowed"}`, ""},
		{"the router's 405 without Allow", client, "DELETE", "/sign_up", 405, with(problemHeaders, "WWW-Authenticate", ""),
			`{"type":"urn:app-access:problem:method_not_allowed","title":"Method not allowed","status":405,"detail":"Use POST.","code":"method_not_allowed"}`, "Allow"},
		{"the router's 404 with another code", client, "GET", "/nowhere", 404, with(problemHeaders, "WWW-Authenticate", ""),
			`{"type":"urn:app-access:problem:not_found","title":"Not found","status":404,"detail":"No.","code":"internal_error"}`, "code"},
		{"a management answer passes", management, "GET", "/app_access/health", 200, jsonHeaders,
			`{"status":"ok","time":"2026-11-22T09:28:52.464Z"}`, ""},
		{"a malformed date-time", management, "GET", "/app_access/health", 200, jsonHeaders,
			`{"status":"ok","time":"yesterday"}`, "date-time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest(tc.method, "http://localhost:8080"+tc.path, nil)
			res := &http.Response{StatusCode: tc.status, Header: http.Header{}, Request: req}
			for k, v := range tc.headers {
				res.Header.Set(k, v)
			}
			err := tc.v.Check(req, res, []byte(tc.body))
			switch {
			case tc.wantError == "" && err != nil:
				t.Fatalf("want no difference, got %v", err)
			case tc.wantError != "" && err == nil:
				t.Fatalf("want a difference about %s, got none", tc.wantError)
			case tc.wantError != "" && !strings.Contains(err.Error(), tc.wantError):
				t.Fatalf("want a difference about %s, got %v", tc.wantError, err)
			}
		})
	}
}
