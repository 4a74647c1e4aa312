// Package fixturetest copies a tree that test/vm/capture-fixtures.sh
// captured, for a test that breaks one file of it: a read that fails is
// made by changing a real tree, never by writing one by hand.
package fixturetest

import (
	"os"
	"path/filepath"
	"testing"
)

// Copy copies the directory src (links kept as links) into a temporary
// directory of t and returns the copy's path.
func Copy(t testing.TB, src string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), filepath.Base(src))
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
	return dst
}

// Unreadable replaces the file at path with an empty directory, so that
// opening it works and reading it fails with EISDIR: an error that is
// neither "absent" (ENOENT) nor "root only" (EACCES, which root never
// gets), whoever runs the test.
func Unreadable(t testing.TB, path string) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path, 0o755); err != nil {
		t.Fatal(err)
	}
}
