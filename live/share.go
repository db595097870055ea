package live

import (
	"fmt"
	"net/url"
	"path"

	"lockstep/explore"
	"lockstep/proxy"
	"lockstep/sim"
)

// openURL is the player's address of a saved lesson: its share link
// (/explore?t=CODE), as the import form redirects to after loading a
// lesson file (web's serveImport). The code carries the lesson and the
// variant file's text (explore.Encode), nothing is stored on the server,
// and opening it loads both again with every check. The lesson is loaded
// here with the same rules first, the variant file read from saved
// itself, so a link is given only for a lesson the player can open; an
// error says why not (a lesson too long for a share code, 48 KiB).
func openURL(saved proxy.Saved, locales []sim.Locale, loc sim.Locale) (string, error) {
	opts := sim.Options{Locales: locales}
	opts.Variant = func(written string) (*sim.VariantDef, error) {
		if path.Clean(written) != path.Clean("./"+saved.VariantFile) {
			return nil, fmt.Errorf("live: the saved lesson names variant %q, not its own %q", written, saved.VariantFile)
		}
		return sim.LoadVariant(saved.VariantFile, saved.Variant, func(p string) ([]byte, error) {
			return nil, fmt.Errorf("live: a saved variant names no script file (%s); its scripts are inline", p)
		})
	}
	l, err := opts.Load(saved.LessonFile, saved.Lesson)
	if err != nil {
		return "", err
	}
	code, err := explore.Encode(l, explore.Origin{}, sim.Options{Locales: locales})
	if err != nil {
		return "", err
	}
	return "/explore?" + url.Values{"t": {code}, "lang": {string(loc)}}.Encode(), nil
}
