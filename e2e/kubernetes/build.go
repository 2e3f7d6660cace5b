package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// programs are the control-plane programs, each built by `go build` in one
// of the modules under build/ (their go.mod pins the versions). The go
// command's build cache makes a second build a link check only.
var programs = []struct {
	module string
	pkgs   []string
	names  []string
}{
	{"build/etcd", []string{"go.etcd.io/etcd/server/v3"}, []string{"etcd"}},
	{"build/k8s", []string{
		"k8s.io/kubernetes/cmd/kube-apiserver", "k8s.io/kubernetes/cmd/kube-controller-manager",
		"k8s.io/kubernetes/cmd/kube-scheduler",
	}, []string{"kube-apiserver", "kube-controller-manager", "kube-scheduler"}},
	{"build/kwok", []string{"sigs.k8s.io/kwok/cmd/kwok"}, []string{"kwok"}},
}

func buildAll(ctx context.Context, o options, bin string) error {
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return err
	}
	for _, p := range programs {
		out := bin + string(filepath.Separator)
		if len(p.pkgs) == 1 {
			out = filepath.Join(bin, p.names[0])
		}
		args := append([]string{"build", "-o", out}, p.pkgs...)
		logf("go %s (in %s)", strings.Join(args, " "), p.module)
		if err := goCmd(ctx, p.module, args...); err != nil {
			return err
		}
	}
	build := buildShim
	if o.deploy == deployChart {
		build = buildChartMode
	}
	if err := build(ctx, o, bin); err != nil {
		return err
	}
	if o.referenceSrc == "" {
		return nil
	}
	return buildReference(ctx, o, bin)
}

// buildShim builds the upstream shim and admission controller on Paddock,
// the way scripts/k8shim-test does: the shim source and this checkout are
// copied to the cache, yunikorn-core is replaced by compat/yunikorn-core and
// Paddock by the copy, the module graph is tidied and the two programs are
// built.
func buildShim(ctx context.Context, o options, bin string) error {
	src, err := filepath.Abs(o.shimSrc)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(src, "go.mod")); err != nil {
		return fmt.Errorf("no shim source at %s (set -shim or $K8SHIM_DIR): %w", src, err)
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(repo, "compat", "yunikorn-core", "go.mod")); err != nil {
		return fmt.Errorf("not run from e2e/kubernetes of a Paddock checkout: %w", err)
	}
	dir := filepath.Join(o.cache, "shim-build")
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	shim, paddock := filepath.Join(dir, "shim"), filepath.Join(dir, "paddock")
	if err := os.MkdirAll(paddock, 0o755); err != nil {
		return err
	}
	if err := sh(ctx, "", "cp", "-r", src, shim); err != nil {
		return err
	}
	if err := sh(ctx, "", "chmod", "-R", "u+w", shim); err != nil {
		return err
	}
	if err := sh(ctx, "", "bash", "-c", `cd "$1" && tar --exclude=./.git --exclude=./out --exclude=./e2e -cf - . | (cd "$2" && tar -xf -)`,
		"copy", repo, paddock); err != nil {
		return err
	}
	if err := goCmd(ctx, shim, "mod", "edit",
		"-replace", "github.com/apache/yunikorn-core="+filepath.Join(paddock, "compat", "yunikorn-core"),
		"-replace", "github.com/paddock-sched/paddock="+paddock); err != nil {
		return err
	}
	logf("go mod tidy -e (shim on Paddock)")
	if err := goCmd(ctx, shim, "mod", "tidy", "-e"); err != nil {
		return err
	}
	logf("go build ./pkg/cmd/shim ./pkg/cmd/admissioncontroller")
	return goCmd(ctx, shim, "build", "-o", bin+string(filepath.Separator), "./pkg/cmd/shim", "./pkg/cmd/admissioncontroller")
}

func goCmd(ctx context.Context, dir string, args ...string) error {
	return sh(ctx, dir, "go", args...)
}

func sh(ctx context.Context, dir, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return nil
}
