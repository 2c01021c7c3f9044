// Command ferretdb runs FerretDB 1.24 embedded, on its SQLite handler, as the
// MongoDB-wire test server for machines where mongod cannot be downloaded.
//
// It is a test tool, not part of leasecron: the embeddable package keeps
// telemetry off and starts no debug server, and building it through this
// module avoids the version-file panic of a plain `go install`.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen-addr", "127.0.0.1:27017", "TCP address to listen on (loopback only)")
	dir := flag.String("sqlite-dir", "", "directory that holds the SQLite databases (required)")
	flag.Parse()

	if *dir == "" {
		fmt.Fprintln(os.Stderr, "ferretdb: --sqlite-dir is required")
		os.Exit(2)
	}

	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))

	f, err := ferretdb.New(&ferretdb.Config{
		Listener:  ferretdb.ListenerConfig{TCP: *listen},
		Logger:    logger,
		Handler:   "sqlite",
		SQLiteURL: "file:" + *dir + "/",
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "ferretdb:", err)
		os.Exit(1)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	// The parent reads this line to learn the bound port (listen-addr may use port 0).
	fmt.Println(f.MongoDBURI())

	if err := f.Run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "ferretdb:", err)
		os.Exit(1)
	}
}
