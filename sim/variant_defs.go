package sim

// BuiltinVariantDef returns the definition of the built-in variant named
// name (its file under sim/variants, as loaded) and whether it exists. The
// definition is shared: callers read it and must not change it (the
// designs page derives its table from it).
func BuiltinVariantDef(name string) (*VariantDef, bool) {
	v, ok := variants[name].(*defVariant)
	if !ok {
		return nil, false
	}
	return v.d, true
}
