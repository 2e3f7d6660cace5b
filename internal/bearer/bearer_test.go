package bearer

import "testing"

func TestMatches(t *testing.T) {
	for _, tc := range []struct {
		credential string
		want       bool
	}{
		{"Bearer s3cret", true},
		{"bearer s3cret", true},
		{"BEARER s3cret", true},
		{"bEaReR   s3cret", true},
		{"Bearer wrong", false},
		{"Bearer s3cret2", false},
		{"Bearer ", false},
		{"Bearer", false},
		{"Bearers3cret", false},
		{"Basic s3cret", false},
		{"s3cret", false},
		{"", false},
	} {
		if got := Matches(tc.credential, "s3cret"); got != tc.want {
			t.Errorf("Matches(%q) = %v, want %v", tc.credential, got, tc.want)
		}
	}
}
