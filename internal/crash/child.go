package crash

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// child is one `paddock serve` process.
type child struct {
	cmd     *exec.Cmd
	serving chan struct{} // closed when it logs that it serves
	exited  chan struct{} // closed when it has exited
	err     error         // its exit status, once exited

	mu   sync.Mutex
	tail []string // its last log lines
}

// startChild starts `<command> serve` on the given addresses.
func startChild(command, env []string, restAddr, grpcAddr string) (*child, error) {
	args := append(append([]string{}, command[1:]...), "serve", "-rest-addr", restAddr, "-grpc-addr", grpcAddr,
		// reading every node with its allocations at 200,000 takes a while on a loaded machine
		"-rest-write-timeout", "10m")
	cmd := exec.Command(command[0], args...)
	cmd.Env = append(os.Environ(), env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = io.Discard
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := &child{cmd: cmd, serving: make(chan struct{}), exited: make(chan struct{})}
	go func() {
		sc := bufio.NewScanner(stderr)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		announced := false
		for sc.Scan() {
			line := sc.Text()
			c.mu.Lock()
			c.tail = append(c.tail, line)
			if len(c.tail) > 20 {
				c.tail = c.tail[1:]
			}
			c.mu.Unlock()
			if !announced && strings.Contains(line, "paddock serving") {
				announced = true
				close(c.serving)
			}
		}
		c.err = cmd.Wait()
		close(c.exited)
	}()
	return c, nil
}

// waitServing waits until the child serves, or fails with its last log
// lines when it exits or takes longer than timeout.
func (c *child) waitServing(timeout time.Duration) error {
	select {
	case <-c.serving:
		return nil
	case <-c.exited:
		return fmt.Errorf("paddock serve exited (%v) before serving:\n%s", c.err, c.lastLines())
	case <-time.After(timeout):
		return fmt.Errorf("paddock serve did not serve within %v:\n%s", timeout, c.lastLines())
	}
}

func (c *child) lastLines() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return strings.Join(c.tail, "\n")
}

// kill sends sig and waits for the child to exit.
func (c *child) kill(sig syscall.Signal) {
	_ = c.cmd.Process.Signal(sig)
	select {
	case <-c.exited:
	case <-time.After(30 * time.Second):
		_ = c.cmd.Process.Kill()
		<-c.exited
	}
}

// cpu is the CPU time (user and system) the child has used so far; 0
// where /proc is not available.
func (c *child) cpu() time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", c.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	// the fields after the command's closing parenthesis: utime and stime
	// are the 12th and 13th, in clock ticks (100 a second on Linux)
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0
	}
	var ticks int64
	for _, f := range fields[11:13] {
		n, err := strconv.ParseInt(f, 10, 64)
		if err != nil {
			return 0
		}
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}

// freeAddr is a loopback address with a port nothing listens on now; the
// two runs of the server both use it.
func freeAddr() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer l.Close()
	return l.Addr().String(), nil
}
