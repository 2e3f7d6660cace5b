package main

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/paddock-sched/paddock/internal/cli"
	"github.com/paddock-sched/paddock/internal/logging"
	"github.com/paddock-sched/paddock/internal/resource"
	"github.com/paddock-sched/paddock/internal/rmproxy"
	"github.com/paddock-sched/paddock/internal/serve"
)

func init() {
	paddock.Register(cli.Command{Name: "serve", Summary: "run the scheduler: gRPC SI for remote RMs, the REST API, metrics and events", Run: runServe})
}

// exitServeFailed is serve's exit code when a listener or the shutdown
// fails.
const exitServeFailed = 4

// shutdownTimeout bounds the graceful shutdown.
const shutdownTimeout = 15 * time.Second

// serveStarted, when set (tests), is called with the running server.
var serveStarted func(*serve.Server)

// runServe runs the scheduler until SIGINT or SIGTERM.
func runServe(args []string, stdout, stderr io.Writer) int {
	fs := cli.FlagSet("paddock serve", stderr)
	restAddr := fs.String("rest-addr", serve.DefaultRESTAddr, "REST listen address (/ws/v1 API, metrics, events, /debug)")
	grpcAddr := fs.String("grpc-addr", serve.DefaultGRPCAddr, "gRPC listen address (SI Scheduler and Admin services)")
	cert := fs.String("tls-cert", "", "TLS certificate file (PEM); with -tls-key, REST and gRPC use TLS")
	key := fs.String("tls-key", "", "TLS private key file (PEM)")
	token := fs.String("token", "", "bearer token required on every gRPC call and the sensitive REST endpoints (visible in ps: prefer -token-file or $PADDOCK_TOKEN)")
	tokenFile := fs.String("token-file", "", "read the bearer token from this file (surrounding white space ignored)")
	tokenReads := fs.Bool("token-reads", false, "require the token on every REST request, reads included")
	uiDir := fs.String("ui", "", "serve a web UI build (e.g. the YuniKorn web UI's files) from this directory at / on the REST address")
	cfgFile := fs.String("config", "", "queues.yaml for resource managers that register without a configuration")
	logLevel := fs.String("log-level", "", "initial log level (debug, info, warn, error); RMs' log.level keys override it")
	siQueue := fs.Int("si-queue-limit", rmproxy.DefaultMaxQueued, "SI items (nodes, applications, asks, allocations, releases) queued for the scheduler before RM calls wait (negative: unbounded)")
	siWait := fs.Duration("si-queue-wait", rmproxy.DefaultQueueWait, "how long an RM call waits for room in a full SI queue before it fails (gRPC ResourceExhausted)")
	types := fs.Int("resource-types", resource.MaxTypes, "resource types (vcore and memory included) each resource manager may use, 2 to 16; each RM has its own")
	maxRMs := fs.Int("max-rms", rmproxy.DefaultMaxRMs, "resource managers registered at once; a new rmID past it is refused (negative: no limit)")
	rmExpiry := fs.Duration("rm-expiry", rmproxy.DefaultRMExpiry, "a remote RM's registration with no stream open, no nodes and no applications expires after this long, freeing its place under -max-rms (negative: never)")
	allowRMs := fs.String("allow-rms", "", "comma-separated rmIDs that may register; others are refused (empty: any)")
	var limits serve.RESTLimits
	fs.DurationVar(&limits.ReadTimeout, "rest-read-timeout", serve.DefaultRESTReadTimeout, "longest time to read one REST request, body included (negative: none)")
	fs.DurationVar(&limits.WriteTimeout, "rest-write-timeout", serve.DefaultRESTWriteTimeout, "longest time from a REST request's headers to the end of its response; the event stream is exempt (negative: none)")
	fs.DurationVar(&limits.IdleTimeout, "rest-idle-timeout", serve.DefaultRESTIdleTimeout, "close REST keep-alive connections idle this long (negative: never)")
	fs.IntVar(&limits.MaxConns, "rest-max-conns", serve.DefaultRESTMaxConns, "REST connections open at once; more wait to be accepted (negative: no limit)")
	cli.Describe(fs, "paddock serve [options]",
		"Runs the scheduler until SIGINT or SIGTERM. Remote resource managers connect over gRPC;\n"+
			"REST serves the YuniKorn /ws/v1 API (docs/rest.md), /ws/v1/metrics and the event APIs.")
	if code, stop := cli.ParseFlags(fs, args); stop {
		return code
	}
	if *types < 2 || *types > resource.MaxTypes {
		fmt.Fprintf(stderr, "serve: -resource-types %d: must be 2 to %d\n", *types, resource.MaxTypes)
		return exitUsage
	}
	if (*cert == "") != (*key == "") {
		fmt.Fprintln(stderr, "serve: -tls-cert and -tls-key go together")
		return exitUsage
	}
	logs := logging.NewText(stderr)
	if *logLevel != "" {
		if err := logs.Apply(map[string]string{"log.level": *logLevel}); err != nil {
			fmt.Fprintf(stderr, "serve: -log-level: %v\n", err)
			return exitUsage
		}
	}
	o := serve.Options{RESTAddr: *restAddr, GRPCAddr: *grpcAddr, TokenForReads: *tokenReads, Logs: logs, UIDir: *uiDir, REST: limits, SIQueueLimit: *siQueue, SIQueueWait: *siWait, ResourceTypes: *types, MaxRMs: *maxRMs, RMExpiry: *rmExpiry}
	if *allowRMs != "" {
		for _, id := range strings.Split(*allowRMs, ",") {
			o.AllowedRMs = append(o.AllowedRMs, strings.TrimSpace(id))
		}
	}
	tok, err := tokenOf(*token, *tokenFile, os.Getenv("PADDOCK_TOKEN"))
	if err != nil {
		fmt.Fprintf(stderr, "serve: %v\n", err)
		if errors.Is(err, errTokenUsage) {
			return exitUsage
		}
		return exitIOError
	}
	o.Token = tok
	if o.TokenForReads && o.Token == "" {
		fmt.Fprintln(stderr, "serve: -token-reads needs a token (-token-file, PADDOCK_TOKEN or -token)")
		return exitUsage
	}
	if *cert != "" {
		pair, err := tls.LoadX509KeyPair(*cert, *key)
		if err != nil {
			fmt.Fprintf(stderr, "serve: TLS: %v\n", err)
			return exitIOError
		}
		o.TLS = &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	}
	if *cfgFile != "" {
		text, err := serve.ReadConfig(*cfgFile)
		if err != nil {
			fmt.Fprintf(stderr, "serve: -config: %v\n", err)
			if errors.Is(err, os.ErrNotExist) || errors.Is(err, os.ErrPermission) {
				return exitIOError
			}
			return exitInvalidConfig
		}
		o.Config = text
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return serveUntil(ctx, o, stderr)
}

// serveUntil runs a server until ctx ends, then shuts it down.
func serveUntil(ctx context.Context, o serve.Options, stderr io.Writer) int {
	s, err := serve.Start(o)
	if err != nil {
		fmt.Fprintf(stderr, "serve: %v\n", err)
		return exitServeFailed
	}
	if serveStarted != nil {
		serveStarted(s)
	}
	code := exitOK
	select {
	case <-ctx.Done():
	case err := <-s.Err():
		fmt.Fprintf(stderr, "serve: REST server failed: %v\n", err)
		code = exitServeFailed
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := s.Shutdown(sctx); err != nil {
		fmt.Fprintf(stderr, "serve: shutdown: %v\n", err)
		code = exitServeFailed
	}
	return code
}

// errTokenUsage marks a token given twice.
var errTokenUsage = errors.New("-token and -token-file go alone")

// tokenOf picks the bearer token: -token, else the contents of -token-file
// (trimmed of surrounding white space; an empty file is an error), else
// $PADDOCK_TOKEN. -token and -token-file together are a usage error.
func tokenOf(flagToken, file, env string) (string, error) {
	switch {
	case flagToken != "" && file != "":
		return "", errTokenUsage
	case flagToken != "":
		return flagToken, nil
	case file != "":
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("-token-file: %w", err)
		}
		tok := strings.TrimSpace(string(b))
		if tok == "" {
			return "", fmt.Errorf("-token-file: %s is empty", file)
		}
		return tok, nil
	}
	return env, nil
}
