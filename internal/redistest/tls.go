package redistest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// StartTLS starts a redis-server that speaks only TLS (no plain port), with
// a certificate for 127.0.0.1 signed by a CA made for the test, and no
// client certificates asked for. The Server's URL is rediss://, CAFile names
// the CA's PEM file and TLS trusts it.
func StartTLS(tb testing.TB, extra ...string) *Server {
	tb.Helper()
	bin := Need(tb, "redis-server", "make test")
	dir := tb.TempDir()
	caFile, certFile, keyFile, pool, err := makeCerts(dir)
	if err != nil {
		tb.Fatalf("redistest: certificates: %v", err)
	}
	args := append([]string{"--tls-cert-file", certFile, "--tls-key-file", keyFile, "--tls-ca-cert-file", caFile, "--tls-auth-clients", "no"}, extra...)
	cfg := &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}
	var lastErr error
	for range 5 {
		port, err := freePort()
		if err != nil {
			tb.Fatalf("redistest: free port: %v", err)
		}
		s, err := start(bin, port, args, cfg)
		if err == nil {
			s.CAFile = caFile
			tb.Cleanup(s.Stop)
			return s
		}
		lastErr = err
	}
	tb.Fatalf("redistest: start a TLS redis-server: %v", lastErr)
	return nil
}

// makeCerts writes into dir a CA certificate (ca.pem) and a server
// certificate for 127.0.0.1 and localhost that it signs (server.pem,
// server-key.pem), all ECDSA P-256, valid for a day.
func makeCerts(dir string) (caFile, certFile, keyFile string, pool *x509.CertPool, err error) {
	now := time.Now()
	ca, caDER, caKey, err := newCert(&x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "lockstep test CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}, nil, nil)
	if err != nil {
		return "", "", "", nil, err
	}
	_, leafDER, key, err := newCert(&x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
	}, ca, caKey)
	if err != nil {
		return "", "", "", nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return "", "", "", nil, err
	}
	caFile, certFile, keyFile = filepath.Join(dir, "ca.pem"), filepath.Join(dir, "server.pem"), filepath.Join(dir, "server-key.pem")
	for _, f := range []struct {
		path, kind string
		der        []byte
	}{{caFile, "CERTIFICATE", caDER}, {certFile, "CERTIFICATE", leafDER}, {keyFile, "EC PRIVATE KEY", keyDER}} {
		if err := os.WriteFile(f.path, pem.EncodeToMemory(&pem.Block{Type: f.kind, Bytes: f.der}), 0o600); err != nil {
			return "", "", "", nil, err
		}
	}
	pool = x509.NewCertPool()
	pool.AddCert(ca)
	return caFile, certFile, keyFile, pool, nil
}

// newCert makes an ECDSA P-256 key and the certificate of tmpl for it,
// signed by parent with parentKey, or self-signed when parent is nil. It
// returns the certificate, parsed and as DER, and the key.
func newCert(tmpl, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*x509.Certificate, []byte, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, err
	}
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		return nil, nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, nil, err
	}
	return cert, der, key, nil
}
