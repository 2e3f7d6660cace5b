package config

import (
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"
)

func TestChecksum(t *testing.T) {
	base := partition("name: default\nqueues:\n- name: root")
	sum := ChecksumOf([]byte(base))
	if want := fmt.Sprintf("%X", sha256.Sum256([]byte(base))); sum != want {
		t.Errorf("checksum = %s, want %s", sum, want)
	}
	if sum != strings.ToUpper(sum) || len(sum) != 64 {
		t.Errorf("checksum %q is not 64 uppercase hex digits", sum)
	}
	if again := ChecksumOf([]byte(base)); again != sum {
		t.Errorf("same text gave %s then %s", sum, again)
	}
	withLine := "checksum: 2A9F0E66BB1CA3A8F0D60D0D7A17D7B5E4E1E0A3E2AFB97B0C0E14C5E1A90A11\n" + base
	if got := ChecksumOf([]byte(withLine)); got != sum {
		t.Errorf("checksum line not ignored: %s vs %s", got, sum)
	}
	withTrailing := base + "checksum: ABC"
	if got := ChecksumOf([]byte(withTrailing)); got != sum {
		t.Errorf("final checksum line without newline not ignored: %s vs %s", got, sum)
	}
	// A nested "checksum:" (here a property) is configuration, not the
	// checksum line.
	nested := underRoot("- name: a\n  properties:\n    checksum: x")
	if ChecksumOf([]byte(nested)) == ChecksumOf([]byte(strings.Replace(nested, "    checksum: x\n", "", 1))) {
		t.Errorf("indented checksum key must count")
	}
	if ChecksumOf([]byte(base+" ")) == sum {
		t.Errorf("different text, same checksum")
	}
	c := mustParse(t, withLine)
	if c.Checksum != sum {
		t.Errorf("Parse checksum = %s, want %s", c.Checksum, sum)
	}
}

func TestChecksumSurvivesServing(t *testing.T) {
	// The text served back with its checksum line has the same checksum.
	text := underRoot("- name: a")
	c := mustParse(t, text)
	served := "checksum: " + c.Checksum + "\n" + text
	if got := mustParse(t, served).Checksum; got != c.Checksum {
		t.Errorf("checksum changed after adding the checksum line: %s vs %s", got, c.Checksum)
	}
}
