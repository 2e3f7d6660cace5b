package borg

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
)

const (
	bufSize = 64 << 10
	// maxLineLen bounds a row; longer rows are skipped as malformed so a
	// broken file cannot make a reader buffer without limit.
	maxLineLen = 1 << 20
)

var gzipMagic = []byte{0x1f, 0x8b}

// errLineTooLong reports a skipped line longer than maxLineLen.
var errLineTooLong = errors.New("line longer than 1 MiB")

// shardLines yields the lines of a sequence of files, plain or gzip
// (detected from the content, not the name), with one file open at a time
// and its buffers reused from file to file.
type shardLines struct {
	files []string
	next  int // index of the next file to open

	f    *os.File
	raw  *bufio.Reader // over the file
	gz   *gzip.Reader  // over raw, when the file is gzip
	unz  *bufio.Reader // over gz
	cur  *bufio.Reader // raw or unz
	long []byte        // a line that did not fit in cur's buffer

	file   string // current file
	lineNo int64  // 1-based number of the last line returned in file
	opened int    // files opened so far
}

func newShardLines(files []string) *shardLines {
	return &shardLines{files: files}
}

// line returns the next line without its line ending; the slice is valid
// until the next call. It returns io.EOF after the last line of the last
// file, errLineTooLong for a skipped over-long line (the caller may go on),
// and any other error for unreadable files.
func (s *shardLines) line() ([]byte, error) {
	for {
		if s.cur == nil {
			if s.next >= len(s.files) {
				return nil, io.EOF
			}
			if err := s.open(s.files[s.next]); err != nil {
				return nil, err
			}
			s.next++
		}
		b, err := s.readLine()
		if err == io.EOF {
			if cerr := s.closeFile(); cerr != nil {
				return nil, cerr
			}
			continue
		}
		if err != nil && err != errLineTooLong {
			return nil, fmt.Errorf("borg: reading %s: %w", s.file, err)
		}
		return b, err
	}
}

func (s *shardLines) open(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return fmt.Errorf("borg: %w", err)
	}
	s.f, s.file, s.lineNo = f, name, 0
	s.opened++
	if s.raw == nil {
		s.raw = bufio.NewReaderSize(f, bufSize)
	} else {
		s.raw.Reset(f)
	}
	magic, err := s.raw.Peek(2)
	if err != nil && err != io.EOF {
		s.closeFile()
		return fmt.Errorf("borg: reading %s: %w", name, err)
	}
	if !bytes.Equal(magic, gzipMagic) {
		s.cur = s.raw
		return nil
	}
	if s.gz == nil {
		s.gz, err = gzip.NewReader(s.raw)
	} else {
		err = s.gz.Reset(s.raw)
	}
	if err != nil {
		s.closeFile()
		return fmt.Errorf("borg: reading %s: %w", name, err)
	}
	if s.unz == nil {
		s.unz = bufio.NewReaderSize(s.gz, bufSize)
	} else {
		s.unz.Reset(s.gz)
	}
	s.cur = s.unz
	return nil
}

// readLine reads one line of the current file; io.EOF means the file is done.
func (s *shardLines) readLine() ([]byte, error) {
	b, err := s.cur.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		s.long = append(s.long[:0], b...)
		for err == bufio.ErrBufferFull {
			b, err = s.cur.ReadSlice('\n')
			if len(s.long) <= maxLineLen {
				s.long = append(s.long, b...)
			}
		}
		if err != nil && err != io.EOF {
			return nil, err
		}
		b, err = s.long, nil
		if len(s.long) > maxLineLen {
			s.lineNo++
			return nil, errLineTooLong
		}
	}
	if err == io.EOF && len(b) > 0 {
		err = nil // last line without a newline
	}
	if err != nil {
		return nil, err
	}
	s.lineNo++
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
	}
	if n := len(b); n > 0 && b[n-1] == '\r' {
		b = b[:n-1]
	}
	return b, nil
}

func (s *shardLines) closeFile() error {
	s.cur = nil
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	if err != nil {
		return fmt.Errorf("borg: closing %s: %w", s.file, err)
	}
	return nil
}

// close releases the open file, if any; further calls to line return io.EOF.
func (s *shardLines) close() error {
	s.next = len(s.files)
	return s.closeFile()
}
