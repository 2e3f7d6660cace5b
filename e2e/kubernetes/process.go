package main

import (
	"bufio"
	"bytes"
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

// proc is one started program: its output goes to a log file in the
// working directory, and it runs in a process group of its own so that a
// stop reaches every process it started.
type proc struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
	err  error
	// ctr is set when the program runs in a podman container (chart mode)
	ctr *container
}

func startProc(dir, name, bin string, env []string, args ...string) (*proc, error) {
	logName := filepath.Join(dir, "logs", name+".log")
	if err := os.MkdirAll(filepath.Dir(logName), 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(logName, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	fmt.Fprintf(f, "=== %s %s %s\n", time.Now().Format(time.RFC3339Nano), bin, strings.Join(args, " "))
	if err := cmd.Start(); err != nil {
		f.Close()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &proc{name: name, cmd: cmd, log: logName, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		f.Close()
		close(p.done)
	}()
	return p, nil
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM to the program's process group and SIGKILL after
// grace.
func (p *proc) stop(grace time.Duration) {
	if p == nil || p.exited() {
		return
	}
	if p.ctr != nil {
		_ = p.ctr.stop(grace)
		<-p.done
		return
	}
	pid := p.cmd.Process.Pid
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = syscall.Kill(-pid, syscall.SIGKILL)
		<-p.done
	}
}

// term sends SIGTERM to the program (its process group, or the
// container's main process), as a rolling update does, and returns.
func (p *proc) term() {
	if p == nil || p.exited() {
		return
	}
	if p.ctr != nil {
		_ = p.ctr.signal(syscall.SIGTERM)
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
}

// crash sends SIGKILL to the program (its process group, or the
// container's main process, from the host) and waits until it has ended.
func (p *proc) crash() {
	if p == nil || p.exited() {
		return
	}
	if p.ctr == nil || p.ctr.signal(syscall.SIGKILL) != nil {
		p.kill()
		return
	}
	<-p.done
}

// kill ends the program at once, as a crash would.
func (p *proc) kill() {
	if p == nil || p.exited() {
		return
	}
	if p.ctr != nil {
		_ = p.ctr.kill()
		<-p.done
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
}

// usage is a process's CPU time and peak resident set size, from /proc.
type usage struct {
	cpu     time.Duration
	peakRSS int64 // bytes
}

// clockTick is USER_HZ, 100 on every Linux the harness runs on.
const clockTick = 100

// pid is the program's process id: the container's program in chart mode.
func (p *proc) pid() int {
	if p.ctr != nil {
		return p.ctr.hostPID()
	}
	return p.cmd.Process.Pid
}

func (p *proc) usage() (usage, error) {
	pid := p.pid()
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return usage{}, err
	}
	// the command name is in parentheses and may hold spaces
	rest := stat[bytes.LastIndexByte(stat, ')')+2:]
	f := strings.Fields(string(rest))
	// fields 14 and 15 (utime, stime) of proc(5), counted from the state (3)
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return usage{}, fmt.Errorf("/proc/%d/stat: %q", pid, stat)
	}
	u := usage{cpu: time.Duration(ut+st) * time.Second / clockTick}
	status, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return usage{}, err
	}
	defer status.Close()
	sc := bufio.NewScanner(status)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return usage{}, err
			}
			u.peakRSS = kb * 1024
		}
	}
	return u, sc.Err()
}

// sockets is the number of sockets the process holds open (0 once it
// has exited).
func (p *proc) sockets() int {
	pid := p.pid()
	fds, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid))
	if err != nil {
		return 0
	}
	n := 0
	for _, fd := range fds {
		if l, err := os.Readlink(fmt.Sprintf("/proc/%d/fd/%s", pid, fd.Name())); err == nil && strings.HasPrefix(l, "socket:") {
			n++
		}
	}
	return n
}

// countLog counts the occurrences of sub in a program's log.
func (c *cluster) countLog(name, sub string) (int, error) {
	b, err := os.ReadFile(filepath.Join(c.work, "logs", name+".log"))
	if err != nil {
		return 0, err
	}
	return bytes.Count(b, []byte(sub)), nil
}

// waitFor polls cond every interval until it holds, the context ends or
// timeout passes; the last error of cond is in the returned one.
func waitFor(ctx context.Context, what string, timeout, interval time.Duration, cond func() (bool, error)) error {
	deadline := time.Now().Add(timeout)
	var last error
	for {
		ok, err := cond()
		if ok {
			return nil
		}
		if err != nil {
			last = err
		}
		if time.Now().After(deadline) {
			if last != nil {
				return fmt.Errorf("%s: not within %s: %w", what, timeout, last)
			}
			return fmt.Errorf("%s: not within %s", what, timeout)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: %w", what, ctx.Err())
		case <-time.After(interval):
		}
	}
}
