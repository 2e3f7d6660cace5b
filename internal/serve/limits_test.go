package serve

import (
	"bufio"
	"crypto/tls"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/paddock-sched/paddock/internal/core/event"
	"github.com/paddock-sched/paddock/internal/events"
)

func TestRESTLimitsDefaults(t *testing.T) {
	got := RESTLimits{}.resolved()
	want := RESTLimits{ReadTimeout: DefaultRESTReadTimeout, WriteTimeout: DefaultRESTWriteTimeout, IdleTimeout: DefaultRESTIdleTimeout, MaxConns: DefaultRESTMaxConns}
	if got != want {
		t.Errorf("defaults %+v, want %+v", got, want)
	}
	if DefaultRESTIdleTimeout > time.Minute {
		t.Errorf("idle keep-alive connections must close within 60 s, default is %v", DefaultRESTIdleTimeout)
	}
	if got := (RESTLimits{ReadTimeout: -1, WriteTimeout: -1, IdleTimeout: -1, MaxConns: -1}).resolved(); got != (RESTLimits{}) {
		t.Errorf("disabled limits %+v, want all 0", got)
	}
}

// getOn sends one keep-alive GET on conn and reads the response.
func getOn(t *testing.T, conn net.Conn, br *bufio.Reader, path string) *http.Response {
	t.Helper()
	if _, err := io.WriteString(conn, "GET "+path+" HTTP/1.1\r\nHost: paddock\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// closedByServer reports whether the server closes conn (rather than the
// generous client deadline passing first).
func closedByServer(t *testing.T, conn net.Conn, br *bufio.Reader) bool {
	t.Helper()
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	_, err := io.Copy(io.Discard, br)
	return !errors.Is(err, os.ErrDeadlineExceeded)
}

func dialREST(t *testing.T, s *Server) (net.Conn, *bufio.Reader) {
	t.Helper()
	conn, err := net.Dial("tcp", s.RESTAddr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn, bufio.NewReader(conn)
}

func TestRESTIdleConnectionClosed(t *testing.T) {
	s := start(t, Options{Config: testConfig, REST: RESTLimits{IdleTimeout: 100 * time.Millisecond}})
	conn, br := dialREST(t, s)
	if resp := getOn(t, conn, br, "/ws/v1/partitions"); resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d", resp.StatusCode)
	}
	if !closedByServer(t, conn, br) {
		t.Fatal("an idle keep-alive connection stayed open")
	}
}

func TestRESTSlowBodyCut(t *testing.T) {
	s := start(t, Options{Config: testConfig, REST: RESTLimits{ReadTimeout: 200 * time.Millisecond}})
	conn, br := dialREST(t, s)
	// headers promise a body that never comes
	if _, err := io.WriteString(conn, "POST /ws/v1/validate-conf HTTP/1.1\r\nHost: paddock\r\nContent-Length: 1000\r\n\r\npartitions:"); err != nil {
		t.Fatal(err)
	}
	if !closedByServer(t, conn, br) {
		t.Fatal("a slow body kept its connection")
	}
}

func TestRESTConnectionLimit(t *testing.T) {
	s := start(t, Options{Config: testConfig, REST: RESTLimits{MaxConns: 2}})
	c1, b1 := dialREST(t, s)
	c2, b2 := dialREST(t, s)
	getOn(t, c1, b1, "/ws/v1/partitions")
	getOn(t, c2, b2, "/ws/v1/partitions")

	// a third connection waits: its request is not served while both
	// slots are held
	c3, b3 := dialREST(t, s)
	if _, err := io.WriteString(c3, "GET /ws/v1/partitions HTTP/1.1\r\nHost: paddock\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	_ = c3.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	if _, err := b3.Peek(1); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("third connection served beyond the limit of 2 (err %v)", err)
	}
	// once a slot frees, it is served
	c1.Close()
	_ = c3.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(b3, nil)
	if err != nil {
		t.Fatalf("third connection after a slot freed: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("status %d", resp.StatusCode)
	}
}

// The event stream is exempt from the read and write timeouts: it keeps
// delivering after being quiet for longer than both, over HTTP/1.1 and
// over HTTP/2 (TLS), where a write deadline that passes resets the stream
// even when nothing is being written.
func TestEventStreamOutlivesRESTTimeouts(t *testing.T) {
	short := 100 * time.Millisecond
	limits := RESTLimits{ReadTimeout: short, WriteTimeout: short, IdleTimeout: short}
	// the stream's own bound on writing one record is short too
	perRecord := events.Options{WriteTimeout: short}
	t.Run("http1", func(t *testing.T) {
		s := start(t, Options{Config: testConfig, REST: limits, Events: perRecord})
		streamOutlives(t, s, http.DefaultClient, "http://"+s.RESTAddr(), short, "HTTP/1.1")
	})
	t.Run("http2", func(t *testing.T) {
		cert, pool := selfSigned(t)
		s := start(t, Options{Config: testConfig, REST: limits, Events: perRecord, TLS: &tls.Config{Certificates: []tls.Certificate{cert}}})
		hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}}
		streamOutlives(t, s, hc, "https://"+s.RESTAddr(), short, "HTTP/2.0")
	})
}

func streamOutlives(t *testing.T, s *Server, hc *http.Client, base string, short time.Duration, proto string) {
	resp, err := hc.Get(base + "/ws/v1/events/stream")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Proto != proto {
		t.Fatalf("protocol %s, want %s", resp.Proto, proto)
	}
	stream := bufio.NewReader(resp.Body)
	if line, err := stream.ReadString('\n'); err != nil || !strings.Contains(line, "InstanceUUID") {
		t.Fatalf("first line %q, %v", line, err)
	}
	time.Sleep(5 * short) // quiet for longer than every timeout
	s.Events().Append(event.Record{Type: event.Node, Change: event.Add, ObjectID: "late-node"})
	line, err := stream.ReadString('\n')
	if err != nil || !strings.Contains(line, "late-node") {
		t.Fatalf("after a quiet spell the stream gave %q, %v", line, err)
	}
}

// With -token-reads every REST request needs the token; the scheme is
// case-insensitive (RFC 7235).
func TestTokenForReadsSchemeCaseInsensitive(t *testing.T) {
	s := start(t, Options{Config: testConfig, Token: "s3cret", TokenForReads: true})
	for auth, want := range map[string]int{"": 401, "bearer s3cret": 200, "BEARER s3cret": 200, "Bearer nope": 401, "Basic s3cret": 401} {
		req, _ := http.NewRequest("GET", "http://"+s.RESTAddr()+"/ws/v1/partitions", nil)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%q: %d, want %d", auth, resp.StatusCode, want)
		}
	}
}
