package web

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/chromedp/chromedp/kb"

	"lockstep/sim"
)

// TestBrowserStepTooLarge: a step refused by the renewal bound shows, in
// the page's language, the refusal that names the limit: not "Redis did
// not answer", no Try again, and the connection badge stays connected.
func TestBrowserStepTooLarge(t *testing.T) {
	t.Parallel()
	le, code := renewalFloodCode(t)
	ctx, _ := tabAt(t, Config{}, "/explore?lang=zh-CN&step=1&t="+url.QueryEscape(code))
	waitStep(t, ctx, 1)
	press(t, ctx, kb.ArrowRight)
	zh := tr(sim.SimplifiedChinese)
	want := zh.T("StepRefused", "Step", 2, "Reason", zh.Msg(le.Message()))
	waitJS(t, ctx, fmt.Sprintf(`document.querySelector('#redis-alert .ra-title')?.textContent === %q`, want), "the refusal in zh-CN")
	a := readAlert(t, ctx)
	if a.Role != "alert" || !a.Visible || a.Button != "" || a.Body != "" || a.Conn == "redis" || a.Step != "1" {
		t.Fatalf("the refused step's alert: %+v", a)
	}
}
