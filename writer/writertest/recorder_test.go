package writertest

import (
	"errors"
	"testing"
)

func TestRecorderInjectsFailureAtStep(t *testing.T) {
	inner := &Recorder{}
	r := &Recorder{Next: inner, FailAt: 2}
	if err := r.Write("/a", "1"); err != nil {
		t.Fatal(err)
	}
	if err := r.Write("/b", "2"); !errors.Is(err, ErrInjected) {
		t.Fatalf("step 2: got %v, want ErrInjected", err)
	}
	if err := r.Write("/c", "3"); err != nil {
		t.Fatal(err)
	}
	if got := len(r.Ops()); got != 3 {
		t.Fatalf("recorded %d writes, want 3", got)
	}
	passed := inner.Ops()
	if len(passed) != 2 || passed[0].Path != "/a" || passed[1].Path != "/c" {
		t.Fatalf("passed on %v, want /a and /c only", passed)
	}
}

func TestRecorderRecordsDirs(t *testing.T) {
	r := &Recorder{FailAt: 2}
	if err := r.Mkdir("/i"); err != nil {
		t.Fatal(err)
	}
	if err := r.Rmdir("/i"); !errors.Is(err, ErrInjected) || err.Error() != "rmdir /i: injected failure" {
		t.Fatalf("step 2: got %v, want the injected rmdir failure", err)
	}
	ops := r.Ops()
	if len(ops) != 2 || ops[0].Dir != "mkdir" || ops[1].Dir != "rmdir" || ops[0].String() != "mkdir /i" {
		t.Fatalf("recorded %v", ops)
	}
}
