#!/usr/bin/env bash
# Smoke test of the built binary with the top-level Caddyfile: start it on
# free ports with a temporary data folder, wait for the admin health route,
# drive `caddy app-access` and the client API (an application, codes as CSV,
# a variable, a file, a license sign-up, a ban and an unban, the dashboard's
# sign-in, a seller key and a webhook endpoint the SSRF guard refuses), stop it cleanly, start it again and check that
# the data is still there; then, as the README's guard step does, run
# examples/guard/Caddyfile on the same data in front of a real upstream.
# Needs only bash and curl.
set -euo pipefail
# A command piped into grep is read to its end (grep ... >/dev/null, not grep -q, which stops at the
# first match and leaves curl writing into a closed pipe: a failure under pipefail).

bin=${1:?usage: smoke.sh path/to/caddy}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'kill "${pid:-}" "${up_pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT

free_port() {
	local p
	for _ in $(seq 1 50); do
		p=$((20000 + RANDOM % 20000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return
		fi
	done
	echo "no free port found" >&2
	return 1
}

site=$(free_port)
admin=$(free_port)
export APP_ACCESS_LISTEN=":$site" APP_ACCESS_ADMIN="localhost:$admin" APP_ACCESS_DATA="$work/data"
export HOME="$work" XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/share"

start() {
	local config=${1:-Caddyfile}
	(cd "$root" && exec "$bin" run --config "$config") >>"$work/caddy.log" 2>&1 &
	pid=$!
	for _ in $(seq 1 100); do
		if curl -fsS "http://localhost:$admin/app_access/health" >/dev/null 2>&1; then
			return 0
		fi
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "server did not become healthy; log:" >&2
	cat "$work/caddy.log" >&2
	return 1
}

stop() {
	"$bin" stop --address "localhost:$admin" >/dev/null 2>&1
	wait "$pid"
}

field() { grep -o "\"$1\":\"[^\"]*\"" | head -1 | cut -d'"' -f4; }
fail() { echo "smoke: $*" >&2; exit 1; }
cli() { "$bin" app-access --address "localhost:$admin" "$@"; }

# validate checks the config without starting the store.
(cd "$root" && "$bin" validate --config Caddyfile) >>"$work/caddy.log" 2>&1 || fail "caddy validate failed"
[ ! -e "$APP_ACCESS_DATA" ] || fail "caddy validate started the embedded store"

start
grep -q '"using the embedded store"' "$work/caddy.log" || fail "log does not say which store is in use"

# The management command against the running server.
created=$(cli apps create --name smoke --json)
app_id=$(printf '%s' "$created" | field id)
key=$(printf '%s' "$created" | field api_key)
secret=$(printf '%s' "$created" | field api_secret)
[ -n "$app_id" ] && [ -n "$secret" ] || fail "apps create printed $created"
cli licenses create --app "$app_id" --count 2 --minutes 60 --note shop --csv >"$work/codes.csv"
head -1 "$work/codes.csv" | grep -q '^code,minutes,lifetime,note$' || fail "CSV header: $(head -1 "$work/codes.csv")"
[ "$(wc -l <"$work/codes.csv")" -eq 3 ] || fail "CSV has $(wc -l <"$work/codes.csv") lines, want 3"
code=$(sed -n 2p "$work/codes.csv" | cut -d, -f1)
cli vars set --app "$app_id" motd "hello there" | grep 'hello there' >/dev/null || fail "vars set"
printf 'file contents' >"$work/notes.txt"
upload=$(cli files upload --app "$app_id" "$work/notes.txt")
printf '%s' "$upload" | grep -q 'notes.txt' || fail "files upload: $upload"
printf '%s' "$upload" | grep -q 'mime_type  *text/plain' || fail "files upload stored another media type: $upload"
# Without --address the command finds the server through APP_ACCESS_ADMIN.
"$bin" app-access apps list | grep smoke >/dev/null || fail "the command did not find the server through APP_ACCESS_ADMIN"

# A client signs a user up with a code and reads the context.
api=(-H "x-api-key: $key" -H "x-api-secret: $secret")
status=$(curl -s -o /dev/null -w '%{http_code}' "http://localhost:$site/app_context" "${api[@]}")
[ "$status" = 401 ] || fail "app_context without a user answered $status, want 401"
user_id=$(curl -fsS -X POST "http://localhost:$site/sign_up_with_license_code" "${api[@]}" -d "{\"code\":\"$code\"}" | field id)
[ -n "$user_id" ] || fail "sign-up with a code failed"
cli licenses list --app "$app_id" --code "$code" | grep "$user_id" >/dev/null || fail "licenses list --code does not show the user"
ctx=$(curl -fsS "http://localhost:$site/app_context" "${api[@]}" -H "x-api-license-code: $code")
printf '%s' "$ctx" | grep -q '"value":"hello there"' || fail "app_context: $ctx"
printf '%s' "$ctx" | grep -q '"name":"notes.txt"' || fail "app_context: $ctx"

cli users ban --app "$app_id" "$user_id" --reason smoke >/dev/null
status=$(curl -s -o /dev/null -w '%{http_code}' "http://localhost:$site/app_context" "${api[@]}" -H "x-api-license-code: $code")
[ "$status" = 403 ] || fail "a banned user's app_context answered $status, want 403"
cli users unban --app "$app_id" "$user_id" >/dev/null
status=$(curl -s -o /dev/null -w '%{http_code}' "http://localhost:$site/app_context" "${api[@]}" -H "x-api-license-code: $code")
[ "$status" = 200 ] || fail "an unbanned user's app_context answered $status, want 200"
if cli users show --app "$app_id" 00000000-0000-0000-0000-000000000000 >/dev/null 2>"$work/err"; then
	fail "showing an unknown user succeeded"
fi
grep -q 'The user does not exist.' "$work/err" || fail "error output: $(cat "$work/err")"
# The OpenAPI documents, and the metrics after this traffic.
curl -fsS "http://localhost:$site/openapi.json" >"$work/client.json" && grep -q '"openapi": "3.1.0"' "$work/client.json" ||
	fail "GET /openapi.json"
curl -fsS "http://localhost:$admin/app_access/openapi.json" >"$work/management.json" &&
	grep -q '"title": "App Access management API"' "$work/management.json" || fail "GET /app_access/openapi.json"
curl -fsS "http://localhost:$admin/metrics" >"$work/metrics"
grep -q '^app_access_requests_total{api="client",endpoint="POST /sign_up_with_license_code",outcome="ok"} 1$' "$work/metrics" ||
	fail "no sign-up in /metrics: $(grep app_access_requests "$work/metrics")"
grep -q '^app_access_sign_ups_total{method="license_code",result="ok"} 1$' "$work/metrics" || fail "no sign-up count in /metrics"

# The README's dashboard steps: an administrator (password from stdin) signs in at /admin/; a seller
# key issues codes at /admin/api/ and is refused elsewhere.
printf '%s\n' 'a long vortex-lamp password' | cli admins create --username smoke >/dev/null || fail "admins create"
status=$(curl -s -c "$work/jar" -o /dev/null -w '%{http_code}' -H 'Sec-Fetch-Site: same-origin' \
	--data 'username=smoke&password=a+long+vortex-lamp+password' "http://localhost:$site/admin/signin")
[ "$status" = 303 ] || fail "dashboard sign-in answered $status, want 303"
curl -fsS -b "$work/jar" "http://localhost:$site/admin/" | grep '<h1>Applications</h1>' >/dev/null || fail "the signed-in dashboard home"
seller=$(cli keys create --app "$app_id" --name smoke --scope licenses:create --json | field key)
[ -n "$seller" ] || fail "keys create printed no key"
status=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $seller" -d '{"count": 1, "minutes": 60}' "http://localhost:$site/admin/api/apps/$app_id/licenses")
[ "$status" = 201 ] || fail "a seller key creating codes answered $status, want 201"
status=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $seller" "http://localhost:$site/admin/api/apps/$app_id/users")
[ "$status" = 403 ] || fail "a licenses:create key listing users answered $status, want 403"
if grep -qF "$seller" "$work/caddy.log"; then fail "a seller key reached the server log"; fi
# A webhook endpoint on loopback: the shipped config refuses internal destinations (SSRF), and the
# delivery log says why; the endpoint's secret is printed once and never logged.
hook=$(cli webhooks create --app "$app_id" --url "http://127.0.0.1:9/hook" --event user.banned --json)
hook_id=$(echo "$hook" | field id)
hook_secret=$(echo "$hook" | field secret)
[ -n "$hook_id" ] && [[ "$hook_secret" == whsec_* ]] || fail "webhooks create: $hook"
cli users ban --app "$app_id" "$user_id" >/dev/null
cli users unban --app "$app_id" "$user_id" >/dev/null
for _ in $(seq 1 50); do
	cli webhooks deliveries --app "$app_id" "$hook_id" --json | grep allow_private_networks >/dev/null && break
	sleep 0.1
done
cli webhooks deliveries --app "$app_id" "$hook_id" --json | grep allow_private_networks >/dev/null ||
	fail "a loopback webhook was not refused: $(cli webhooks deliveries --app "$app_id" "$hook_id" --json)"
rotated=$(cli webhooks rotate-secret --app "$app_id" "$hook_id" --overlap 1h --json)
rotated_secret=$(echo "$rotated" | field secret)
[[ "$rotated_secret" == whsec_* ]] && [ "$rotated_secret" != "$hook_secret" ] || fail "webhooks rotate-secret: $rotated"
if grep -qF "$hook_secret" "$work/caddy.log"; then fail "a webhook secret reached the server log"; fi
if grep -qF "$rotated_secret" "$work/caddy.log"; then fail "a rotated webhook secret reached the server log"; fi
stop

start
shown=$(cli apps show "$app_id")
grep -q 'smoke' <<<"$shown" || fail "application lost across restart"
status=$(curl -s -o /dev/null -w '%{http_code}' "http://localhost:$site/app_context" "${api[@]}" -H "x-api-license-code: $code")
[ "$status" = 200 ] || fail "the user's app_context answered $status after a restart, want 200"

# A backup, an export, and the export imported into a new, empty store.
backed_up=$(cli backup "$work/backup.db")
grep -q 'backup.db' <<<"$backed_up" || fail "backup: $backed_up"
[ "$(stat -c %a "$work/backup.db")" = 600 ] || fail "the backup's mode is $(stat -c %a "$work/backup.db"), want 600"
cli export "$work/export.jsonl" 2>"$work/progress" || fail "export: $(cat "$work/progress")"
tail -1 "$work/export.jsonl" | grep -q '^{"type":"end"' || fail "the export has no end record"
grep -q 'records' "$work/progress" || fail "export printed no progress: $(cat "$work/progress")"
if cli import "$work/export.jsonl" >/dev/null 2>"$work/err"; then fail "an import into a non-empty store succeeded"; fi
grep -q 'not empty' "$work/err" || fail "import error output: $(cat "$work/err")"
stop
# The new store needs the old key: codes are found by an HMAC under a key derived from it.
APP_ACCESS_FILE_KEY=$(cat "$work/data/file.key")
export APP_ACCESS_FILE_KEY
APP_ACCESS_DATA="$work/data-imported"
start
cli import "$work/export.jsonl" >/dev/null 2>"$work/err" || fail "import into an empty store: $(cat "$work/err")"
status=$(curl -s -o /dev/null -w '%{http_code}' "http://localhost:$site/app_context" "${api[@]}" -H "x-api-license-code: $code")
[ "$status" = 200 ] || fail "the user's app_context answered $status after the import, want 200"
stop

# The guard in front of a real upstream (a `caddy respond` that logs the
# headers it gets), on the same data folder.
up=$(free_port)
guard=$(free_port)
"$bin" respond --listen "127.0.0.1:$up" --access-log hello >"$work/upstream.log" 2>&1 &
up_pid=$!
export APP_ACCESS_GUARD_LISTEN=":$guard" APP_ACCESS_UPSTREAM="127.0.0.1:$up"
start examples/guard/Caddyfile
body=$(curl -fsS "http://localhost:$guard/hello" "${api[@]}" -H "x-api-license-code: $code") || fail "a signed-in user did not pass the guard"
[ "$body" = hello ] || fail "the guard answered $body, want the upstream's hello"
status=$(curl -s -o /dev/null -w '%{http_code}' "http://localhost:$guard/hello" "${api[@]}")
[ "$status" = 401 ] || fail "the guard let a request without a user through: $status"
grep -q "$user_id" "$work/upstream.log" || fail "the upstream did not get the user's identity"
if grep -qF "$secret" "$work/upstream.log" || grep -qiF "$code" "$work/upstream.log"; then
	fail "a credential reached the upstream"
fi
stop
kill "$up_pid" 2>/dev/null || true
# The admin endpoint logs every request URI; no license code may be among them.
if grep -qiF "$code" "$work/caddy.log"; then fail "a license code reached the server log"; fi
echo "smoke: 1 passed, 0 failed"
