package borg

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
)

// Table names.
const (
	Table2011Machines = "machine_events"
	Table2011Jobs     = "job_events"
	Table2011Tasks    = "task_events"
	Table2019Machines = "machine_events"
	Table2019Jobs     = "collection_events"
	Table2019Tasks    = "instance_events"
)

var shard2011 = regexp.MustCompile(`^part-([0-9]+)-of-([0-9]+)\.csv(\.gz)?$`)

type shard struct {
	num  int64
	path string
}

// shardFiles lists the files of dir whose names match re, ordered by the
// number in re's first group. Two files with the same number are an error.
func shardFiles(dir string, re *regexp.Regexp) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("borg: %w", err)
	}
	var found []shard
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		m := re.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		n, err := strconv.ParseInt(m[1], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("borg: shard number of %s: %w", filepath.Join(dir, e.Name()), err)
		}
		found = append(found, shard{num: n, path: filepath.Join(dir, e.Name())})
	}
	slices.SortFunc(found, func(a, b shard) int {
		return cmp.Or(cmp.Compare(a.num, b.num), cmp.Compare(a.path, b.path))
	})
	files := make([]string, len(found))
	for i, s := range found {
		if i > 0 && found[i-1].num == s.num {
			return nil, fmt.Errorf("borg: duplicate shard %d in %s: %s and %s", s.num, dir,
				filepath.Base(found[i-1].path), filepath.Base(s.path))
		}
		files[i] = s.path
	}
	return files, nil
}

// shards2011 lists the part-NNNNN-of-NNNNN.csv[.gz] shards of a 2011 table directory.
func shards2011(dir string) ([]string, error) {
	files, err := shardFiles(dir, shard2011)
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("borg: no part-NNNNN-of-NNNNN.csv[.gz] shards in %s", dir)
	}
	return files, nil
}

// csvExport matches any CSV file: a 2019 table directory may hold a
// BigQuery CSV export under any name.
var csvExport = regexp.MustCompile(`^.*\.csv(\.gz)?$`)

// shards2019 lists the {table}-NNNNNNNNNNNN.json[.gz] or .csv[.gz] shards
// of a 2019 table, in dir itself or else in dir/{table}/, where any other
// .csv[.gz] file (not named like a 2011 shard) is a CSV export of the
// table too, read after the numbered shards in name order.
func shards2019(dir, table string) ([]string, error) {
	re := regexp.MustCompile(`^` + regexp.QuoteMeta(table) + `-([0-9]+)\.(json|csv)(\.gz)?$`)
	files, err := shardFiles(dir, re)
	if err != nil {
		return nil, err
	}
	if len(files) > 0 {
		return files, nil
	}
	sub := filepath.Join(dir, table)
	if st, err := os.Stat(sub); err == nil && st.IsDir() {
		if files, err = shardFiles(sub, re); err != nil {
			return nil, err
		}
		files = append(files, csvExports(sub, re)...)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("borg: no %s-NNNNNNNNNNNN.json[.gz] shards in %s (nor .csv[.gz] exports)", table, dir)
	}
	return files, nil
}

// csvExports lists the CSV files of dir that are neither numbered shards
// (numbered) nor 2011 shards, in name order.
func csvExports(dir string, numbered *regexp.Regexp) []string {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries { // ReadDir sorts by name
		n := e.Name()
		if !e.IsDir() && csvExport.MatchString(n) && !numbered.MatchString(n) && !shard2011.MatchString(n) {
			out = append(out, filepath.Join(dir, n))
		}
	}
	return out
}
