// Package httpx is the HTTP toolkit App Access's APIs share: RFC 9457
// problem answers, JSON answers and request bodies with an explicit size
// limit, timestamp formatting, and a router on net/http.ServeMux method
// patterns whose 404 and 405 answers are problems too.
package httpx
