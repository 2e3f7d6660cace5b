package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// pki is the files the control plane is started with: a CA, the API
// server's serving certificate, an admin client certificate (group
// system:masters, used by every component) and the service-account
// signing key.
type pki struct {
	ca, caKey             string
	serving, servingKey   string
	admin, adminKey       string
	saKey, saPub          string
	kubeconfig            string
	caPEM, adminPEM, aKey []byte
}

func makePKI(dir, server string) (*pki, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	p := &pki{
		ca: filepath.Join(dir, "ca.crt"), caKey: filepath.Join(dir, "ca.key"),
		serving: filepath.Join(dir, "apiserver.crt"), servingKey: filepath.Join(dir, "apiserver.key"),
		admin: filepath.Join(dir, "admin.crt"), adminKey: filepath.Join(dir, "admin.key"),
		saKey: filepath.Join(dir, "sa.key"), saPub: filepath.Join(dir, "sa.pub"),
		kubeconfig: filepath.Join(dir, "kubeconfig"),
	}
	now := time.Now().Add(-time.Hour)
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "paddock-e2e-ca"},
		NotBefore: now, NotAfter: now.Add(48 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true, IsCA: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		return nil, err
	}
	p.caPEM = pemBlock("CERTIFICATE", caDER)
	if err := writeKeyPair(p.ca, p.caKey, p.caPEM, caKey); err != nil {
		return nil, err
	}
	leaf := func(serial int64, cn string, orgs []string, usage x509.ExtKeyUsage, ips []net.IP, dns []string) ([]byte, *ecdsa.PrivateKey, error) {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			return nil, nil, err
		}
		t := &x509.Certificate{
			SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: cn, Organization: orgs},
			NotBefore: now, NotAfter: now.Add(48 * time.Hour),
			KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{usage},
			IPAddresses: ips, DNSNames: dns,
		}
		der, err := x509.CreateCertificate(rand.Reader, t, caCert, &k.PublicKey, caKey)
		return pemBlock("CERTIFICATE", der), k, err
	}
	servPEM, servKey, err := leaf(2, "kube-apiserver", nil, x509.ExtKeyUsageServerAuth,
		[]net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("10.96.0.1")},
		[]string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"})
	if err != nil {
		return nil, err
	}
	if err := writeKeyPair(p.serving, p.servingKey, servPEM, servKey); err != nil {
		return nil, err
	}
	adminPEM, adminKey, err := leaf(3, "paddock-e2e-admin", []string{"system:masters"}, x509.ExtKeyUsageClientAuth, nil, nil)
	if err != nil {
		return nil, err
	}
	if err := writeKeyPair(p.admin, p.adminKey, adminPEM, adminKey); err != nil {
		return nil, err
	}
	p.adminPEM = adminPEM
	if p.aKey, err = os.ReadFile(p.adminKey); err != nil {
		return nil, err
	}
	sa, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	pub, err := x509.MarshalPKIXPublicKey(&sa.PublicKey)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(p.saKey, pemBlock("RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(sa)), 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(p.saPub, pemBlock("PUBLIC KEY", pub), 0o600); err != nil {
		return nil, err
	}
	return p, os.WriteFile(p.kubeconfig, []byte(p.kubeconfigYAML(server)), 0o600)
}

func (p *pki) kubeconfigYAML(server string) string {
	b64 := base64.StdEncoding.EncodeToString
	return fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster:
    server: %s
    certificate-authority-data: %s
users:
- name: admin
  user:
    client-certificate-data: %s
    client-key-data: %s
contexts:
- name: e2e
  context: {cluster: e2e, user: admin}
current-context: e2e
`, server, b64(p.caPEM), b64(p.adminPEM), b64(p.aKey))
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

func writeKeyPair(certFile, keyFile string, certPEM []byte, key *ecdsa.PrivateKey) error {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	if err := os.WriteFile(certFile, certPEM, 0o600); err != nil {
		return err
	}
	return os.WriteFile(keyFile, pemBlock("EC PRIVATE KEY", der), 0o600)
}
