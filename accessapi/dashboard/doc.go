// Package dashboard serves App Access on the public site for people and
// shops: the management API (the same routes and JSON as on Caddy's admin
// endpoint) authenticated by a seller key or a dashboard session, and a
// server-rendered web dashboard for administrators.
//
// Security, in layers: sessions are 256-bit tokens in an HttpOnly,
// SameSite=Lax cookie (Secure by configuration, never guessed from
// headers) whose SHA-256 alone is stored, replaced at every sign-in; every
// unsafe request carries a per-session CSRF token compared in constant
// time, behind net/http's CrossOriginProtection; every page is sent with a
// strict, nonce-based Content-Security-Policy and loads no script; a
// secret (application secret, license code, seller key) is rendered only
// in the answer that created it.
package dashboard
