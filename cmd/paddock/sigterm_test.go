package main

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/apache/yunikorn-scheduler-interface/lib/go/si"
	"github.com/paddock-sched/paddock/callback"
	"github.com/paddock-sched/paddock/client"
	"github.com/paddock-sched/paddock/internal/serve"
)

// TestSIGTERMUnderLoad sends the process SIGTERM while an RM streams asks
// and a REST reader polls: serve stops cleanly (exit 0) well within its
// shutdown bound, the RM's streams end, and the ports close (issue #18).
func TestSIGTERMUnderLoad(t *testing.T) {
	started := make(chan *serve.Server, 1)
	serveStarted = func(s *serve.Server) { started <- s }
	defer func() { serveStarted = nil }()
	done := make(chan int, 1)
	var errOut bytes.Buffer
	go func() {
		// run installs the SIGTERM handler before it starts the server
		done <- run([]string{"serve", "-rest-addr", "127.0.0.1:0", "-grpc-addr", "127.0.0.1:0", "-log-level", "error"}, &bytes.Buffer{}, &errOut)
	}()
	var s *serve.Server
	select {
	case s = <-started:
	case <-time.After(10 * time.Second):
		t.Fatal("server did not start")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, s.GRPCAddr(), client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Register(ctx, &si.RegisterResourceManagerRequest{RmID: "rm"}, callback.Nop{}); err != nil {
		t.Fatal(err)
	}
	var nodes []*si.NodeInfo
	for i := range 50 {
		nodes = append(nodes, &si.NodeInfo{NodeID: fmt.Sprint("n", i), Action: si.NodeInfo_CREATE,
			SchedulableResource: &si.Resource{Resources: map[string]*si.Quantity{"vcore": {Value: 64000}}}})
	}
	if err := c.UpdateNode(&si.NodeRequest{RmID: "rm", Nodes: nodes}); err != nil {
		t.Fatal(err)
	}
	if err := c.UpdateApplication(&si.ApplicationRequest{RmID: "rm", New: []*si.AddApplicationRequest{
		{ApplicationID: "app", QueueName: "root.default", Ugi: &si.UserGroupInformation{User: "u"}}}}); err != nil {
		t.Fatal(err)
	}
	// load: asks as fast as the RM can send them, and a REST reader
	var sent, reads atomic.Int64
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			req := &si.AllocationRequest{RmID: "rm"}
			for j := range 100 {
				req.Allocations = append(req.Allocations, &si.Allocation{AllocationKey: fmt.Sprint("k", i, "-", j), ApplicationID: "app",
					ResourcePerAlloc: &si.Resource{Resources: map[string]*si.Quantity{"vcore": {Value: 100}}}})
			}
			if c.UpdateAllocation(req) != nil {
				return
			}
			sent.Add(100)
		}
	}()
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			resp, err := http.Get("http://" + s.RESTAddr() + "/ws/v1/partition/default/nodes")
			if err != nil {
				return
			}
			resp.Body.Close()
			reads.Add(1)
		}
	}()
	for sent.Load() < 5000 || reads.Load() < 5 {
		select {
		case <-done:
			t.Fatalf("serve stopped on its own: %s", errOut.String())
		case <-time.After(10 * time.Millisecond):
		}
	}

	begin := time.Now()
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		took := time.Since(begin)
		if code != exitOK {
			t.Fatalf("exit %d after SIGTERM: %s", code, errOut.String())
		}
		if took >= shutdownTimeout {
			t.Fatalf("shutdown took %v, the bound is %v", took, shutdownTimeout)
		}
		t.Logf("exit 0 %v after SIGTERM, with %d asks sent and %d REST reads", took.Round(time.Millisecond), sent.Load(), reads.Load())
	case <-time.After(shutdownTimeout + 5*time.Second):
		t.Fatal("serve did not exit after SIGTERM")
	}
	select {
	case <-c.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the RM's streams did not end")
	}
	if _, err := http.Get("http://" + s.RESTAddr() + "/ws/v1/metrics"); err == nil {
		t.Fatal("REST still answers after SIGTERM")
	}
}
