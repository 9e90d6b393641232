package remote_test

import (
	"context"
	"log"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"syscall"

	"github.com/intentsrv/intentsrv/examples/helpdesk"
	"github.com/intentsrv/intentsrv/intent"
	"github.com/intentsrv/intentsrv/operations"
	"github.com/intentsrv/intentsrv/remote"
)

// Serving a registry over HTTP from Go: keys from the environment, the
// listener first (so /readyz says "not ready" while the registry loads),
// then the intent server, until SIGINT or SIGTERM.
func Example() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	keys := &remote.Keys{}
	if err := keys.LoadKeysEnv(os.Environ()); err != nil {
		log.Fatal(err)
	}
	addr := "127.0.0.1:8080"
	if err := remote.CheckBind(addr, keys, false); err != nil {
		log.Fatal(err)
	}
	srv, err := remote.New(remote.Config{Keys: keys, RatePerSecond: 20, MaxConcurrentCalls: 16, Logger: slog.Default()})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()

	reg := operations.NewRegistry()
	if err := helpdesk.New().Register(reg); err != nil {
		log.Fatal(err)
	}
	is, err := intent.New(reg, intent.Options{})
	if err != nil {
		log.Fatal(err)
	}
	srv.SetIntent(is)
	if err := <-served; err != nil {
		log.Print(err)
	}
}
