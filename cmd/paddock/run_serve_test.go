package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/logging"
	"github.com/paddock-sched/paddock/internal/serve"
)

func TestServeRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("partitions: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"extra"}, exitUsage, "unexpected argument"},
		{[]string{"-tls-cert", "c.pem"}, exitUsage, "go together"},
		{[]string{"-log-level", "loud"}, exitUsage, "invalid level"},
		{[]string{"-token-reads"}, exitUsage, "needs a token"},
		{[]string{"-config", filepath.Join(dir, "missing.yaml")}, exitIOError, "-config"},
		{[]string{"-config", bad}, exitInvalidConfig, "-config"},
		{[]string{"-tls-cert", filepath.Join(dir, "c.pem"), "-tls-key", filepath.Join(dir, "k.pem")}, exitIOError, "TLS"},
		{[]string{"-rest-addr", "256.0.0.1:1", "-grpc-addr", "127.0.0.1:0"}, exitServeFailed, "REST listen"},
		{[]string{"-rest-idle-timeout", "soon"}, exitUsage, "rest-idle-timeout"},
		{[]string{"-token", "a", "-token-file", bad}, exitUsage, "-token and -token-file go alone"},
		{[]string{"-token-file", filepath.Join(dir, "missing")}, exitIOError, "-token-file"},
		{[]string{"-resource-types", "1"}, exitUsage, "-resource-types 1: must be 2 to 16"},
		{[]string{"-resource-types", "17"}, exitUsage, "-resource-types 17"},
		{[]string{"-allow-rms", "prod,bad id", "-rest-addr", "127.0.0.1:0", "-grpc-addr", "127.0.0.1:0"}, exitServeFailed, `rmID "bad id" is not valid`},
	} {
		var out, errOut bytes.Buffer
		if code := run(append([]string{"serve"}, tc.args...), &out, &errOut); code != tc.code || !strings.Contains(errOut.String(), tc.msg) {
			t.Errorf("serve %q = %d (%s), want %d with %q", tc.args, code, errOut.String(), tc.code, tc.msg)
		}
	}
}

func TestServeUntilCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	started := make(chan *serve.Server, 1)
	serveStarted = func(s *serve.Server) { started <- s }
	defer func() { serveStarted = nil }()
	done := make(chan int, 1)
	var errOut bytes.Buffer
	go func() {
		done <- serveUntil(ctx, serve.Options{RESTAddr: "127.0.0.1:0", GRPCAddr: "127.0.0.1:0", Logs: logging.NewText(&bytes.Buffer{})}, &errOut)
	}()
	var s *serve.Server
	select {
	case s = <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("server did not start")
	}
	resp, err := http.Get("http://" + s.RESTAddr() + "/ws/v1/metrics")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("metrics: %v %v", resp, err)
	}
	resp.Body.Close()
	cancel()
	select {
	case code := <-done:
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, errOut.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop")
	}
	if _, err := http.Get("http://" + s.RESTAddr() + "/ws/v1/metrics"); err == nil {
		t.Fatal("REST still answers after shutdown")
	}
}

func TestTokenOf(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "token")
	if err := os.WriteFile(file, []byte("  s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty")
	if err := os.WriteFile(empty, []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		flag, file, env, want, err string
	}{
		{flag: "f", env: "e", want: "f"},
		{file: file, env: "e", want: "s3cret"},
		{env: "e", want: "e"},
		{want: ""},
		{flag: "f", file: file, err: "go alone"},
		{file: empty, err: "is empty"},
		{file: filepath.Join(dir, "missing"), err: "no such file"},
	} {
		got, err := tokenOf(tc.flag, tc.file, tc.env)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("tokenOf(%q, %q, %q) = %q, %v; want an error with %q", tc.flag, tc.file, tc.env, got, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("tokenOf(%q, %q, %q) = %q, %v; want %q", tc.flag, tc.file, tc.env, got, err, tc.want)
		}
	}
}
