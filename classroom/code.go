// Package classroom is the domain of a class (issue 20): a presenter who
// shows a lesson, a drill, a fork or a search result to a room, and
// students who follow the presenter's step on their own devices and answer
// the questions the presenter asks. It makes class codes and presenter
// keys, keeps a class's state (what is shown, the step, the question, the
// answers, the score per step), exports the scores as CSV and decides when
// an idle class ends. It does no I/O beyond the random source it is given
// and reads no clock: every call that depends on time takes now.
//
// The wire forms (the State JSON, the bus messages) are documented in
// docs/classroom.md; package web carries them over websockets and a
// classbus.Bus.
package classroom

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
)

// CodeAlphabet is the letters of a class code: digits and capitals without
// those a room misreads (0 and O, 1, I and L).
const CodeAlphabet = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"

// CodeLen is a class code's length: 31^6 ≈ 8.9e8 codes, with joins of
// unknown codes rate-limited per address (web.Config.ClassJoinRate).
const CodeLen = 6

// KeyBytes is a presenter key's size: 128 bits.
const KeyBytes = 16

// ErrBadCode is what ParseCode returns for a string that is not a class
// code.
var ErrBadCode = errors.New("classroom: not a class code")

// NewCode returns a fresh class code read from r (crypto/rand.Reader when
// nil), each letter uniform over CodeAlphabet. It returns r's error.
func NewCode(r io.Reader) (string, error) {
	if r == nil {
		r = rand.Reader
	}
	out := make([]byte, 0, CodeLen)
	var b [1]byte
	// Rejection sampling: bytes past the largest multiple of the alphabet
	// are drawn again, so no letter is likelier than another.
	limit := 256 - 256%len(CodeAlphabet)
	for len(out) < CodeLen {
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return "", fmt.Errorf("classroom: class code: %w", err)
		}
		if int(b[0]) >= limit {
			continue
		}
		out = append(out, CodeAlphabet[int(b[0])%len(CodeAlphabet)])
	}
	return string(out), nil
}

// ParseCode returns s as a class code: trimmed, in capitals, CodeLen
// letters of CodeAlphabet; else ErrBadCode.
func ParseCode(s string) (string, error) {
	s = strings.ToUpper(strings.TrimSpace(s))
	if len(s) != CodeLen {
		return "", ErrBadCode
	}
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(CodeAlphabet, s[i]) < 0 {
			return "", ErrBadCode
		}
	}
	return s, nil
}

// NewKey returns a fresh presenter key read from r (crypto/rand.Reader when
// nil): KeyBytes random bytes as lower-case hex. It returns r's error.
func NewKey(r io.Reader) (string, error) {
	return randomHex(r, KeyBytes, "presenter key")
}

// NewStudentID returns a fresh student id (128 bits, lower-case hex) read
// from r (crypto/rand.Reader when nil).
func NewStudentID(r io.Reader) (string, error) {
	return randomHex(r, KeyBytes, "student id")
}

func randomHex(r io.Reader, n int, what string) (string, error) {
	if r == nil {
		r = rand.Reader
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return "", fmt.Errorf("classroom: %s: %w", what, err)
	}
	return hex.EncodeToString(b), nil
}

// ValidID reports whether s has the form of a presenter key or a student
// id: 2*KeyBytes lower-case hex digits.
func ValidID(s string) bool {
	if len(s) != 2*KeyBytes {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// KeyHash is what a class keeps of its presenter key: its SHA-256, hex.
func KeyHash(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// KeyMatches reports whether key is the presenter key of hash, in constant
// time.
func KeyMatches(hash, key string) bool {
	if !ValidID(key) {
		return false
	}
	got := KeyHash(key)
	return subtle.ConstantTimeCompare([]byte(got), []byte(hash)) == 1
}
