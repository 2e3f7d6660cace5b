package client

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"github.com/paddock-sched/paddock/callback"
	"math/big"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/internal/clock"
	"github.com/paddock-sched/paddock/internal/grpcserver"
	"github.com/paddock-sched/paddock/internal/rmproxy"
)

const cfg = `
partitions:
  - name: default
    queues:
      - name: root
        submitacl: "*"
`

// nodeRecorder records accepted nodes; everything else is ignored.
type nodeRecorder struct {
	callback.Nop // predicates pass; events are dropped
	mu           sync.Mutex
	nodes        []string
}

func (r *nodeRecorder) UpdateAllocation(*si.AllocationResponse) error   { return nil }
func (r *nodeRecorder) UpdateApplication(*si.ApplicationResponse) error { return nil }
func (r *nodeRecorder) UpdateNode(resp *si.NodeResponse) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, n := range resp.Accepted {
		r.nodes = append(r.nodes, n.NodeID)
	}
	return nil
}

func (r *nodeRecorder) accepted() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.nodes...)
}

func serve(t *testing.T, opts grpcserver.Options) (*grpcserver.Server, string) {
	t.Helper()
	svc := rmproxy.New(clock.Real{})
	t.Cleanup(svc.Stop)
	srv := grpcserver.New(svc, opts)
	addr, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Stop)
	return srv, addr.String()
}

func bounded(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func state(srv *grpcserver.Server, rmID string) grpcserver.RMStatus {
	for _, st := range srv.RMs() {
		if st.RmID == rmID {
			return st
		}
	}
	return grpcserver.RMStatus{}
}

func node(rmID, id string) *si.NodeRequest {
	return &si.NodeRequest{RmID: rmID, Nodes: []*si.NodeInfo{{NodeID: id, Action: si.NodeInfo_CREATE,
		SchedulableResource: &si.Resource{Resources: map[string]*si.Quantity{"vcore": {Value: 1000}}}}}}
}

// TestLocalValidation checks that bad calls fail in the client, without
// sending anything that would end a stream.
func TestLocalValidation(t *testing.T) {
	srv, addr := serve(t, grpcserver.Options{})
	c, err := Dial(bounded(t, 10*time.Second), addr, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.Done() != nil || c.Err() != nil {
		t.Error("Done/Err set before Register")
	}
	if err := c.UpdateNode(node("rm1", "n0")); err == nil || !strings.Contains(err.Error(), "Register first") {
		t.Errorf("update before Register: %v", err)
	}
	rec := &nodeRecorder{}
	ctx := bounded(t, 10*time.Second)
	for name, err := range map[string]error{
		"nil request":  c.Register(ctx, nil, rec),
		"empty rmID":   c.Register(ctx, &si.RegisterResourceManagerRequest{}, rec),
		"nil callback": c.Register(ctx, &si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, nil),
	} {
		if err == nil {
			t.Errorf("Register with %s succeeded", name)
		}
	}
	if len(srv.RMs()) != 0 {
		t.Fatalf("bad registrations reached the server: %+v", srv.RMs())
	}
	if err := c.Register(ctx, &si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, rec); err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"nil node request":       c.UpdateNode(nil),
		"nil application":        c.UpdateApplication(nil),
		"nil allocation":         c.UpdateAllocation(nil),
		"nil configuration":      c.UpdateConfiguration(nil),
		"other rm":               c.UpdateNode(node("rm2", "n0")),
		"empty rmID":             c.UpdateAllocation(&si.AllocationRequest{}),
		"configuration of ghost": c.UpdateConfiguration(&si.UpdateConfigurationRequest{RmID: "ghost", Config: cfg}),
	} {
		if err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	// the streams survived
	if err := c.UpdateNode(node("rm1", "n0")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "n0 accepted", func() bool { return len(rec.accepted()) == 1 })
	if st := state(srv, "rm1"); st.State != grpcserver.RMRunning || len(st.OpenStreams) != 3 {
		t.Fatalf("after rejected calls: %+v", st)
	}
	select {
	case <-c.Done():
		t.Fatalf("streams broke: %v", c.Err())
	default:
	}
}

func TestDialUnreachable(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close()
	if _, err := Dial(bounded(t, 300*time.Millisecond), addr, Options{}); err == nil || !strings.Contains(err.Error(), addr) {
		t.Fatalf("Dial of a closed port: %v", err)
	}
}

// selfSigned returns a server certificate for 127.0.0.1 and a pool trusting it.
func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "paddock-test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}

func TestTLSAndToken(t *testing.T) {
	cert, pool := selfSigned(t)
	srv, addr := serve(t, grpcserver.Options{Token: "s3cret", TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}}})
	clientTLS := &tls.Config{RootCAs: pool}

	if _, err := Dial(bounded(t, 500*time.Millisecond), addr, Options{Token: "s3cret"}); err == nil {
		t.Error("plaintext dial of a TLS server became ready")
	}

	wrong, err := Dial(bounded(t, 10*time.Second), addr, Options{TLSConfig: clientTLS, Token: "nope"})
	if err != nil {
		t.Fatal(err)
	}
	defer wrong.Close()
	err = wrong.Register(bounded(t, 10*time.Second), &si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, &nodeRecorder{})
	if status.Code(err) != codes.Unauthenticated {
		t.Fatalf("wrong token: %v, want Unauthenticated", err)
	}

	c, err := Dial(bounded(t, 10*time.Second), addr, Options{TLSConfig: clientTLS, Token: "s3cret"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rec := &nodeRecorder{}
	if err := c.Register(bounded(t, 10*time.Second), &si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, rec); err != nil {
		t.Fatal(err)
	}
	if err := c.UpdateNode(node("rm1", "n0")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "n0 accepted over TLS", func() bool { return len(rec.accepted()) == 1 })
	if err := c.UpdateConfiguration(&si.UpdateConfigurationRequest{RmID: "rm1", Config: cfg}); err != nil {
		t.Fatalf("configuration update over TLS with the token: %v", err)
	}
	if st := state(srv, "rm1"); st.State != grpcserver.RMRunning {
		t.Fatalf("rm1 %+v", st)
	}
}

// TestSchedulerAPIForm drives the client through the api.SchedulerAPI
// methods, as an in-process RM would drive rmproxy.
func TestSchedulerAPIForm(t *testing.T) {
	srv, addr := serve(t, grpcserver.Options{})
	c, err := Dial(bounded(t, 10*time.Second), addr, Options{CallTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	rec := &nodeRecorder{}
	if _, err := c.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, rec); err != nil {
		t.Fatal(err)
	}
	first := c.Done()

	// registering again replaces the streams; the old callback hears nothing more
	rec2 := &nodeRecorder{}
	if _, err := c.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, rec2); err != nil {
		t.Fatal(err)
	}
	select {
	case <-first:
	default:
		t.Error("the replaced registration's Done is still open")
	}
	if err := c.UpdateNode(node("rm1", "n0")); err != nil {
		t.Fatal(err)
	}
	eventually(t, "n0 accepted by the new callback", func() bool { return len(rec2.accepted()) == 1 })
	if got := rec.accepted(); len(got) != 0 {
		t.Errorf("old callback received %v", got)
	}
	eventually(t, "rm1 running with 3 streams", func() bool {
		st := state(srv, "rm1")
		return st.State == grpcserver.RMRunning && len(st.OpenStreams) == 3
	})

	c.Stop()
	eventually(t, "rm1 stopped by the shutdown", func() bool { return state(srv, "rm1").State == grpcserver.RMStopped })
	if err := c.UpdateNode(node("rm1", "n1")); !errors.Is(err, ErrClosed) {
		t.Errorf("update after Stop: %v, want ErrClosed", err)
	}
	if _, err := c.RegisterResourceManager(&si.RegisterResourceManagerRequest{RmID: "rm1", Config: cfg}, rec); !errors.Is(err, ErrClosed) {
		t.Errorf("register after Stop: %v, want ErrClosed", err)
	}
}
