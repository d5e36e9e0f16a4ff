// Command caddy is Caddy with the standard modules and App Access.
package main

import (
	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/caddy/v2/modules/standard"

	_ "github.com/appaccess/appaccess/caddymodule"
)

func main() {
	caddycmd.Main()
}
