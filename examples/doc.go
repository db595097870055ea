// Package examples holds example files for users of Lockstep: variant
// files of real libraries' locks (variants/, docs/variant-format.md), each
// with a lesson, written from the libraries' public semantics in our own
// Lua. Its tests run them on both backends.
package examples
