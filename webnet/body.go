package webnet

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"os"
	"time"
)

// ReadForm parses request r's form (multipart, or URL-encoded for a
// paste; multipart files up to memory bytes in memory) and reads what the
// form parser left of the body (all of it for another encoding), the body
// bounded by limit bytes whatever its encoding and read within timeout of
// now. tooBig or timedOut say why it failed, if so: the caller answers
// 413 or 408. A multipart body that ends before its closing boundary (a
// connection cut, an upload stopped) or breaks the multipart format is a
// *BrokenFormError, with r's form holding what arrived: the fields before
// the break whole, and the one it cut as far as it came, so that the page
// can give the learner back what they typed.
func ReadForm(w http.ResponseWriter, r *http.Request, limit, memory int64, timeout time.Duration) (tooBig, timedOut bool, err error) {
	// A slow sender holds a connection and a goroutine.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(timeout))
	body := &watchedBody{ReadCloser: http.MaxBytesReader(w, r.Body, limit)}
	r.Body = body
	ct, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct == "multipart/form-data" {
		// What arrived is kept (at most limit bytes) to recover the form
		// from, should the body break off.
		body.kept = &bytes.Buffer{}
		err = r.ParseMultipartForm(memory)
		if b := params["boundary"]; err == nil && b != "" && !bytes.Contains(body.kept.Bytes(), []byte("--"+b+"--")) {
			// The parser takes a body cut within a part's headers for
			// one that ended there, dropping that part in silence: a body
			// without its closing boundary broke off all the same.
			err = fmt.Errorf("webnet: form: no closing boundary: %w", io.ErrUnexpectedEOF)
		}
		if err != nil && !body.tooBig && !body.timedOut && params["boundary"] != "" {
			return false, false, recoverForm(r, body.kept.Bytes(), params["boundary"], memory, err)
		}
	} else {
		// ParseMultipartForm drops ParseForm's error for a body that is not
		// multipart: a 400 KB paste read as an empty form (finding 11).
		err = r.ParseForm()
	}
	if err == nil {
		_, err = io.Copy(io.Discard, r.Body)
	}
	if err == nil && (body.tooBig || body.timedOut) {
		err = errors.New("webnet: form: body not read")
	}
	return body.tooBig, body.timedOut, err
}

// BrokenFormError is ReadForm's error for a multipart body that broke off
// or broke the format: Field is the form field it broke in ("" when the
// break came between fields or none was recovered), Kept whether r's form
// holds what arrived.
type BrokenFormError struct {
	Field string
	Kept  bool
	Err   error // the multipart parser's ("multipart: NextPart: EOF")
}

func (e *BrokenFormError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("webnet: form broken off in field %q: %v", e.Field, e.Err)
	}
	return fmt.Sprintf("webnet: form broken off: %v", e.Err)
}

func (e *BrokenFormError) Unwrap() error { return e.Err }

// recoverForm parses what arrived of a multipart body (src, which broke
// with cause) as a form of its own, closed where it broke: first as it is,
// the last part kept as far as it came; else cut before the last
// boundary, should the break fall within a part's headers. r's form is
// what the first of these that parses holds.
func recoverForm(r *http.Request, src []byte, boundary string, memory int64, cause error) error {
	closing := "\r\n--" + boundary + "--\r\n"
	tries := [][]byte{append(bytes.Clone(src), closing...)}
	if i := bytes.LastIndex(src, []byte("\r\n--"+boundary)); i >= 0 {
		tries = append(tries, append(bytes.Clone(src[:i]), closing...))
	}
	for n, try := range tries {
		f, err := multipart.NewReader(bytes.NewReader(try), boundary).ReadForm(memory)
		if err != nil {
			continue
		}
		if r.MultipartForm != nil {
			_ = r.MultipartForm.RemoveAll() // the parse that missed the break
		}
		// As ParseMultipartForm leaves them: the query, then the form.
		r.MultipartForm, r.Form, r.PostForm = f, r.URL.Query(), make(map[string][]string)
		for k, v := range f.Value {
			r.Form[k] = append(r.Form[k], v...)
			r.PostForm[k] = append(r.PostForm[k], v...)
		}
		field := ""
		if n == 0 {
			field = lastPartName(try, boundary)
		}
		return &BrokenFormError{Field: field, Kept: true, Err: cause}
	}
	return &BrokenFormError{Err: cause}
}

// lastPartName is the form name of the last part of the multipart body
// src: the field a body that broke off broke in.
func lastPartName(src []byte, boundary string) string {
	name := ""
	mr := multipart.NewReader(bytes.NewReader(src), boundary)
	for {
		p, err := mr.NextPart()
		if err != nil {
			return name
		}
		name = p.FormName()
	}
}

// watchedBody is a request body that remembers why reading it stopped:
// over its http.MaxBytesReader's bound, or past the read deadline; kept,
// when not nil, gets a copy of what was read.
type watchedBody struct {
	io.ReadCloser
	tooBig, timedOut bool
	kept             *bytes.Buffer
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if b.kept != nil {
		b.kept.Write(p[:n])
	}
	if err != nil && err != io.EOF {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			b.tooBig = true
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			b.timedOut = true
		}
	}
	return n, err
}
