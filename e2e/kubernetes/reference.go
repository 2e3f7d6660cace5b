package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// The reference: the same upstream shim built against the reference
// yunikorn-core (its source tree, unmodified, from -reference) instead of
// compat/yunikorn-core, run on the same control plane as a third
// contender of the comparison. The reference's REST server listens on
// :9080, a port it fixes, so the harness reads it there while it runs.

// referenceREST is the reference core's REST address, fixed by it.
const referenceREST = "127.0.0.1:9080"

// referenceProg is the program of the shim on the reference core.
const referenceProg = "shim-reference"

// referenceIn returns the reference source tree to use: o.referenceSrc
// when it holds a Go module and the comparison runs the reference, else
// "" (a missing default tree is not an error: the comparison has two
// rows then).
func referenceIn(o options) string {
	if o.referenceSrc == "" || !o.compare || !slices.Contains(splitList(o.contenders), "yunikorn") {
		return ""
	}
	if _, err := os.Stat(filepath.Join(o.referenceSrc, "go.mod")); err != nil {
		logf("no reference core at %s: the comparison leaves it out", o.referenceSrc)
		return ""
	}
	return o.referenceSrc
}

// buildReference builds the shim on the reference core as buildShim builds
// it on Paddock: both trees are copied to the cache, yunikorn-core is
// replaced by the copy of the reference, the module graph is tidied and
// the scheduler program is built as referenceProg.
func buildReference(ctx context.Context, o options, bin string) error {
	shimSrc, err := filepath.Abs(o.shimSrc)
	if err != nil {
		return err
	}
	ref, err := filepath.Abs(o.referenceSrc)
	if err != nil {
		return err
	}
	dir := filepath.Join(o.cache, "reference-build")
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	shim, core := filepath.Join(dir, "shim"), filepath.Join(dir, "yunikorn-core")
	for _, cp := range [][2]string{{shimSrc, shim}, {ref, core}} {
		if err := sh(ctx, "", "cp", "-r", cp[0], cp[1]); err != nil {
			return err
		}
		if err := sh(ctx, "", "chmod", "-R", "u+w", cp[1]); err != nil {
			return err
		}
	}
	if err := goCmd(ctx, shim, "mod", "edit", "-replace", "github.com/apache/yunikorn-core="+core); err != nil {
		return err
	}
	logf("go mod tidy -e (shim on the reference core)")
	if err := goCmd(ctx, shim, "mod", "tidy", "-e"); err != nil {
		return err
	}
	logf("go build ./pkg/cmd/shim (on the reference core)")
	return goCmd(ctx, shim, "build", "-o", filepath.Join(bin, referenceProg), "./pkg/cmd/shim")
}

// startReference starts the shim on the reference core and waits until
// its REST API lists every Ready node.
func (c *cluster) startReference(ctx context.Context) error {
	if c.o.referenceSrc == "" {
		return fmt.Errorf("no reference core (-reference)")
	}
	return c.startShimAs(ctx, "reference", referenceREST)
}
