package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
)

// apiProxy stands between one scheduler replica and kube-apiserver: an
// HTTPS reverse proxy (the API server's own serving certificate; upstream
// the admin client certificate, or in chart mode the replica's own
// ServiceAccount token, which the proxy passes on) that counts the replica's writes by
// method and resource, and can cut the replica off (partition): while cut,
// every request hangs until the replica gives up on it, and the requests
// in flight (watches) are ended.
type apiProxy struct {
	srv  *http.Server
	addr string
	rp   *httputil.ReverseProxy
	// lease forwards the Lease's requests on connections of their own,
	// as the replica makes them (deploy/ha's lease client): without a
	// proxy they would not wait behind the shim's binds and events for a
	// stream or a new connection to kube-apiserver
	lease *httputil.ReverseProxy

	mu     sync.Mutex
	cut    bool
	healed chan struct{}
	flight map[*context.CancelFunc]struct{}
	writes map[string]int // "POST events", "PUT leases", ...
}

// startAPIProxy starts a proxy on port. With asAdmin the proxy presents
// the admin client certificate upstream (the replica's process-mode
// credentials); without it the API server authenticates the replica's own
// bearer token, which the proxy forwards, so RBAC applies to it.
func startAPIProxy(c *cluster, port string, asAdmin bool) (*apiProxy, error) {
	target, err := url.Parse(c.apiServer())
	if err != nil {
		return nil, err
	}
	ca := x509.NewCertPool()
	ca.AppendCertsFromPEM(c.pki.caPEM)
	client, err := tls.X509KeyPair(c.pki.adminPEM, c.pki.aKey)
	if err != nil {
		return nil, err
	}
	serving, err := tls.LoadX509KeyPair(c.pki.serving, c.pki.servingKey)
	if err != nil {
		return nil, err
	}
	p := &apiProxy{addr: "127.0.0.1:" + port, flight: map[*context.CancelFunc]struct{}{}, writes: map[string]int{}}
	upstream := func() *httputil.ReverseProxy {
		rp := httputil.NewSingleHostReverseProxy(target)
		tc := &tls.Config{RootCAs: ca}
		if asAdmin {
			tc.Certificates = []tls.Certificate{client}
		}
		rp.Transport = &http.Transport{
			TLSClientConfig:   tc,
			ForceAttemptHTTP2: true, MaxIdleConnsPerHost: 100,
		}
		rp.FlushInterval = -1 // watches stream
		rp.ErrorLog = log.New(io.Discard, "", 0)
		return rp
	}
	p.rp, p.lease = upstream(), upstream()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		return nil, err
	}
	p.srv = &http.Server{Handler: p, TLSConfig: &tls.Config{Certificates: []tls.Certificate{serving}, NextProtos: []string{"h2", "http/1.1"}}}
	go func() { _ = p.srv.ServeTLS(ln, "", "") }()
	return p, nil
}

func (p *apiProxy) url() string { return "https://" + p.addr }

func (p *apiProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	for p.cut {
		healed := p.healed
		p.mu.Unlock()
		select {
		case <-healed:
		case <-r.Context().Done():
			return
		}
		p.mu.Lock()
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		p.writes[r.Method+" "+resourceOf(r.URL.Path)]++
	}
	ctx, cancel := context.WithCancel(r.Context())
	p.flight[&cancel] = struct{}{}
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.flight, &cancel)
		p.mu.Unlock()
		cancel()
	}()
	rp := p.rp
	if resourceOf(r.URL.Path) == "leases" {
		rp = p.lease
	}
	rp.ServeHTTP(w, r.WithContext(ctx))
}

// resourceOf names the resource of an API path, with its subresource:
// "pods/binding", "events", "leases", "nodes/status".
func resourceOf(path string) string {
	f := strings.Split(strings.Trim(path, "/"), "/")
	for i, seg := range f {
		if seg == "namespaces" && i+2 < len(f) {
			f = f[i+2:]
			break
		}
		if i > 0 && (f[i-1] == "api" || i > 1 && f[i-2] == "apis") && strings.HasPrefix(seg, "v") {
			f = f[i+1:]
			if len(f) > 0 && f[0] == "namespaces" && len(f) > 2 {
				f = f[2:]
			}
			break
		}
	}
	switch {
	case len(f) >= 3:
		return f[0] + "/" + f[2]
	case len(f) >= 1:
		return f[0]
	}
	return path
}

// partition cuts (on) or heals the replica's connection.
func (p *apiProxy) partition(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if on == p.cut {
		return
	}
	p.cut = on
	if on {
		p.healed = make(chan struct{})
		for c := range p.flight {
			(*c)()
		}
		return
	}
	close(p.healed)
}

// takeWrites returns the writes counted since the last call.
func (p *apiProxy) takeWrites() map[string]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	w := p.writes
	p.writes = map[string]int{}
	return w
}

func (p *apiProxy) close() {
	p.partition(false)
	_ = p.srv.Close()
}

// formatWrites prints a write count as "POST events 12, PUT leases 3".
func formatWrites(w map[string]int) string {
	var parts []string
	for k, n := range w {
		parts = append(parts, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// tcpForward forwards the connections to one address to another, which
// can change: the harness's REST checks reach the current leader on the
// address they always use.
type tcpForward struct {
	ln     net.Listener
	mu     sync.Mutex
	target string
}

func startForward(listen, target string) (*tcpForward, error) {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, err
	}
	f := &tcpForward{ln: ln, target: target}
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			go f.pipe(in)
		}
	}()
	return f, nil
}

func (f *tcpForward) set(target string) {
	f.mu.Lock()
	f.target = target
	f.mu.Unlock()
}

func (f *tcpForward) pipe(in net.Conn) {
	f.mu.Lock()
	target := f.target
	f.mu.Unlock()
	out, err := net.Dial("tcp", target)
	if err != nil {
		in.Close()
		return
	}
	go func() { _, _ = io.Copy(out, in); out.Close() }()
	_, _ = io.Copy(in, out)
	in.Close()
}

func (f *tcpForward) close() { _ = f.ln.Close() }

// writeKubeconfig writes a kubeconfig for server with the harness's
// credentials.
func (c *cluster) writeKubeconfig(name, server string) (string, error) {
	path := c.work + "/" + name + ".kubeconfig"
	return path, os.WriteFile(path, []byte(c.pki.kubeconfigYAML(server)), 0o600)
}
