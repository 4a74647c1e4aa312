package region

import (
	"context"
	"errors"
	"io/fs"
	"syscall"
	"testing"
	"time"

	"github.com/cxlv/cxlv/cxlverr"
)

// A command that outlives the timeout (a mkfs or mount stuck on a device)
// is killed and reported as a timeout.
func TestExecKillsACommandAtTheTimeout(t *testing.T) {
	start := time.Now()
	err := Exec{Timeout: 50 * time.Millisecond}.run(context.Background(), []string{"sleep", "10"})
	if !errors.Is(err, cxlverr.ErrTimeout) {
		t.Fatalf("got %v, want a timeout", err)
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("returned after %v: the command was not killed", elapsed)
	}
}

// Unmount is umount(2): a directory nothing is mounted on gives EINVAL,
// or EPERM without CAP_SYS_ADMIN, naming the directory.
func TestExecUnmountNamesTheDirectory(t *testing.T) {
	dir := t.TempDir()
	err := Exec{}.Unmount(dir)
	var pathErr *fs.PathError
	if !errors.As(err, &pathErr) || pathErr.Path != dir || !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.EPERM) {
		t.Fatalf("got %v, want umount %s: EINVAL or EPERM", err, dir)
	}
}
