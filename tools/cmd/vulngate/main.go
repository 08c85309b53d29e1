// Command vulngate reads the JSON that "govulncheck -format json" writes on
// its standard input and decides what fails CI:
//
//   - a vulnerability that the module's code reaches (a symbol-level finding
//     with a function in its trace) in a module dependency fails: the fix
//     is a dependency upgrade in this repository;
//   - one in the standard library is reported with the Go release that
//     fixes it, and fails only with -stdlib: the fix is the toolchain that
//     builds the program, which is the builder's, not a go.mod line;
//   - a vulnerability in a required module or imported package that the
//     code does not call is listed and does not fail.
//
// The summary names each finding once: its id, the module, the version
// found and the fixed version.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
)

type frame struct {
	Module   string `json:"module"`
	Version  string `json:"version"`
	Package  string `json:"package"`
	Function string `json:"function"`
}

type message struct {
	Finding *struct {
		OSV          string  `json:"osv"`
		FixedVersion string  `json:"fixed_version"`
		Trace        []frame `json:"trace"`
	} `json:"finding"`
}

func main() {
	stdlib := flag.Bool("stdlib", false, "fail on reached standard-library vulnerabilities too")
	name := flag.String("name", "", "what was scanned, for the summary")
	flag.Parse()

	type key struct{ id, module string }
	type info struct {
		version, fixed string
		level          string // "called", "imported", "required"
	}
	found := map[key]*info{}
	rank := map[string]int{"required": 0, "imported": 1, "called": 2}
	dec := json.NewDecoder(os.Stdin)
	for {
		var m message
		if err := dec.Decode(&m); err == io.EOF {
			break
		} else if err != nil {
			fmt.Fprintln(os.Stderr, "vulngate: reading govulncheck's JSON:", err)
			os.Exit(2)
		}
		f := m.Finding
		if f == nil || len(f.Trace) == 0 {
			continue
		}
		top := f.Trace[0]
		level := "required"
		switch {
		case top.Function != "":
			level = "called"
		case top.Package != "":
			level = "imported"
		}
		k := key{f.OSV, top.Module}
		if old, ok := found[k]; !ok || rank[level] > rank[old.level] {
			found[k] = &info{top.Version, f.FixedVersion, level}
		}
	}
	keys := make([]key, 0, len(found))
	for k := range found {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].module != keys[j].module {
			return keys[i].module < keys[j].module
		}
		return keys[i].id < keys[j].id
	})
	failed := 0
	for _, k := range keys {
		in := found[k]
		verdict := "listed"
		if in.level == "called" && (k.module != "stdlib" || *stdlib) {
			verdict = "FAIL"
			failed++
		} else if in.level == "called" {
			verdict = "toolchain"
		}
		fixed := in.fixed
		if fixed == "" {
			fixed = "no fix yet"
		}
		fmt.Printf("%s: %-9s %s %s in %s@%s (fixed in %s)\n", *name, verdict, in.level, k.id, k.module, in.version, fixed)
	}
	fmt.Printf("%s: %d finding(s), %d failing\n", *name, len(keys), failed)
	if failed > 0 {
		os.Exit(1)
	}
}
