package whatif

import (
	"os"
	"testing"
)

func makeTempDir() (string, error) { return os.MkdirTemp("", "whatif-trace-") }

func TestMain(m *testing.M) {
	code := m.Run()
	if traceDir != "" {
		os.RemoveAll(traceDir)
	}
	os.Exit(code)
}
