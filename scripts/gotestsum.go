//go:build ignore

// gotestsum reads `go test -json` on standard input and prints, per
// package, how many tests passed, failed and were skipped, the names of the
// failures with their output, and a total line:
//
//	go test -json ./... | go run scripts/gotestsum.go [-failed FILE]
//
// With -failed it also writes the failed top-level tests to FILE, one
// "package<TAB>test" line each, for a caller that runs them again; FILE is
// left empty when a package failed to build (nothing to run again).
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
)

type event struct {
	Action, Package, Test, Output string
}

// counts are of tests and, separately, of subtests (names with a "/").
type counts struct{ pass, fail, skip, subPass, subFail, subSkip int }

func main() {
	failedFile := ""
	if len(os.Args) == 3 && os.Args[1] == "-failed" {
		failedFile = os.Args[2]
	}
	per := map[string]*counts{}
	output := map[string][]string{}
	var failed []string
	var buildFail []string
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	for in.Scan() {
		var e event
		if json.Unmarshal(in.Bytes(), &e) != nil {
			continue
		}
		c := per[e.Package]
		if c == nil {
			c = &counts{}
			per[e.Package] = c
		}
		id := e.Package + " " + e.Test
		switch e.Action {
		case "output":
			if e.Test != "" {
				output[id] = append(output[id], e.Output)
			} else if strings.Contains(e.Output, "[build failed]") || strings.Contains(e.Output, "[setup failed]") {
				buildFail = append(buildFail, e.Package)
			}
		case "pass", "skip", "fail":
			if e.Test == "" {
				break
			}
			c.count(e.Action, strings.Contains(e.Test, "/"))
			if e.Action == "fail" {
				failed = append(failed, id)
			} else {
				delete(output, id)
			}
		}
	}
	var pkgs []string
	for p := range per {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	var total counts
	for _, p := range pkgs {
		c := per[p]
		if c.pass+c.fail+c.skip == 0 {
			continue
		}
		fmt.Printf("%-62s tests: pass %3d fail %2d skip %2d   subtests: pass %3d fail %2d\n", p, c.pass, c.fail, c.skip, c.subPass, c.subFail)
		total.pass += c.pass
		total.fail += c.fail
		total.skip += c.skip
		total.subPass += c.subPass
		total.subFail += c.subFail
		total.subSkip += c.subSkip
	}
	for _, id := range failed {
		fmt.Printf("--- FAIL %s\n%s", id, strings.Join(output[id], ""))
	}
	for _, p := range buildFail {
		fmt.Printf("--- BUILD FAILED %s\n", p)
	}
	fmt.Printf("TOTAL: %d tests passed, %d failed, %d skipped; %d subtests passed, %d failed, %d skipped; %d packages failed to build\n",
		total.pass, total.fail, total.skip, total.subPass, total.subFail, total.subSkip, len(buildFail))
	if failedFile != "" {
		var b strings.Builder
		if len(buildFail) == 0 {
			for _, id := range failed {
				if pkg, test, _ := strings.Cut(id, " "); !strings.Contains(test, "/") {
					fmt.Fprintf(&b, "%s\t%s\n", pkg, test)
				}
			}
		}
		if err := os.WriteFile(failedFile, []byte(b.String()), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gotestsum:", err)
			os.Exit(1)
		}
	}
}

func (c *counts) count(action string, sub bool) {
	p, f, s := &c.pass, &c.fail, &c.skip
	if sub {
		p, f, s = &c.subPass, &c.subFail, &c.subSkip
	}
	switch action {
	case "pass":
		*p++
	case "fail":
		*f++
	default:
		*s++
	}
}
