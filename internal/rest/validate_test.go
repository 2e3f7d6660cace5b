package rest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// queuesOf returns a block-style configuration of about size bytes: one
// partition with as many tenant queues as fit, each with an ACL, resources
// and a property, as real multi-tenant configurations look.
func queuesOf(size int) string {
	var b strings.Builder
	b.WriteString("partitions:\n  - name: default\n    queues:\n      - name: root\n        submitacl: \"*\"\n        queues:\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "          - name: tenant-%06d\n            submitacl: \"user%d admins\"\n            resources:\n"+
			"              guaranteed: {memory: 10Gi, vcore: 10}\n              max: {memory: 100Gi, vcore: 100}\n"+
			"            properties:\n              application.sort.policy: fifo\n", i, i)
	}
	return b.String()
}

func validateInfo(t *testing.T, w *httptest.ResponseRecorder) ValidateInfo {
	t.Helper()
	if w.Code != http.StatusOK {
		t.Fatalf("status %d: %s", w.Code, w.Body)
	}
	var v ValidateInfo
	if err := json.Unmarshal(w.Body.Bytes(), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// hideLength makes a body of unknown length (chunked).
type hideLength struct{ io.Reader }

func TestValidateConfSizeLimit(t *testing.T) {
	h := newHandler(t, Options{})
	// a real configuration as large as the reference can hold (a
	// Kubernetes ConfigMap, 1 MiB) validates
	big := queuesOf(1 << 20)
	if v := validateInfo(t, do(t, h, request{method: "POST", path: "/ws/v1/validate-conf", body: big})); !v.Allowed {
		t.Fatalf("a 1 MiB configuration is not allowed: %s", v.Reason)
	}
	// a valid configuration padded past the limit is refused, with and
	// without a Content-Length
	padded := testConfig + strings.Repeat("# padding\n", MaxConfigSize/10+1)
	want := "the configuration is larger than the limit of 2097152 bytes (2 MiB)"
	for _, body := range []io.Reader{strings.NewReader(padded), hideLength{strings.NewReader(padded)}} {
		r := httptest.NewRequest("POST", "/ws/v1/validate-conf", body)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if v := validateInfo(t, w); v.Allowed || v.Reason != want {
			t.Errorf("content length %d: %+v, want refused: %s", r.ContentLength, v, want)
		}
	}
}

// TestValidateConfConcurrencyLimit holds every validation slot with
// requests whose bodies have not arrived (the 100 Continue proves the
// handler is reading them), and checks that one more is refused with 503
// and a reason, and that the held ones then complete.
func TestValidateConfConcurrencyLimit(t *testing.T) {
	srv := httptest.NewServer(newHandler(t, Options{MaxValidations: 2}))
	defer srv.Close()
	type held struct {
		conn net.Conn
		br   *bufio.Reader
	}
	var slots []held
	for range 2 {
		conn, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		fmt.Fprintf(conn, "POST /ws/v1/validate-conf HTTP/1.1\r\nHost: paddock\r\nContent-Length: %d\r\nExpect: 100-continue\r\n\r\n", len(testConfig))
		br := bufio.NewReader(conn)
		line, err := br.ReadString('\n')
		if err != nil || !strings.Contains(line, "100 Continue") {
			t.Fatalf("no 100 Continue: %q %v", line, err)
		}
		if _, err := br.ReadString('\n'); err != nil { // the empty line
			t.Fatal(err)
		}
		slots = append(slots, held{conn, br})
	}
	resp, err := http.Post(srv.URL+"/ws/v1/validate-conf", "application/x-yaml", strings.NewReader(testConfig))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" ||
		!strings.Contains(string(body), "the limit of 2 concurrent configuration validations is reached; retry later") {
		t.Fatalf("third validation: %d %q %s, want 503 with Retry-After and a reason", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	for _, s := range slots {
		io.WriteString(s.conn, testConfig)
		resp, err := http.ReadResponse(s.br, nil)
		if err != nil {
			t.Fatal(err)
		}
		var v ValidateInfo
		err = json.NewDecoder(resp.Body).Decode(&v)
		resp.Body.Close()
		if err != nil || resp.StatusCode != http.StatusOK || !v.Allowed {
			t.Errorf("held validation: %d %+v %v", resp.StatusCode, v, err)
		}
	}
	// the slots are free again
	resp, err = http.Post(srv.URL+"/ws/v1/validate-conf", "application/x-yaml", strings.NewReader(testConfig))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("after the held ones: %d", resp.StatusCode)
	}
}

// BenchmarkValidateConf validates a 2 MiB block-style configuration (the
// largest accepted); B/op over the size is the memory factor quoted in
// MaxConfigSize's comment and docs/reliability.md.
func BenchmarkValidateConf(b *testing.B) {
	s, _ := scripted(b)
	h := New(s, Options{})
	cfg := queuesOf(MaxConfigSize - 4096)
	b.SetBytes(int64(len(cfg)))
	b.ReportAllocs()
	for b.Loop() {
		r := httptest.NewRequest("POST", "/ws/v1/validate-conf", strings.NewReader(cfg))
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), `"allowed":true`) {
			b.Fatalf("%d %s", w.Code, w.Body)
		}
	}
}
