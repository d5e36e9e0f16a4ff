// Package openapitest checks HTTP exchanges against App Access's OpenAPI
// documents with pb33f/libopenapi-validator, in strict mode and with format
// assertions: an undeclared property or header, a status the operation does
// not have, a missing required header or a body that breaks its schema is a
// difference. Tests put it in their clients (Transport) or call Check on
// each answer, and fail on any difference.
package openapitest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	verrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/appaccess/appaccess/accessapi/openapi"
)

// Validator checks answers against one document.
type Validator struct {
	mu     sync.Mutex // the validator's caches are not documented as safe for concurrent use
	v      validator.Validator
	loose  validator.Validator // without strict mode, for the document itself
	model  *v3.Document
	schema schema_validation.SchemaValidator
}

var (
	clientOnce, managementOnce sync.Once
	client, management         *Validator
	clientErr, managementErr   error
)

// Client is the validator of the client API's document, made once.
func Client() (*Validator, error) {
	clientOnce.Do(func() { client, clientErr = New(openapi.Client) })
	return client, clientErr
}

// Management is the validator of the management API's document, made once.
func Management() (*Validator, error) {
	managementOnce.Do(func() { management, managementErr = New(openapi.Management) })
	return management, managementErr
}

// options are strict: undeclared properties and headers are differences,
// and formats (uuid, date-time) are asserted.
func options() []config.Option {
	return append(looseOptions(), config.WithStrictMode(),
		// Headers the HTTP stack adds, which no document describes.
		config.WithStrictIgnoredHeadersExtra("server", "alt-svc", "via"))
}

// looseOptions check the OpenAPI document that GET …/openapi.json answers,
// whose nested objects its schema describes only at the top level; Check
// also compares it with the embedded bytes.
func looseOptions() []config.Option {
	return []config.Option{config.WithFormatAssertions()}
}

// New returns a validator of doc.
func New(doc []byte) (*Validator, error) {
	d, err := libopenapi.NewDocument(doc)
	if err != nil {
		return nil, fmt.Errorf("parsing the document: %w", err)
	}
	model, err := d.BuildV3Model()
	if err != nil {
		return nil, fmt.Errorf("building the document's model: %w", err)
	}
	v, errs := validator.NewValidator(d, options()...)
	if len(errs) > 0 {
		return nil, fmt.Errorf("making the validator: %w", errors.Join(errs...))
	}
	loose, errs := validator.NewValidator(d, looseOptions()...)
	if len(errs) > 0 {
		return nil, fmt.Errorf("making the validator: %w", errors.Join(errs...))
	}
	return &Validator{v: v, loose: loose, model: &model.Model, schema: schema_validation.NewSchemaValidator(options()...)}, nil
}

// Check validates one answer: res with its body already read into body.
// A HEAD answer is not checked (it has no body to check). An unknown path
// (404) or a known path with another method (405) is not an operation of
// the document: the answer is checked against the document's
// Problem404/Problem405 response instead.
func (v *Validator) Check(req *http.Request, res *http.Response, body []byte) error {
	if req.Method == http.MethodHead {
		return nil
	}
	copyRes := *res
	copyRes.Body = io.NopCloser(bytes.NewReader(body))
	copyRes.Request = req
	check := v.v
	if strings.HasSuffix(req.URL.Path, "/openapi.json") {
		check = v.loose
		if res.StatusCode == http.StatusOK && !bytes.Equal(body, openapi.Client) && !bytes.Equal(body, openapi.Management) {
			return fmt.Errorf("GET %s answered a document that is not the embedded one", req.URL.Path)
		}
	}
	v.mu.Lock()
	ok, errs := check.ValidateHttpResponse(req, &copyRes)
	v.mu.Unlock()
	if ok {
		return nil
	}
	if outsideDocument(errs) && (res.StatusCode == http.StatusNotFound || res.StatusCode == http.StatusMethodNotAllowed) {
		return v.checkFallback(res, body)
	}
	return describe(req, res, body, errs)
}

// outsideDocument reports whether the request names no operation.
func outsideDocument(errs []*verrors.ValidationError) bool {
	for _, e := range errs {
		if e.IsPathMissingError() || e.ValidationSubType == "missingOperation" {
			return true
		}
	}
	return false
}

// checkFallback checks a 404 or 405 of the router against the document's
// problem response of that status.
func (v *Validator) checkFallback(res *http.Response, body []byte) error {
	name := fmt.Sprintf("Problem%d", res.StatusCode)
	r := v.model.Components.Responses.GetOrZero(name)
	if r == nil {
		return fmt.Errorf("%d answer, and the document has no %s response", res.StatusCode, name)
	}
	var diffs []string
	for h, hdr := range r.Headers.FromOldest() {
		if hdr.Required && res.Header.Get(h) == "" {
			diffs = append(diffs, "missing header "+h)
		}
	}
	ct := res.Header.Get("Content-Type")
	mt := r.Content.GetOrZero(ct)
	if mt == nil {
		diffs = append(diffs, "content type "+ct+" is not the document's")
	} else {
		v.mu.Lock()
		ok, errs := v.schema.ValidateSchemaBytes(mt.Schema.Schema(), body)
		v.mu.Unlock()
		if !ok {
			diffs = append(diffs, describeErrors(errs)...)
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%d answer differs from the document's %s: %s; body %s", res.StatusCode, name, strings.Join(diffs, "; "), body)
	}
	return nil
}

func describe(req *http.Request, res *http.Response, body []byte, errs []*verrors.ValidationError) error {
	if len(body) > 2048 {
		body = append(body[:2048:2048], "…"...)
	}
	return fmt.Errorf("%s %s answered %d, which differs from the OpenAPI document:\n  %s\n  headers %v\n  body %s",
		req.Method, req.URL.Path, res.StatusCode, strings.Join(describeErrors(errs), "\n  "), res.Header, body)
}

func describeErrors(errs []*verrors.ValidationError) []string {
	var out []string
	for _, e := range errs {
		line := e.Message
		if e.Reason != "" {
			line += ": " + e.Reason
		}
		for _, f := range e.SchemaValidationErrors {
			line += fmt.Sprintf(" [%s at %s]", f.Reason, f.FieldPath)
		}
		out = append(out, line)
	}
	return out
}

// Transport checks every answer whose URL starts with a prefix of
// Documents against that document, and reports each difference to Report
// (a test's Errorf). Answers elsewhere pass unchecked.
type Transport struct {
	// Base sends the requests; nil is http.DefaultTransport.
	Base http.RoundTripper
	// Documents maps a URL prefix (scheme, host and path) to its
	// validator.
	Documents map[string]*Validator
	// Report receives each difference.
	Report func(error)
}

// RoundTrip implements http.RoundTripper; the body is read and put back.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	res, err := base.RoundTrip(req)
	if err != nil {
		return res, err
	}
	v := t.validatorFor(req.URL.String())
	if v == nil {
		return res, nil
	}
	body, err := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("reading the answer to check it: %w", err)
	}
	res.Body = io.NopCloser(bytes.NewReader(body))
	if err := v.Check(req, res, body); err != nil {
		t.Report(err)
	}
	return res, nil
}

func (t *Transport) validatorFor(url string) *Validator {
	best, bestLen := (*Validator)(nil), -1
	for prefix, v := range t.Documents {
		if strings.HasPrefix(url, prefix) && len(prefix) > bestLen {
			best, bestLen = v, len(prefix)
		}
	}
	return best
}
