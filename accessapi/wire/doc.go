// Package wire holds the JSON request and response bodies of App Access's
// two HTTP APIs: the client API (the interface specification's endpoints)
// and the management API. The handlers, the typed admin client, the
// command and the API documentation all use these types, so the JSON has
// one definition. Timestamps are RFC 3339 strings in UTC.
//
// The package uses only the standard library, so a client program can
// import it without pulling in the server.
package wire
