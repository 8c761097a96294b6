// pprof-valid: each profile named on the command line as google/pprof's
// own profile package reads it (Debian's golang-github-google-pprof-dev,
// built in GOPATH mode, offline): profile.Parse, then CheckValid (sample
// values against sample types; Mapping, Location and Function ids unique,
// nonzero and every reference to them resolved). One line per profile:
// "ok NAME: N samples, N locations" or "bad NAME: the error"; exits 1 when
// any is bad.
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/pprof/profile"
)

func check(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return fmt.Errorf("Parse: %v", err)
	}
	if err := p.CheckValid(); err != nil {
		return fmt.Errorf("CheckValid: %v", err)
	}
	fmt.Printf("ok %s: %d samples, %d locations\n", filepath.Base(name), len(p.Sample), len(p.Location))
	return nil
}

func main() {
	bad := false
	for _, name := range os.Args[1:] {
		if err := check(name); err != nil {
			fmt.Printf("bad %s: %v\n", filepath.Base(name), err)
			bad = true
		}
	}
	if bad {
		os.Exit(1)
	}
}
