package sim

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
)

// Every rule of the variant format (docs/variant-format.md) is checked
// here, once; LoadVariant only parses.

var variantNamePattern = regexp.MustCompile(`^[a-z0-9-]+$`)

// ValidateVariant checks a VariantDef against every rule of the variant
// format. It returns LoadErrors (wrapping ErrInvalidLesson), or nil.
func ValidateVariant(d *VariantDef) error {
	if errs := validateVariant(d, nil); len(errs) > 0 {
		return errs
	}
	return nil
}

type variantValidator struct {
	d    *VariantDef
	bad  map[string]bool
	errs LoadErrors
}

func (v *variantValidator) add(path string, p Pos, m Msg, format string, args ...any) {
	if p == (Pos{}) {
		p = v.d.at[path]
	}
	if p == (Pos{}) {
		p = v.d.at[""]
	}
	if p == (Pos{}) && v.d.File != "" {
		p = Pos{1, 1}
	}
	v.errs = append(v.errs, LoadError{File: v.d.File, Pos: p, Path: path, Msg: fmt.Sprintf(format, args...), Problem: m})
}

// warn records a warning at path (see VariantDef.Warnings).
func (v *variantValidator) warn(path string, p Pos, m Msg, format string, args ...any) {
	n := len(v.errs)
	v.add(path, p, m, format, args...)
	v.d.Warnings = append(v.d.Warnings, v.errs[n])
	v.errs = v.errs[:n]
}

func (v *variantValidator) oneOf(path, got string, want []string) bool {
	if v.bad[path] {
		return false
	}
	if got == "" {
		v.add(path, Pos{}, M("variant.missing", "Field", path), "missing required field %q", path)
		return false
	}
	if !slices.Contains(want, got) {
		w := strings.Join(want, ", ")
		v.add(path, Pos{}, M("variant.unknown-value", "Field", path, "Got", got, "Want", w), "%s: unknown value %q (want one of %s)", path, got, w)
		return false
	}
	return true
}

func validateVariant(d *VariantDef, bad map[string]bool) LoadErrors {
	if d.at == nil {
		d.at = map[string]Pos{}
	}
	v := &variantValidator{d: d, bad: bad}
	d.Warnings = nil
	switch {
	case v.bad["name"]:
	case d.Name == "":
		v.add("name", Pos{}, M("variant.missing", "Field", "name"), "missing required field %q", "name")
	case !variantNamePattern.MatchString(d.Name):
		v.add("name", Pos{}, M("variant.name", "Name", d.Name), "name %q: want lowercase letters, digits and '-'", d.Name)
	case d.Builtin == false && variants[d.Name] != nil:
		v.add("name", Pos{}, M("variant.name-taken", "Name", d.Name), "name %q is a built-in variant's; choose another", d.Name)
	}
	v.lock()
	v.owner()
	v.oneOf("reentry", d.Reentry, []string{ReentryRedis, ReentryClient, ReentryNone})
	if d.Reentry == ReentryRedis && d.Lock.Type == TypeString && d.Lock.Count == "" {
		v.add("reentry", Pos{}, M("variant.reentry-string"), "reentry: redis needs a Hash lock that keeps hold counts; a String lock counts nothing (use client or none)")
	}
	v.keys()
	v.countKey()
	for _, s := range []struct {
		role string
		def  *ScriptDef
	}{{"acquire", d.Acquire}, {"release", d.Release}, {"renew", d.Renew}, {"finish_release", d.FinishRelease}} {
		if s.def == nil {
			if s.role == "acquire" || s.role == "release" {
				v.add(s.role, Pos{}, M("variant.missing", "Field", s.role), "missing required field %q", s.role)
			}
			continue
		}
		v.script(s.role, s.def)
	}
	if d.Renew != nil && !v.bad["renew.every"] {
		switch {
		case d.RenewEvery == (Period{}):
			v.add("renew.every", d.at["renew"], M("variant.missing", "Field", "renew.every"), "missing required field %q", "renew.every")
		case d.RenewEvery.MS == 0 && d.RenewEvery.LeaseDiv < 2:
			v.add("renew.every", Pos{}, M("variant.period", "Got", fmt.Sprintf("lease/%d", d.RenewEvery.LeaseDiv)), "renew.every: lease/N needs N of at least 2, so a renewal comes before the lease ends")
		}
	}
	v.twoStep()
	return v.errs
}

func (v *variantValidator) lock() {
	d := v.d
	if !v.oneOf("lock.type", string(d.Lock.Type), []string{string(TypeHash), string(TypeString)}) {
		return
	}
	if d.Lock.Type == TypeString {
		if d.Lock.Layout == "" {
			d.Lock.Layout = LayoutOwnerValue
		}
		v.oneOf("lock.layout", d.Lock.Layout, []string{LayoutOwnerValue})
		return
	}
	v.oneOf("lock.layout", d.Lock.Layout, []string{LayoutFieldPerOwner, LayoutOwnerAndCount})
}

var ownerKinds = []string{OwnerGrantToken, OwnerRequestID, OwnerProcessID, OwnerThreadID}

func (v *variantValidator) owner() {
	d := v.d
	if v.bad["owner"] {
		return
	}
	if !strings.Contains(d.Owner, "{") {
		v.oneOf("owner", d.Owner, ownerKinds)
		return
	}
	rest, parts := d.Owner, 0
	for {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			v.add("owner", Pos{}, M("variant.owner-template", "Owner", d.Owner), "owner %q: a '{' without its '}'", d.Owner)
			return
		}
		name := rest[i+1 : i+j]
		if !slices.Contains([]string{"grant_token", "request_id", "process_id", "thread_id"}, name) {
			v.add("owner", Pos{}, M("variant.owner-part", "Part", name), "owner: unknown part {%s} (want {grant_token}, {request_id}, {process_id} or {thread_id})", name)
			return
		}
		parts++
		rest = rest[i+j+1:]
	}
}

func (v *variantValidator) keys() {
	seen := map[string]bool{}
	for _, k := range v.d.Keys {
		p := "keys." + k.ID
		switch {
		case slices.Contains(ValueNames, k.ID):
			v.add(p, Pos{}, M("variant.key-id-taken", "ID", k.ID), "keys: %q is a value name; call the key something else", k.ID)
		case seen[k.ID]:
			continue
		}
		seen[k.ID] = true
		if !v.oneOf(p+".role", k.Role, []string{RoleState, RoleChannel, RoleUnlockLatch}) {
			continue
		}
		switch {
		case v.bad[p+".name"]:
		case k.Name == "":
			v.add(p+".name", v.d.at[p], M("variant.missing", "Field", p+".name"), "missing required field %q", p+".name")
		case !strings.Contains(k.Name, "{lock}") && !strings.Contains(k.Name, "{lock_key}"):
			v.add(p+".name", Pos{}, M("variant.key-name-lock", "Key", k.ID), "keys.%s.name: put {lock} (or {lock_key}) in the name, so each lock has its own", k.ID)
		case k.Role == RoleUnlockLatch && !strings.Contains(k.Name, "{unlock_id}"):
			v.add(p+".name", Pos{}, M("variant.key-name-unlock", "Key", k.ID), "keys.%s.name: an unlock-latch key is one per unlock call: put {unlock_id} in the name", k.ID)
		case k.Role != RoleUnlockLatch && strings.Contains(k.Name, "{unlock_id}"):
			v.add(p+".name", Pos{}, M("variant.key-name-unlock-role", "Key", k.ID), "keys.%s.name: {unlock_id} belongs only in an unlock-latch key's name", k.ID)
		case k.Name == "{lock_key}" || k.Name == lockKeyPrefix+"{lock}":
			v.add(p+".name", Pos{}, M("variant.key-name-is-lock", "Key", k.ID), "keys.%s.name: that is the lock key itself; name a key beside it, such as {lock_key}:count", k.ID)
		case hasReservedPrefix(k.Name) && !strings.HasPrefix(k.Name, lockKeyPrefix+"{lock}"):
			v.add(p+".name", Pos{}, M("variant.key-name-reserved", "Key", k.ID), "keys.%s.name: lock:, resource: and fence: are Lockstep's own key prefixes (a key built on the lock key starts with {lock_key} or lock:{lock})", k.ID)
		}
		if k.Role == RoleChannel {
			if k.Type != "" {
				v.add(p+".type", Pos{}, M("variant.channel-type", "Key", k.ID), "keys.%s: a channel is not a key and has no type", k.ID)
			}
			continue
		}
		v.oneOf(p+".type", string(k.Type), []string{string(TypeHash), string(TypeString)})
	}
}

// countKey checks lock.count: a String lock's hold count kept in a second
// key, which must be a String key of role state under keys.
func (v *variantValidator) countKey() {
	d := v.d
	if d.Lock.Count == "" || v.bad["lock.count"] {
		return
	}
	k := d.key(d.Lock.Count)
	switch {
	case d.Lock.Type != TypeString:
		v.add("lock.count", Pos{}, M("variant.count-key-hash"), "lock.count: a Hash lock keeps its counts in its own fields; a count key is for a String lock")
	case k == nil:
		want := []string{}
		for _, k := range d.Keys {
			want = append(want, k.ID)
		}
		v.add("lock.count", Pos{}, M("variant.count-key-unknown", "Key", d.Lock.Count, "Want", strings.Join(want, ", ")), "lock.count: no key %q under keys (want one of %s)", d.Lock.Count, strings.Join(want, ", "))
	case k.Role != RoleState || k.Type != TypeString:
		v.add("lock.count", Pos{}, M("variant.count-key-kind", "Key", d.Lock.Count), "lock.count: key %s must be a String of role state, whose value is the hold count", d.Lock.Count)
	case d.Reentry != ReentryRedis:
		v.add("lock.count", Pos{}, M("variant.count-key-reentry"), "lock.count: a count kept in Redis needs reentry: redis")
	}
}

func hasReservedPrefix(name string) bool {
	for _, p := range []string{lockKeyPrefix, resourceKeyPrefix, fenceKeyPrefix} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}

// outcomesOf are the outcomes a reply map of each script may give.
var outcomesOf = map[string][]string{
	"acquire":        {string(Acquired), string(Reentered), string(Busy), string(Lost), OutHeld},
	"release":        {string(Released), string(StillHeld), string(NotOwner), string(Pending), OutReleasedOrHeld},
	"renew":          {string(Renewed), string(Gone), string(Lost)},
	"finish_release": {string(Released), string(NotOwner)},
}

// valuesOf are the named values each list may use: KEYS take keys, ARGV
// the rest.
var (
	keyValues = []string{ValLock, ValFenceKey}
	argValues = []string{ValOwner, ValLeaseMS, ValLeaseS, ValOutermost, ValFenceTTLMS, ValUnlockID, ValLockName}
)

func (v *variantValidator) script(role string, s *ScriptDef) {
	d := v.d
	if s.Script == nil {
		if !v.bad[role+".script"] && !v.bad[role+".source"] && !v.bad[role] {
			v.add(role, d.at[role], M("variant.no-script", "Script", role), "%s: give the script's file (script: x.lua) or its text (source: |)", role)
		}
	} else if err := compileLua(s.Script); err != nil {
		v.errs = append(v.errs, *err)
	}
	for _, list := range []struct {
		name  string
		refs  []ValueRef
		allow []string
	}{{"keys", s.Keys, keyValues}, {"argv", s.Args, argValues}} {
		fencing := false
		for _, ref := range list.refs {
			p := role + "." + list.name
			if ref.IsLiteral {
				if list.name == "keys" {
					v.add(p, ref.Pos, M("variant.literal-key", "Script", role), "%s.keys: a literal is no key of this lock; declare the key under keys, with {lock} in its name", role)
				}
				continue
			}
			if ref.Name == "\x00bad" {
				continue
			}
			k := d.key(ref.Name)
			switch {
			case list.name == "keys" && ref.Name == ValOwner:
				// Some public scripts take the owner id as a key. It is
				// passed as it is (a value, not a key of the run's
				// namespace), which a single Redis accepts; say why it is
				// a poor design rather than refuse it (issue 33).
				v.warn(p, ref.Pos, M("variant.owner-in-keys", "Script", role), "%s.keys: the owner id in KEYS is a value, not a key: Redis Cluster refuses a script whose KEYS hash to other slots than the lock's (CROSSSLOT), and an ACL that confines the user to its own key names refuses it too; pass it in ARGV where you can", role)
			case list.name == "keys" && k != nil:
				if k.Role == RoleUnlockLatch && role != "release" {
					v.add(p, ref.Pos, M("variant.value-not-here", "Value", ref.Name, "Script", role), "%s: %s is not known to a %s call", p, ref.Name, role)
				}
			case !slices.Contains(list.allow, ref.Name):
				want := strings.Join(list.allow, ", ")
				if list.name == "keys" {
					for _, k := range d.Keys {
						want += ", " + k.ID
					}
					// KEYS takes the owner id too, with a warning
					// (variant.owner-in-keys): the hint names all it
					// takes (a fresh review of issue 33).
					want += ", " + ValOwner
				}
				other := keyValues
				if list.name == "keys" {
					other = argValues
				}
				if slices.Contains(other, ref.Name) || d.key(ref.Name) != nil {
					v.add(p, ref.Pos, M("variant.value-wrong-list", "Value", ref.Name, "List", list.name), "%s: %s does not belong in %s", p, ref.Name, strings.ToUpper(list.name))
				} else {
					v.add(p, ref.Pos, M("variant.unknown-value-name", "Value", ref.Name, "Want", want), "%s: unknown value %q (want one of %s)", p, ref.Name, want)
				}
				continue
			case ref.Name == ValOutermost && role != "acquire",
				ref.Name == ValUnlockID && role != "release":
				v.add(p, ref.Pos, M("variant.value-not-here", "Value", ref.Name, "Script", role), "%s: %s is not known to a %s call", p, ref.Name, role)
			}
			isFence := ref.Name == ValFenceKey || ref.Name == ValFenceTTLMS
			if isFence && role != "acquire" {
				v.add(p, ref.Pos, M("variant.value-not-here", "Value", ref.Name, "Script", role), "%s: %s is not known to a %s call", p, ref.Name, role)
			}
			if fencing && !isFence {
				v.add(p, ref.Pos, M("variant.fence-last", "List", list.name), "%s: fence_key and fence_ttl_ms come last: a lesson without fencing leaves them out", p)
			}
			fencing = fencing || isFence
		}
	}
	v.arrayReply(role, s)
	v.replies(role, s)
}

func (v *variantValidator) arrayReply(role string, s *ScriptDef) {
	p := role + ".array_reply"
	if len(s.ArrayReply) == 0 || v.bad[p] {
		if role == "acquire" && s.uses(ValFenceKey) {
			v.add(role+".keys", Pos{}, M("variant.fence-reply"), "acquire: a script given fence_key must reply its fencing token: add array_reply: [reply, fencing_token]")
		}
		return
	}
	replies, fences := 0, 0
	for _, r := range s.ArrayReply {
		if !v.oneOf(p, r, []string{ElemReply, ElemFencingToken, ElemIgnore}) {
			return
		}
		switch r {
		case ElemReply:
			replies++
		case ElemFencingToken:
			fences++
		}
	}
	switch {
	case replies != 1:
		v.add(p, Pos{}, M("variant.array-reply"), "%s: exactly one element is the reply", p)
	case fences > 1 || fences == 1 && role != "acquire":
		v.add(p, Pos{}, M("variant.array-fence"), "%s: only an acquire's reply carries a fencing token, once", p)
	case fences == 1 && !s.uses(ValFenceKey):
		v.add(p, Pos{}, M("variant.fence-reply"), "acquire: a script given fence_key must reply its fencing token: add array_reply: [reply, fencing_token]")
	}
}

func (v *variantValidator) replies(role string, s *ScriptDef) {
	p := role + ".replies"
	if v.bad[p] {
		return
	}
	if len(s.Replies) == 0 {
		v.add(p, v.d.at[role], M("variant.no-replies", "Script", role), "%s: missing its reply map (replies: {reply: outcome, ...})", role)
		return
	}
	seen := map[ReplyMatch]bool{}
	for _, r := range s.Replies {
		if seen[r.Match] {
			v.add(p, r.Pos, M("variant.reply-twice", "Reply", r.Match.String()), "%s: reply %s is listed twice (nil and false are one reply: Redis turns Lua false into nil)", p, r.Match)
			continue
		}
		seen[r.Match] = true
		if r.Match.Kind == MatchOwner && role != "release" && role != "finish_release" {
			v.add(p, r.Pos, M("variant.reply-owner", "Script", role), "%s: owner matches the caller's owner id, which only a release compares", p)
		}
		if r.Match.Kind == MatchError {
			s.MapsErrors = true
		}
		want := outcomesOf[role]
		if !slices.Contains(want, r.Outcome) {
			w := strings.Join(want, ", ")
			v.add(p, r.Pos, M("variant.reply-outcome", "Outcome", r.Outcome, "Script", role, "Want", w), "%s: unknown outcome %q for %s (want one of %s)", p, r.Outcome, role, w)
		}
	}
}

func (v *variantValidator) twoStep() {
	d := v.d
	if d.Release == nil {
		return
	}
	pending := slices.ContainsFunc(d.Release.Replies, func(r ReplyRule) bool { return r.Outcome == string(Pending) })
	switch {
	case pending && d.FinishRelease == nil:
		v.add("release.replies", Pos{}, M("variant.pending-no-finish"), "release: PENDING needs a finish_release script that sends the second round trip")
	case !pending && d.FinishRelease != nil:
		v.add("finish_release", Pos{}, M("variant.finish-no-pending"), "finish_release: the release never answers PENDING, so the second round trip never comes")
	}
}

// compileLua compiles s with gopher-lua (the Lua that miniredis runs) and
// returns its first error at the script's own line and column (in the
// variant file, for an inline script: past the block's indentation), or
// nil. gopher-lua places a syntax error at the last character of the token
// it stopped at, and an unfinished string on the line after it: the error
// names the token's first character and the string's opening quote, where
// Redis (user_script:LINE) puts them too. A script that compiles there may
// still use what Redis's Lua 5.1 does not have (goto and its labels, which
// gopher-lua takes from Lua 5.2): that is refused here, at its place,
// rather than by a real Redis at the first step (lua51Only).
func compileLua(s *Script) *LoadError {
	chunk, err := parse.Parse(strings.NewReader(s.Source), s.Name)
	var line, col int
	var detail, near string
	atEnd := false
	if err == nil {
		_, err = lua.Compile(chunk, s.Name)
		var ce *lua.CompileError
		if errors.As(err, &ce) {
			line, detail = ce.Line, ce.Message
		}
	} else {
		var pe *parse.Error
		if errors.As(err, &pe) {
			line, col, detail = pe.Pos.Line, pe.Pos.Column, pe.Message
			if line == parse.EOF {
				// The script ended too soon: name its last line.
				line, col = strings.Count(strings.TrimRight(s.Source, "\n"), "\n")+1, 1
				atEnd = true
			}
			near = pe.Token
			line, col = tokenStart(s.Source, line, col, detail, near)
		}
	}
	if err == nil {
		return lua51Only(s)
	}
	if detail == "" {
		detail = strings.TrimSpace(err.Error())
	}
	line = max(line, 1)
	// Detail is gopher-lua's own words, which the catalogue quotes; where
	// and near what are ours, words of the catalogue.
	msg := detail
	if atEnd {
		msg += " at the end of the script"
	}
	if near != "" {
		msg += " near '" + near + "'"
	}
	e := &LoadError{File: s.file, Pos: Pos{s.line0 + line, s.col0 + max(col, 1)}, Msg: fmt.Sprintf("script %s does not compile: %s", s.Name, msg),
		Problem: M("variant.lua-error", "Script", s.Name, "Detail", detail, "AtEnd", atEnd, "Near", near)}
	return e
}

// tokenStart moves a gopher-lua syntax error at line and col (1-based) of
// src, about token near, to where the token starts: its first character
// (gopher-lua names the last), or for an unfinished string the quote that
// opens it (gopher-lua names the next line, the newline having ended it).
// A place that does not hold the token stays as it is.
func tokenStart(src string, line, col int, detail, near string) (int, int) {
	lines := strings.Split(src, "\n")
	if strings.HasPrefix(detail, "unterminated string") && line >= 2 && line-2 < len(lines) {
		prev := lines[line-2]
		for _, q := range []string{"'", "\""} {
			if k := strings.LastIndex(prev, q+near); k >= 0 {
				return line - 1, k + 1
			}
		}
		return line, col
	}
	if near == "" || line < 1 || line > len(lines) {
		return line, col
	}
	text, start := lines[line-1], col-len(near)
	if start >= 0 && col <= len(text) && text[start:col] == near {
		return line, start + 1
	}
	return line, col
}

// lua51Only refuses what gopher-lua compiles but Redis's Lua 5.1 does not
// (goto and ::labels::, from Lua 5.2), at its first use in s: such a
// script would run on the embedded Redis and fail to compile on a real
// one, so the two would not give the same frames. Nil when s has none.
func lua51Only(s *Script) *LoadError {
	sc := parse.NewScanner(strings.NewReader(s.Source), s.Name)
	lx := &parse.Lexer{}
	for {
		tk, err := sc.Scan(lx)
		if err != nil || tk.Type <= 0 {
			return nil
		}
		lx.PrevTokenType = tk.Type
		if tk.Type == parse.TGoto || tk.Type == parse.T2Colon {
			return &LoadError{File: s.file, Pos: Pos{s.line0 + tk.Pos.Line, s.col0 + max(tk.Pos.Column, 1)},
				Msg:     fmt.Sprintf("script %s uses %s, which Redis's Lua 5.1 does not have (goto and labels came in Lua 5.2)", s.Name, tk.Str),
				Problem: M("variant.lua-52", "Script", s.Name, "Token", tk.Str)}
		}
	}
}
