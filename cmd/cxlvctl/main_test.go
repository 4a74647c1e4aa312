package main

import (
	"os"
	"testing"
)

// TestMain lets the test binary stand in for cxlvctl when the completion
// scripts run it (CXLVCTL_TEST_AS_MAIN=1): a shell test then exercises the
// real script against the real command without building a second binary.
func TestMain(m *testing.M) {
	if os.Getenv("CXLVCTL_TEST_AS_MAIN") == "1" {
		main()
	}
	os.Exit(m.Run())
}
