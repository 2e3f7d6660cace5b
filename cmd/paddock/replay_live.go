package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/logging"
	"github.com/paddock-sched/paddock/internal/replay"
	"github.com/paddock-sched/paddock/internal/rmproxy"
	"github.com/paddock-sched/paddock/internal/serve"
)

// DefaultLiveSpeed paces a served replay: a trace minute a wall second,
// the bundled 93-minute window in about a minute and a half, slow enough
// to watch the web UI move and fast enough not to wait long.
const DefaultLiveSpeed = 60

// liveFlags are replay's options for serving its state while it runs.
type liveFlags struct {
	addr, ui *string
	speed    *float64

	srv  *serve.Server
	ctx  context.Context
	stop context.CancelFunc
}

func addLiveFlags(fs *flag.FlagSet) *liveFlags {
	return &liveFlags{
		addr: fs.String("serve", "", "serve the replay's state on this REST address while it runs (e.g. :9080): the /ws/v1 API, /ws/v1/metrics, and the web UI of -ui; keeps serving after the end until Ctrl-C"),
		ui:   fs.String("ui", "", "with -serve: a web UI build (e.g. the YuniKorn web UI's files) to serve at /"),
		speed: fs.Float64("speed", 0, fmt.Sprintf("trace time per wall time: 60 replays a trace minute a second (default: %d with -serve, "+
			"as fast as possible without; 0 with -serve: as fast as possible)", DefaultLiveSpeed)),
	}
}

// check says on stderr what is wrong with the flags, and returns the
// exit code.
func (l *liveFlags) check(stderr io.Writer) int {
	if *l.speed < 0 {
		fmt.Fprintf(stderr, "paddock replay: -speed %g: must be 0 (as fast as possible) or more\n", *l.speed)
		return exitUsage
	}
	if *l.addr == "" && *l.ui != "" {
		fmt.Fprintln(stderr, "paddock replay: -ui needs -serve")
		return exitUsage
	}
	return exitOK
}

// attach makes opts, with -serve, start a server on the replay's scheduler
// service. It returns what stops the server.
func (l *liveFlags) attach(fs *flag.FlagSet, opts *replay.Options, stdout, stderr io.Writer) func() {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *l.addr == "" {
		opts.Speed = *l.speed
		return func() {}
	}
	opts.Speed = *l.speed
	if !set["speed"] {
		opts.Speed = DefaultLiveSpeed
	}
	l.ctx, l.stop = signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	opts.Context = l.ctx
	logs := logging.NewText(stderr)
	_ = logs.Apply(map[string]string{"log.level": "warn"})
	opts.Live = func(svc *rmproxy.Service, clk clock.Clock) error {
		srv, err := serve.Start(serve.Options{Service: svc, Clock: clk, RESTAddr: *l.addr, UIDir: *l.ui, Logs: logs})
		if err != nil {
			return err
		}
		l.srv = srv
		speed := "as fast as possible"
		if opts.Speed > 0 {
			speed = fmt.Sprintf("at %gx real time", opts.Speed)
		}
		ui := ""
		if *l.ui != "" {
			ui = ", web UI /"
		}
		fmt.Fprintf(stdout, "serving        http://%s/ws/v1/partitions (metrics /ws/v1/metrics%s), replaying %s; Ctrl-C stops\n",
			srv.RESTAddr(), ui, speed)
		if serveStarted != nil {
			serveStarted(srv)
		}
		return nil
	}
	return l.shutdown
}

// interrupted reports whether the replay stopped for Ctrl-C.
func (l *liveFlags) interrupted(err error) bool {
	return l.ctx != nil && errors.Is(err, context.Canceled)
}

// wait keeps serving the replay's final state until Ctrl-C.
func (l *liveFlags) wait(stdout, stderr io.Writer) int {
	if l.srv == nil {
		return exitOK
	}
	fmt.Fprintf(stdout, "replay done; still serving http://%s until Ctrl-C\n", l.srv.RESTAddr())
	select {
	case <-l.ctx.Done():
	case err := <-l.srv.Err():
		fmt.Fprintf(stderr, "paddock replay: REST server failed: %v\n", err)
		return exitServeFailed
	}
	return exitOK
}

// shutdown stops the server (and the replay's service with it).
func (l *liveFlags) shutdown() {
	if l.stop != nil {
		l.stop()
	}
	if l.srv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	_ = l.srv.Shutdown(ctx)
}
