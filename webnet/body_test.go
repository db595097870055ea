package webnet

import (
	"bytes"
	"errors"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// TestReadFormBrokenOff: a multipart body that breaks off is a
// BrokenFormError with what arrived in the form: cut within a value, the
// fields before whole and the cut one as far as it came (Field names it);
// cut within the next part's headers, the fields before it (Field "").
func TestReadFormBrokenOff(t *testing.T) {
	t.Parallel()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("variant", "name: my-lock\nowner: grant-token\n")
	_ = mw.WriteField("script_1", "return redis.call('GET', KEYS[1])")
	full := body.Bytes()
	inValue := bytes.Index(full, []byte("return redis")) + len("return")
	inHeaders := bytes.Index(full, []byte(`name="script_1"`)) + 4
	for _, c := range []struct {
		name         string
		cut          int
		field, value string
	}{
		{"within a value", inValue, "script_1", "return"},
		{"within a part's headers", inHeaders, "", ""},
	} {
		r := httptest.NewRequest(http.MethodPost, "/explore/lock?lang=en", bytes.NewReader(full[:c.cut]))
		r.Header.Set("Content-Type", mw.FormDataContentType())
		_, _, err := ReadForm(httptest.NewRecorder(), r, 1<<20, 1<<20, time.Minute)
		var bfe *BrokenFormError
		if !errors.As(err, &bfe) || !bfe.Kept || bfe.Field != c.field {
			t.Fatalf("%s: got %v, want a kept BrokenFormError in field %q", c.name, err, c.field)
		}
		if got := r.FormValue("variant"); got != "name: my-lock\nowner: grant-token\n" {
			t.Errorf("%s: variant %q", c.name, got)
		}
		if len(r.Form["variant"]) != 1 || r.Form.Get("lang") != "en" {
			t.Errorf("%s: form %v: want variant once and the query", c.name, r.Form)
		}
		if got := r.FormValue("script_1"); got != c.value {
			t.Errorf("%s: script_1 %q, want %q", c.name, got, c.value)
		}
	}
}

// TestReadFormWhole: a whole multipart body reads as it is, once.
func TestReadFormWhole(t *testing.T) {
	t.Parallel()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("yaml", "title: x\n")
	mw.Close()
	r := httptest.NewRequest(http.MethodPost, "/explore/import?lang=en", &body)
	r.Header.Set("Content-Type", mw.FormDataContentType())
	if _, _, err := ReadForm(httptest.NewRecorder(), r, 1<<20, 1<<20, time.Minute); err != nil {
		t.Fatal(err)
	}
	if v := r.Form["yaml"]; len(v) != 1 || v[0] != "title: x\n" || r.Form.Get("lang") != "en" {
		t.Fatalf("form %v", r.Form)
	}
}
