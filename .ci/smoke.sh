#!/usr/bin/env bash
# Smoke test of the built binary with the top-level Caddyfile: start it on
# free ports with a temporary data folder, wait for the admin health route,
# create an application, stop it cleanly, start it again and check that the
# application is still there. Needs only bash and curl.
set -euo pipefail

bin=${1:?usage: smoke.sh path/to/caddy}
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'kill "${pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT

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
	(cd "$root" && exec "$bin" run --config Caddyfile) >>"$work/caddy.log" 2>&1 &
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

start
grep -q '"using the embedded store"' "$work/caddy.log" || { echo "log does not say which store is in use" >&2; exit 1; }
created=$(curl -fsS -X POST "http://localhost:$admin/app_access/apps" -d '{"name":"smoke"}')
app_id=$(printf '%s' "$created" | grep -o '"id":"[^"]*"' | head -1 | cut -d'"' -f4)
key=$(printf '%s' "$created" | grep -o '"api_key":"[^"]*"' | cut -d'"' -f4)
secret=$(printf '%s' "$created" | grep -o '"api_secret":"[^"]*"' | cut -d'"' -f4)
status=$(curl -s -o /dev/null -w '%{http_code}' "http://localhost:$site/app_context" -H "x-api-key: $key" -H "x-api-secret: $secret")
[ "$status" = 401 ] || { echo "app_context without a user answered $status, want 401" >&2; exit 1; }
stop

start
curl -fsS "http://localhost:$admin/app_access/apps/$app_id" | grep -q '"name":"smoke"' || { echo "application lost across restart" >&2; exit 1; }
stop
echo "smoke: 1 passed, 0 failed"
