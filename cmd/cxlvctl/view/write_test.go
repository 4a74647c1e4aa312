package view

import "testing"

func TestHumanSize(t *testing.T) {
	for _, tc := range []struct {
		bytes uint64
		want  string
	}{
		{0, "0"},
		{5000<<10 - 1, "5119999"},
		{5000 << 10, `"4.88 MiB (5.12 MB)"`},
		{256 << 20, `"256.00 MiB (268.44 MB)"`},
		{768 << 20, `"768.00 MiB (805.31 MB)"`},
		{2<<30 - 1, `"2048.00 MiB (2147.48 MB)"`},
		{2 << 30, `"2.00 GiB (2.15 GB)"`},
		{8 << 30, `"8.00 GiB (8.59 GB)"`},
	} {
		if got := humanSize(tc.bytes); got != tc.want {
			t.Errorf("humanSize(%d) = %s; want %s", tc.bytes, got, tc.want)
		}
	}
}
