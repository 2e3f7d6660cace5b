package borg

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// The 2019 trace's BigQuery tables can be exported as CSV as well as
// newline-delimited JSON: the first row names the columns, a nested
// record's fields are flattened with dots (resource_request.cpus), a NULL
// is an empty cell. Repeated fields (constraint, start_after_collection_ids)
// cannot be exported to CSV, so a CSV export never has them.
//
// Each file says by its content which shape it is in: a first line that
// starts with '{' is JSON, anything else a CSV header. A CSV row becomes
// the JSON object the JSON export would hold for it (its columns nested by
// their dots, empty cells left out) and is decoded as that object, so both
// shapes go through the same checks.

// errNotARow marks a line that is not an event (a CSV header): it is
// neither returned nor counted as malformed.
var errNotARow = errors.New("not a row")

// bom is the UTF-8 byte order mark some exports start with.
var bom = []byte{0xef, 0xbb, 0xbf}

// export2019 decodes the rows of a 2019 table in either export shape.
type export2019[T any] struct {
	json  decoder[T] // the JSON decoder of the table
	first bool       // the next line is its file's first
	csv   *csvHeader // the current file's header; nil: a JSON file
	bad   bool       // the current file's CSV header is not valid
}

func newExport2019[T any](json decoder[T]) *export2019[T] { return &export2019[T]{json: json} }

// startFile is called before the first line of every file.
func (d *export2019[T]) startFile() { d.first, d.csv, d.bad = true, nil, false }

func (d *export2019[T]) decode(line []byte, ev *T) (int64, error) {
	if d.first {
		d.first = false
		line = bytes.TrimPrefix(line, bom)
		if t := bytes.TrimLeft(line, " \t"); len(t) == 0 || t[0] != '{' {
			h, err := parseCSVHeader(line)
			if err != nil {
				d.bad = true
				return 0, fmt.Errorf("no CSV header: %v", err)
			}
			d.csv = h
			return 0, errNotARow
		}
	}
	if d.bad {
		return 0, errors.New("row of a file without a valid CSV header")
	}
	if d.csv == nil {
		return d.json.decode(line, ev)
	}
	obj, err := d.csv.object(line)
	if err != nil {
		return 0, err
	}
	t, err := d.json.decode(obj, ev)
	if err != nil {
		// the object is well-formed JSON: what is wrong is a value
		if msg, ok := strings.CutPrefix(err.Error(), jsonValuePrefix); ok {
			return 0, errors.New("bad value: " + msg)
		}
	}
	return t, err
}

// csvColumn is one name of a CSV header's tree of columns: a value (col
// >= 0, the cell's index) or a record of the columns under its dot.
type csvColumn struct {
	name string
	col  int
	kids []*csvColumn
}

// csvHeader is a CSV export's header as a tree of columns.
type csvHeader struct {
	top  []*csvColumn
	cols int
	buf  []byte // the object of the current row
}

var csvName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// parseCSVHeader reads a header row: column names, dotted for a record's
// fields, each once.
func parseCSVHeader(line []byte) (*csvHeader, error) {
	names, err := csvRecord(line)
	if err != nil {
		return nil, err
	}
	h := &csvHeader{cols: len(names)}
	for i, full := range names {
		level := &h.top
		parts := strings.Split(full, ".")
		for j, p := range parts {
			if !csvName.MatchString(p) {
				return nil, fmt.Errorf("column %d is named %q", i+1, full)
			}
			var c *csvColumn
			for _, k := range *level {
				if k.name == p {
					c = k
				}
			}
			last := j == len(parts)-1
			switch {
			case c == nil:
				c = &csvColumn{name: p, col: -1}
				if last {
					c.col = i
				}
				*level = append(*level, c)
			case last && c.col >= 0:
				return nil, fmt.Errorf("column %q twice", full)
			case last || c.col >= 0:
				return nil, fmt.Errorf("column %q is both a value and a record", strings.Join(parts[:j+1], "."))
			}
			level = &c.kids
		}
	}
	return h, nil
}

// object turns a CSV row into the JSON object of the same row; the slice
// is valid until the next call.
func (h *csvHeader) object(line []byte) ([]byte, error) {
	var cells []string
	if bytes.IndexByte(line, '"') >= 0 {
		var err error
		if cells, err = csvRecord(line); err != nil {
			return nil, err
		}
	} else {
		cells = strings.Split(string(line), ",")
	}
	if len(cells) != h.cols {
		return nil, fmt.Errorf("%d columns, the header has %d", len(cells), h.cols)
	}
	h.buf = appendObject(h.buf[:0], h.top, cells)
	return h.buf, nil
}

// appendObject appends the JSON object of the columns cs of a row: every
// non-empty value as a string (the JSON export's INT64 form), every record
// with a non-empty value under it.
func appendObject(b []byte, cs []*csvColumn, cells []string) []byte {
	b = append(b, '{')
	n := 0
	for _, c := range cs {
		if c.col >= 0 && cells[c.col] == "" {
			continue
		}
		mark := len(b)
		if n > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, c.name)
		b = append(b, ':')
		if c.col >= 0 {
			b = appendJSONString(b, cells[c.col])
		} else {
			inner := len(b)
			b = appendObject(b, c.kids, cells)
			if string(b[inner:]) == "{}" {
				b = b[:mark] // a record of NULLs is a NULL
				continue
			}
		}
		n++
	}
	return append(b, '}')
}

// appendJSONString appends s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
