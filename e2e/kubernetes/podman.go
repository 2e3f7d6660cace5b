package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// container is a program the harness runs with podman (chart mode): the
// proc of it is the attached `podman run`, whose output is the program's,
// while stop, kill and the /proc figures act on the container itself.
type container struct {
	name string // podman's container name
	conf string // CONTAINERS_CONF
	pid  int    // the program's host process id, once known
	// grace is the pod's terminationGracePeriodSeconds, which a stop
	// gives the program at least
	grace time.Duration
}

// podmanConf writes the containers.conf the harness's podman runs with
// (no default ulimits, which this kernel refuses) unless CONTAINERS_CONF
// names one, and returns its path.
func podmanConf(dir string) (string, error) {
	if c := os.Getenv("CONTAINERS_CONF"); c != "" {
		return c, nil
	}
	conf := filepath.Join(dir, "containers.conf")
	return conf, os.WriteFile(conf, []byte("[containers]\ndefault_ulimits = []\n"), 0o644)
}

// podmanCmd runs a podman command to its end and returns its output.
func podmanCmd(ctx context.Context, conf string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "podman", args...)
	cmd.Env = append(os.Environ(), "CONTAINERS_CONF="+conf)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("podman %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return strings.TrimSpace(string(out)), nil
}

// hostPID is the host process id of the container's program, waiting
// until podman knows it.
func (k *container) hostPID() int {
	if k.pid > 0 {
		return k.pid
	}
	for i := 0; i < 50; i++ {
		out, err := podmanCmd(context.Background(), k.conf, "inspect", "--format", "{{.State.Pid}}", k.name)
		if pid, _ := strconv.Atoi(out); err == nil && pid > 0 {
			k.pid = pid
			return pid
		}
		time.Sleep(100 * time.Millisecond)
	}
	return 0
}

// stop is the container runtime's stop: SIGTERM, then SIGKILL after the
// longer of grace and the pod's terminationGracePeriodSeconds.
func (k *container) stop(grace time.Duration) error {
	grace = max(grace, k.grace)
	secs := strconv.Itoa(int((grace + time.Second - 1) / time.Second))
	_, err := podmanCmd(context.Background(), k.conf, "stop", "--ignore", "-t", secs, k.name)
	return err
}

// kill ends the container at once, as a crash would.
func (k *container) kill() error {
	_, err := podmanCmd(context.Background(), k.conf, "kill", "-s", "KILL", k.name)
	return err
}

// signal sends sig to the container's program from the host, as the
// runtime does for a stop (SIGTERM) or a kill, without podman's start-up
// time in between.
func (k *container) signal(sig syscall.Signal) error {
	pid := k.hostPID()
	if pid <= 0 {
		return fmt.Errorf("container %s: no host process", k.name)
	}
	return syscall.Kill(pid, sig)
}
