package serve

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"math/big"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/client"
)

func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "paddock-test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:    x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}

// TestTLSAndDefaultConfig serves both protocols over TLS with a token, and
// gives an RM that registers without a configuration the server's.
func TestTLSAndDefaultConfig(t *testing.T) {
	cert, pool := selfSigned(t)
	s := start(t, Options{TLS: &tls.Config{Certificates: []tls.Certificate{cert}}, Token: token,
		Config: "partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: \"*\"\n        queues:\n          - name: only-in-file\n"})

	// REST over TLS
	hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}, Timeout: 10 * time.Second}
	req, _ := http.NewRequest("GET", "https://"+s.RESTAddr()+"/ws/v1/events/batch", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := hc.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("REST over TLS: %v %v", resp, err)
	}
	resp.Body.Close()
	if resp, err := http.Get("http://" + s.RESTAddr() + "/ws/v1/events/batch"); err == nil && resp.StatusCode == 200 {
		t.Fatal("plain HTTP answered on the TLS port")
	}

	// gRPC over TLS
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, s.GRPCAddr(), client.Options{TLSConfig: &tls.Config{RootCAs: pool}, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rec := newRecorder()
	must(t, c.Register(ctx, &si.RegisterResourceManagerRequest{RmID: "rm"}, rec))
	must(t, c.UpdateNode(nodes("rm", "n1")))
	rec.await(t, "node", func() bool { return rec.accNodes["n1"] })
	must(t, c.UpdateApplication(app("rm", "app1", "root.only-in-file")))
	rec.await(t, "app placed in the file's queue", func() bool { return rec.accApps["app1"] })
	must(t, c.UpdateAllocation(asks("rm", "app1", "k1")))
	rec.await(t, "allocation over TLS", func() bool { return rec.allocs["k1"] != nil })

	// an RM with a configuration of its own keeps it
	c2, err := client.Dial(ctx, s.GRPCAddr(), client.Options{TLSConfig: &tls.Config{RootCAs: pool}, Token: token})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	rec2 := newRecorder()
	must(t, c2.Register(ctx, &si.RegisterResourceManagerRequest{RmID: "rm2", Config: testConfig}, rec2))
	must(t, c2.UpdateApplication(app("rm2", "app2", "root.only-in-file")))
	must(t, c2.UpdateApplication(app("rm2", "app3", "root.a")))
	rec2.await(t, "app3 accepted", func() bool { return rec2.accApps["app3"] })
	rec2.mu.Lock()
	defer rec2.mu.Unlock()
	if rec2.accApps["app2"] {
		t.Fatal("rm2 got the server's configuration instead of its own")
	}
}

// TestTokenScope: by default the token guards gRPC and the sensitive REST
// endpoints, and reads stay open for the web UI.
func TestTokenScope(t *testing.T) {
	s := start(t, Options{Token: token})
	get(t, s, "/ws/v1/partitions", "", 200)
	get(t, s, "/ws/v1/metrics", "", 200)
	get(t, s, "/ws/v1/config", "", http.StatusUnauthorized)
	get(t, s, "/debug/stack", "", http.StatusUnauthorized)
	get(t, s, "/debug/stack", token, 200)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, s.GRPCAddr(), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Register(ctx, &si.RegisterResourceManagerRequest{RmID: "rm"}, newRecorder()); err == nil {
		t.Fatal("gRPC without the token accepted")
	}
}
