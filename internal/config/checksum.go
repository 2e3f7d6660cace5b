package config

import (
	"bytes"
	"crypto/sha256"
	"fmt"
)

// ChecksumOf returns the configuration checksum of a text: the uppercase hex
// SHA-256 of the text with every top-level "checksum:" line (and its line
// break) removed, so that serving a config with its checksum and sending it
// back yields the same checksum.
func ChecksumOf(data []byte) string {
	return fmt.Sprintf("%X", sha256.Sum256(withoutChecksumLines(data)))
}

func withoutChecksumLines(data []byte) []byte {
	if !bytes.Contains(data, []byte("checksum:")) {
		return data
	}
	out := make([]byte, 0, len(data))
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line = data[:i+1]
		}
		data = data[len(line):]
		if !bytes.HasPrefix(line, []byte("checksum:")) {
			out = append(out, line...)
		}
	}
	return out
}
