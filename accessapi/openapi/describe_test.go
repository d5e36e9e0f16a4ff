package openapi

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/httpx"
	"github.com/appaccess/appaccess/accessapi/wire"
)

// The description the two documents are generated from. A helper a line
// builds each part, so every route answers its problems, headers and
// bodies the same way the handlers do.

type obj = map[string]any

func ref(kind, name string) obj { return obj{"$ref": "#/components/" + kind + "/" + name} }
func schemaRef(name string) obj { return ref("schemas", name) }

// closed is an object with exactly these properties, the required ones
// named.
func closed(required []string, props obj) obj {
	if required == nil {
		required = []string{}
	}
	o := obj{"type": "object", "additionalProperties": false, "properties": props}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

// open is a request body the client API reads while ignoring unknown
// fields, on purpose.
func open(required []string, props obj) obj {
	o := obj{"type": "object", "properties": props}
	if len(required) > 0 {
		o["required"] = required
	}
	return o
}

func str(desc string) obj { return obj{"type": "string", "description": desc} }
func boolean(desc string) obj {
	return obj{"type": "boolean", "description": desc}
}
func integer(desc string) obj { return obj{"type": "integer", "description": desc} }
func uuid(desc string) obj {
	return obj{"type": "string", "format": "uuid", "description": desc}
}
func timestamp(desc string) obj {
	return obj{"type": "string", "format": "date-time", "description": desc}
}
func nullable(s obj) obj {
	out := obj{}
	for k, v := range s {
		out[k] = v
	}
	out["type"] = []string{s["type"].(string), "null"}
	return out
}
func arrayOf(items obj) obj { return obj{"type": "array", "items": items} }

// header is a response header; a required one must be sent.
func header(desc string, required bool, schema obj) obj {
	return obj{"description": desc, "required": required, "schema": schema}
}

// api describes one document.
type api struct {
	title, description string
	codes              []access.Code
	// retryAfter503 is whether every 503 carries Retry-After.
	retryAfter503 bool
	schemas       obj
	paths         obj
	security      obj
}

// statusCodes maps each problem status of the API to its codes.
func (a *api) statusCodes() map[int][]access.Code {
	out := map[int][]access.Code{}
	for _, c := range a.codes {
		s := httpx.StatusOf(c)
		out[s] = append(out[s], c)
	}
	return out
}

// problemSchema is the problem body of a status: status fixed, code from
// the API's codes of that status, errors only with 422.
func problemSchema(status int, codes []access.Code) obj {
	var types, titles, names []string
	for _, c := range codes {
		p := httpx.ProblemOf(access.Refusal(c, ""))
		types = append(types, p.Type)
		if !slices.Contains(titles, p.Title) {
			titles = append(titles, p.Title)
		}
		names = append(names, string(c))
	}
	props := obj{
		"type":   obj{"type": "string", "enum": types, "description": wire.ProblemTypePrefix + " and the code."},
		"title":  obj{"type": "string", "enum": titles, "description": "The short, fixed title of the code."},
		"status": obj{"type": "integer", "const": status, "description": "The HTTP status of the answer."},
		"detail": obj{"type": "string", "minLength": 1, "description": "What happened, in words safe to show to a user."},
		"code":   obj{"type": "string", "enum": names, "description": "The stable machine-readable reason."},
	}
	required := []string{"type", "title", "status", "detail", "code"}
	if status == http.StatusUnprocessableEntity {
		props["errors"] = obj{"type": "array", "minItems": 1, "description": "The invalid fields.", "items": schemaRef("FieldError")}
		required = append(required, "errors")
	}
	s := closed(required, props)
	s["description"] = fmt.Sprintf("An RFC 9457 problem with status %d.", status)
	return s
}

func (a *api) problemResponse(status int, codes []access.Code) obj {
	headers := obj{
		"Cache-Control":          ref("headers", "CacheControlNoStore"),
		"X-Content-Type-Options": ref("headers", "NoSniff"),
	}
	switch status {
	case http.StatusUnauthorized:
		headers["WWW-Authenticate"] = ref("headers", "WWWAuthenticate")
	case http.StatusTooManyRequests:
		headers["Retry-After"] = ref("headers", "RetryAfter")
	case http.StatusServiceUnavailable:
		if a.retryAfter503 {
			headers["Retry-After"] = ref("headers", "RetryAfter")
		} else {
			headers["Retry-After"] = ref("headers", "RetryAfterOptional")
		}
	case http.StatusMethodNotAllowed:
		headers["Allow"] = ref("headers", "Allow")
	case http.StatusRequestedRangeNotSatisfiable:
		headers["Content-Range"] = ref("headers", "ContentRangeUnsatisfied")
		headers["ETag"] = ref("headers", "ETag")
		headers["Accept-Ranges"] = ref("headers", "AcceptRanges")
	}
	var names []string
	for _, c := range codes {
		names = append(names, "`"+string(c)+"`")
	}
	return obj{
		"description": "A problem: " + strings.Join(names, ", ") + ".",
		"headers":     headers,
		"content":     obj{"application/problem+json": obj{"schema": schemaRef("Problem" + strconv.Itoa(status))}},
	}
}

// jsonResponse is a JSON success answer, never to be cached.
func jsonResponse(desc string, schema obj) obj {
	return obj{
		"description": desc,
		"headers": obj{
			"Cache-Control":          ref("headers", "CacheControlNoStore"),
			"X-Content-Type-Options": ref("headers", "NoSniff"),
		},
		"content": obj{"application/json": obj{"schema": schema}},
	}
}

// operation is one route of an API.
type operation struct {
	method, path, id, summary, description string
	tag                                    string
	params                                 []obj
	body                                   obj
	bodyOptional                           bool
	ok                                     obj // status -> response
	problems                               []int
	// security overrides the document's default.
	security []obj
}

func (a *api) add(op operation) {
	if a.paths == nil {
		a.paths = obj{}
	}
	item, _ := a.paths[op.path].(obj)
	if item == nil {
		item = obj{}
		a.paths[op.path] = item
	}
	responses := obj{}
	for k, v := range op.ok {
		responses[k] = v
	}
	for _, s := range op.problems {
		responses[strconv.Itoa(s)] = ref("responses", "Problem"+strconv.Itoa(s))
	}
	o := obj{"operationId": op.id, "summary": op.summary, "responses": responses, "tags": []string{op.tag}}
	if op.description != "" {
		o["description"] = op.description
	}
	if len(op.params) > 0 {
		o["parameters"] = op.params
	}
	if op.body != nil {
		o["requestBody"] = obj{"required": !op.bodyOptional, "content": obj{"application/json": obj{"schema": op.body}}}
	}
	if op.security != nil {
		o["security"] = op.security
	}
	item[strings.ToLower(op.method)] = o
}

func (a *api) document(servers, tags []obj) obj {
	problems := obj{}
	responses := obj{}
	for status, codes := range a.statusCodes() {
		problems["Problem"+strconv.Itoa(status)] = problemSchema(status, codes)
		responses["Problem"+strconv.Itoa(status)] = a.problemResponse(status, codes)
	}
	schemas := obj{"FieldError": closed([]string{"field", "message"}, obj{
		"field":   str(`The JSON name of the field ("body" for the body itself).`),
		"message": str("What is wrong, to be read after the field's name."),
	})}
	for k, v := range problems {
		schemas[k] = v
	}
	for k, v := range a.schemas {
		schemas[k] = v
	}
	// Only the headers some response uses.
	headers := obj{
		"CacheControlNoStore": header("JSON answers hold user data or secrets: never cached.", true, obj{"type": "string", "const": "no-store"}),
		"NoSniff":             header("Browsers must not guess another media type.", true, obj{"type": "string", "const": "nosniff"}),
		"Allow":               header("The methods the path has.", true, obj{"type": "string", "pattern": "^[A-Z]+(, [A-Z]+)*$"}),
	}
	sc := a.statusCodes()
	if _, ok := sc[http.StatusUnauthorized]; ok {
		headers["WWWAuthenticate"] = header("The authentication scheme.", true, obj{"type": "string", "const": `Bearer realm="app-access"`})
	}
	if _, ok := sc[http.StatusTooManyRequests]; ok || a.retryAfter503 {
		headers["RetryAfter"] = header("Seconds to wait before trying again.", true, obj{"type": "integer", "minimum": 1})
	}
	if !a.retryAfter503 {
		headers["RetryAfterOptional"] = header("Seconds to wait before trying again, when known.", false, obj{"type": "integer", "minimum": 1})
	}
	components := obj{
		"schemas":   schemas,
		"responses": responses,
		"headers":   headers,
	}
	doc := obj{
		"openapi": "3.1.0",
		"info": obj{
			"title": a.title, "version": "1.0.0", "description": a.description,
			"license": obj{"name": "Proprietary", "identifier": "LicenseRef-Proprietary"},
		},
		"servers":    servers,
		"tags":       tags,
		"paths":      a.paths,
		"components": components,
	}
	if a.security != nil {
		components["securitySchemes"] = a.security
	}
	return doc
}

// The OpenAPI document itself, as GET …/openapi.json answers it.
func openapiOperation(path, tag string, problems []int, security []obj) operation {
	return operation{method: "GET", path: path, id: "getOpenAPIDocument", tag: tag,
		summary: "This OpenAPI document", security: security, problems: problems,
		ok: obj{"200": obj{
			"description": "The OpenAPI 3.1 document of this API.",
			"headers": obj{
				"Cache-Control":          header("May be kept; revalidate: it changes with the server.", true, obj{"type": "string", "const": "no-cache"}),
				"X-Content-Type-Options": ref("headers", "NoSniff"),
			},
			"content": obj{"application/json": obj{"schema": obj{
				"type": "object", "required": []string{"openapi", "info", "paths"},
				"description": "An OpenAPI 3.1 document.",
				"properties": obj{
					"openapi": obj{"type": "string", "pattern": `^3\.1\.\d+$`},
					"info":    obj{"type": "object"}, "servers": obj{"type": "array"}, "tags": obj{"type": "array"},
					"paths": obj{"type": "object"}, "components": obj{"type": "object"}, "security": obj{"type": "array"},
				},
				"additionalProperties": false,
			}}},
		}}}
}
