// Command ferretserver runs the embedded MongoDB-protocol test server in a
// process of its own, so that tests built with -race do not run FerretDB
// instrumented (several times slower) and share no CPU profile with it.
// It prints the server's URI on its first line of output, serves until its
// standard input closes (the test binary that started it exited) or it is
// signalled, then stops the server. Only package storetest starts it.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/appaccess/appaccess/accessapi/embeddedmongo"
)

func main() {
	dir := flag.String("dir", "", "data folder of the server")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "ferretserver: -dir is required")
		os.Exit(2)
	}
	s, err := embeddedmongo.Start(*dir, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, "ferretserver:", err)
		os.Exit(1)
	}
	fmt.Println(s.URI())
	done := make(chan struct{})
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		close(done)
	}()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	select {
	case <-done:
	case <-sig:
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = s.Stop(ctx)
}
