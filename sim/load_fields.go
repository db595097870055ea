package sim

import "time"

// fieldsOf says where the plain fields of one YAML mapping (the lesson, an
// actor, a step) go, by how each is decoded: a single value, a text, true or
// false, a duration. A field that needs more (a list, a number, a position
// kept) is a case of the decoder's own.
type fieldsOf struct {
	strs      map[string]*string
	texts     map[string]*Text
	bools     map[string]*bool
	durations map[string]*time.Duration
}

// decodeFields decodes fields, those of the mapping named in ("lesson",
// "actor", "step"), in the order written: a plain field into its place in
// plain, any other through other, which reports whether it knows the key. A
// key neither knows is an unknown-field error.
func (d *decoder) decodeFields(fields []keyValue, in string, plain fieldsOf, other func(kv keyValue) bool) {
	for _, kv := range fields {
		d.saw(kv.path, kv)
		if d.plainField(kv, plain) || other(kv) {
			continue
		}
		d.errorf(kv.keyNode, "", M("lesson.unknown-field", "Field", kv.key, "In", in), "unknown field %q in %s", kv.key, in)
	}
}

// plainField decodes kv into its place in plain and reports whether it had one.
func (d *decoder) plainField(kv keyValue, plain fieldsOf) bool {
	if p, ok := plain.strs[kv.key]; ok {
		*p = d.str(kv)
	} else if p, ok := plain.texts[kv.key]; ok {
		*p = d.text(kv)
	} else if p, ok := plain.bools[kv.key]; ok {
		*p = d.boolean(kv)
	} else if p, ok := plain.durations[kv.key]; ok {
		*p = d.duration(kv)
	} else {
		return false
	}
	return true
}
