package cli

import (
	"errors"
	"net"
	"reflect"
	"testing"
)

func TestStudentURLs(t *testing.T) {
	t.Parallel()
	ifaces := func() ([]net.Addr, error) {
		return []net.Addr{
			&net.IPNet{IP: net.ParseIP("127.0.0.1"), Mask: net.CIDRMask(8, 32)},
			&net.IPNet{IP: net.ParseIP("fe80::1"), Mask: net.CIDRMask(64, 128)},
			&net.IPNet{IP: net.ParseIP("2001:db8::5"), Mask: net.CIDRMask(64, 128)},
			&net.IPNet{IP: net.ParseIP("192.168.1.20").To4(), Mask: net.CIDRMask(24, 32)},
			&net.IPAddr{IP: net.ParseIP("10.0.0.9")}, // not an interface's network: skipped
		}, nil
	}
	lan := []string{"http://192.168.1.20:8080", "http://[2001:db8::5]:8080"}
	for _, c := range []struct {
		addr string
		want []string
	}{
		{"127.0.0.1:8080", nil},
		{"localhost:8080", nil},
		{"[::1]:8080", nil},
		{":8080", lan},
		{"0.0.0.0:8080", lan},
		{"[::]:8080", lan},
		{"192.168.1.20:8080", []string{"http://192.168.1.20:8080"}},
		{"lockstep.lan:8080", []string{"http://lockstep.lan:8080"}},
	} {
		if got := studentURLs(c.addr, 8080, ifaces); !reflect.DeepEqual(got, c.want) {
			t.Errorf("studentURLs(%q) = %q, want %q", c.addr, got, c.want)
		}
	}
	if got := studentURLs(":8080", 8080, func() ([]net.Addr, error) { return nil, errors.New("no") }); got != nil {
		t.Errorf("with no interfaces: %q", got)
	}
}
