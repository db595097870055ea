// fill, the one text helper the page's modules share: a translated
// template from the page's data-t-* attributes, filled in.

// fill replaces each {name} of template with values[name], leaving a
// placeholder it has no value for as it is.
export function fill(template, values) {
  return (template || "").replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));
}
