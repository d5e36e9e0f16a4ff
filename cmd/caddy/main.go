// Command caddy is Caddy with the standard modules and App Access.
package main

import (
	"os"
	"runtime/debug"

	caddycmd "github.com/caddyserver/caddy/v2/cmd"

	_ "github.com/caddyserver/caddy/v2/modules/standard"

	_ "github.com/appaccess/appaccess/caddymodule"
)

// defaultGCPercent is the garbage collector's target unless GOGC is set.
// App Access's heap is mostly long-lived cache entries (about 575 bytes for
// each active user), which Go's default of 100 lets double between
// collections; 50 holds the heap at one and a half times its live size,
// for a few percent more CPU spent collecting. Prometheus lowers its
// default the same way. See docs/performance.md, "Caches and memory".
const defaultGCPercent = 50

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(defaultGCPercent)
	}
	caddycmd.Main()
}
