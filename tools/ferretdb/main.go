// Command ferretdb runs FerretDB 1.24 embedded, on its PostgreSQL or SQLite
// handler, as the MongoDB-wire test server for machines where mongod cannot
// be downloaded.
//
// It is a test tool, not part of leasecron: the embeddable package keeps
// telemetry off and starts no debug server, and building it through this
// module avoids the version-file panic of a plain `go install`.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen-addr", "127.0.0.1:27017", "TCP address to listen on (loopback only)")
	handler := flag.String("handler", "sqlite", "backend: sqlite or postgresql")
	dir := flag.String("sqlite-dir", "", "directory that holds the SQLite databases (sqlite handler)")
	pgURL := flag.String("postgresql-url", "", "PostgreSQL connection URL (postgresql handler)")
	lifeline := flag.Bool("stop-on-stdin-close", false, "stop when standard input closes (the parent died)")
	flag.Parse()

	config := &ferretdb.Config{
		Listener: ferretdb.ListenerConfig{TCP: *listen},
		Logger:   slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		Handler:  *handler,
	}
	switch *handler {
	case "sqlite":
		if *dir == "" {
			fail(2, "--sqlite-dir is required with --handler=sqlite")
		}
		config.SQLiteURL = "file:" + *dir + "/"
	case "postgresql":
		if *pgURL == "" {
			fail(2, "--postgresql-url is required with --handler=postgresql")
		}
		config.PostgreSQLURL = *pgURL
	default:
		fail(2, fmt.Sprintf("--handler must be sqlite or postgresql, not %q", *handler))
	}

	f, err := ferretdb.New(config)
	if err != nil {
		fail(1, err.Error())
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if *lifeline {
		// A parent killed without a word (SIGKILL) cannot stop it, but its end of the pipe closes.
		go func() {
			_, _ = io.Copy(io.Discard, os.Stdin)
			stop()
		}()
	}

	go dumpStacksOnSignal()

	// The parent reads this line to learn the bound port (listen-addr may use port 0).
	fmt.Println(f.MongoDBURI())

	if err := f.Run(ctx); err != nil {
		fail(1, err.Error())
	}
}

// dumpStacksOnSignal writes every goroutine's stack to ferretdb-stacks-<pid>.txt in the temp directory on
// each SIGUSR1, and goes on serving: how a stalled server is read without killing it (SIGQUIT's dump ends
// the process, and the parent keeps only the tail of its output).
func dumpStacksOnSignal() {
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGUSR1)
	for range signals {
		path := filepath.Join(os.TempDir(), fmt.Sprintf("ferretdb-stacks-%d.txt", os.Getpid()))
		f, err := os.Create(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "ferretdb: stacks not written:", err)
			continue
		}
		_ = pprof.Lookup("goroutine").WriteTo(f, 2)
		_ = f.Close()
		fmt.Fprintln(os.Stderr, "ferretdb: goroutine stacks written to", path)
	}
}

func fail(code int, message string) {
	fmt.Fprintln(os.Stderr, "ferretdb:", message)
	os.Exit(code)
}
