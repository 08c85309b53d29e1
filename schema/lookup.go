package schema

// Definition returns the named definition, or nil.
func (m *Model) Definition(name string) *Definition {
	if m.byName == nil {
		m.index()
	}
	return m.byName[name]
}

// index builds the name lookup. Load calls it, so a loaded Model is safe
// for concurrent readers; a hand-built one is indexed on first use.
func (m *Model) index() {
	m.byName = make(map[string]*Definition, len(m.Definitions))
	for _, d := range m.Definitions {
		m.byName[d.Name] = d
	}
}

// Resolve follows references, and alias chains such as EmptyResult →
// Result, to the schema they name. It returns t itself when t is not a
// reference, and the last reference when one dangles.
func (m *Model) Resolve(t *Type) *Type {
	for i := 0; t != nil && t.Kind == KindRef && i < 16; i++ {
		d := m.Definition(t.Ref)
		if d == nil {
			return t
		}
		t = d.Type
	}
	return t
}
