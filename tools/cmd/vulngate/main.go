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
//     code does not call is listed with -v and does not fail; with
//     -fail-imported (for "govulncheck -scan package", which does not look
//     for calls) an imported vulnerable package of a dependency fails.
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
	"strconv"
	"strings"
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
	verbose := flag.Bool("v", false, "list the findings that are not reached too")
	failImported := flag.Bool("fail-imported", false, "fail on a vulnerable imported package of a dependency too (for a package-level scan, which cannot tell whether it is reached)")
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
	var stdlibIDs []string
	stdlibFix := ""
	for _, k := range keys {
		in := found[k]
		fixed := in.fixed
		if fixed == "" {
			fixed = "no fix yet"
		}
		switch {
		case (in.level == "called" || in.level == "imported" && *failImported) && (k.module != "stdlib" || *stdlib):
			failed++
			fmt.Printf("%s: FAIL %s in %s@%s is %s by the code (fixed in %s)\n", *name, k.id, k.module, in.version, map[string]string{"called": "reached", "imported": "imported"}[in.level], fixed)
		case in.level == "called":
			stdlibIDs = append(stdlibIDs, k.id)
			if semverLess(stdlibFix, in.fixed) {
				stdlibFix = in.fixed
			}
		case *verbose:
			fmt.Printf("%s: %s %s in %s@%s, not reached (fixed in %s)\n", *name, in.level, k.id, k.module, in.version, fixed)
		}
	}
	if len(stdlibIDs) > 0 {
		fmt.Printf("%s: the standard library of the Go that ran this has %d reached vulnerabilities (%s): build with Go %s or newer\n",
			*name, len(stdlibIDs), strings.Join(stdlibIDs, " "), strings.TrimPrefix(stdlibFix, "v"))
	}
	fmt.Printf("%s: %d finding(s), %d failing\n", *name, len(keys), failed)
	if failed > 0 {
		os.Exit(1)
	}
}

// semverLess reports whether version a (v1.2.3, "" the least) is older
// than b, comparing the numeric parts.
func semverLess(a, b string) bool {
	pa, pb := strings.Split(strings.TrimPrefix(a, "v"), "."), strings.Split(strings.TrimPrefix(b, "v"), ".")
	for i := 0; i < len(pa) || i < len(pb); i++ {
		var x, y int
		if i < len(pa) {
			x, _ = strconv.Atoi(pa[i])
		}
		if i < len(pb) {
			y, _ = strconv.Atoi(pb[i])
		}
		if x != y {
			return x < y
		}
	}
	return false
}
