package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
)

// paddockPackage is the paddock binary's package, built by buildPaddock.
const paddockPackage = "github.com/paddock-sched/paddock/cmd/paddock"

// buildPaddock builds the paddock binary of the module the working
// directory is in (with its default.pgo, as `go build ./cmd/paddock` does)
// into dir and returns its path; race adds the race detector.
func buildPaddock(ctx context.Context, dir string, race bool) (string, error) {
	exe := filepath.Join(dir, "paddock")
	if runtime.GOOS == "windows" {
		exe += ".exe"
	}
	args := []string{"build", "-o", exe}
	if race {
		args = append(args, "-race")
	}
	out, err := exec.CommandContext(ctx, "go", append(args, paddockPackage)...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build %s (run from a Paddock checkout, or give -paddock): %v\n%s", paddockPackage, err, out)
	}
	return exe, nil
}
