package fixturetest

import (
	"path/filepath"
	"runtime"
)

// Dir is test/fixtures/<scenario>, from any package's test.
func Dir(scenario string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "test", "fixtures", scenario)
}
