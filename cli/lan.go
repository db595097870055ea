package cli

import (
	"net"
	"net/netip"
	"slices"
	"strconv"
)

// studentURLs are the addresses students in the room open when the server
// listens on addr (-addr), scheme host and port: for an address on every
// interface (":8080", "0.0.0.0:8080", "[::]:8080") each of the machine's
// own addresses that another machine can reach (ifaces, net.InterfaceAddrs
// in serve: IPv4 first, no loopback or link-local IPv6); for one address or
// name, that one; none on loopback. port is the port listened on (it
// differs from addr's for ":0").
func studentURLs(addr string, port int, ifaces func() ([]net.Addr, error)) []string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	p := strconv.Itoa(port)
	url := func(h string) string { return "http://" + net.JoinHostPort(h, p) }
	ip, err := netip.ParseAddr(host)
	switch {
	case host == "localhost" || (err == nil && ip.Unmap().IsLoopback()):
		return nil
	case err != nil && host != "":
		return []string{url(host)} // a name
	case err == nil && !ip.IsUnspecified():
		return []string{url(ip.Unmap().String())}
	}
	addrs, err := ifaces()
	if err != nil {
		return nil
	}
	var v4, v6 []string
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if !ok {
			continue
		}
		ip, ok := netip.AddrFromSlice(n.IP)
		if !ok {
			continue
		}
		ip = ip.Unmap()
		switch {
		case ip.IsLoopback() || ip.IsLinkLocalUnicast() || ip.IsMulticast() || ip.IsUnspecified():
		case ip.Is4():
			v4 = append(v4, url(ip.String()))
		default:
			v6 = append(v6, url(ip.String()))
		}
	}
	return slices.Concat(v4, v6)
}
