// Package access is the domain of App Access: applications, users, license
// codes, the membership ledger, devices and sessions, and the use cases that
// combine them. It has no HTTP, SQL or MongoDB types; storage sits behind the
// small interfaces in store.go, implemented by packages sqlitestore and
// mongostore.
package access
