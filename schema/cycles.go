package schema

import "strings"

// checkRequiredCycles refuses a definition that must contain itself: an
// object whose required, non-nullable members lead, through objects only,
// back to it (X requires next: X). No finite JSON value satisfies such a
// schema, and a type that holds itself by value cannot be declared, so the
// error names the member that closes the loop rather than let generation
// produce code that does not compile. Arrays, maps, unions, optional and
// nullable members break a loop: they can end it.
func checkRequiredCycles(m *Model, file string) error {
	const (
		unseen = iota
		onPath
		done
	)
	state := map[string]int{}
	var path []string // definition names and member names, for the message

	var visitDef func(name string) *Error
	var visitType func(t *Type) *Error
	visitType = func(t *Type) *Error {
		if t == nil || t.Kind != KindObject {
			return nil
		}
		for _, p := range t.Properties {
			if !p.Required || p.Type.Nullable {
				continue
			}
			pt := p.Type
			if pt.Kind == KindRef {
				// Follow the alias chain (Z → X), every name of it is on the way.
				var names []string
				for pt != nil && pt.Kind == KindRef && indexOf(names, pt.Ref) < 0 {
					names = append(names, pt.Ref)
					d := m.Definition(pt.Ref)
					if d == nil {
						break
					}
					pt = d.Type
				}
				for _, n := range names {
					if state[n] == onPath {
						loop := append(append([]string(nil), path...), p.Name, n)
						return errAt(file, p.Type.Pointer, "required member makes %s contain itself (%s): no finite JSON value is valid; make a member of the loop optional or nullable",
							n, strings.Join(loop[max(indexOf(loop, n), 0):], " → "))
					}
				}
				path = append(path, p.Name)
				err := visitDef(names[0])
				path = path[:len(path)-1]
				if err != nil {
					return err
				}
				continue
			}
			path = append(path, p.Name)
			err := visitType(pt)
			path = path[:len(path)-1]
			if err != nil {
				return err
			}
		}
		return nil
	}
	visitDef = func(name string) *Error {
		if state[name] != unseen {
			return nil
		}
		d := m.Definition(name)
		if d == nil {
			return nil
		}
		state[name] = onPath
		path = append(path, name)
		var err *Error
		if d.Type.Kind == KindRef {
			// An alias: its target is reached through it by value.
			if state[d.Type.Ref] == onPath {
				err = errAt(file, d.Pointer, "%s is an alias of itself", name)
			} else {
				err = visitDef(d.Type.Ref)
			}
		} else {
			err = visitType(d.Type)
		}
		path = path[:len(path)-1]
		state[name] = done
		return err
	}
	for _, d := range m.Definitions {
		if err := visitDef(d.Name); err != nil {
			return err
		}
	}
	return nil
}

// indexOf is the index of s in list, or -1.
func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}
