package wireagent

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"math/big"
	"time"

	certutil "k8s.io/client-go/util/cert"
	"k8s.io/client-go/util/keyutil"
)

// ServerName is the one DNS name in the agents' serving certificate. The manager dials
// node addresses, which change with the nodes; it checks this name instead, and trusts
// only the CA of the operator's Secret.
const ServerName = "gauntlet-wire-agent"

// Keys of the agents' TLS Secret, which the operator creates and renews: the CA bundle
// the manager trusts (the current CA first, then the one it replaced while that is still
// valid, so agents still serving the old pair are trusted until their volume updates), the
// current CA's key, and the agents' serving pair (the only keys the agents mount).
const (
	CACertKey = "ca.crt"
	CAKeyKey  = "ca.key"
	CertKey   = "tls.crt"
	KeyKey    = "tls.key"
)

// Validities. A pair is renewed once less than a third of its validity remains (Renew):
// the serving certificate every 60 days, the CA every 6 years and 8 months.
const (
	CAValidity   = 10 * 365 * 24 * time.Hour
	CertValidity = 90 * 24 * time.Hour
)

// backdate covers clocks a little behind the manager's.
const backdate = 5 * time.Minute

// Pair is a certificate and its key, PEM-encoded.
type Pair struct{ Cert, Key []byte }

// NewCA makes an ECDSA P-256 CA valid for CAValidity from now. certutil.NewSelfSignedCACert
// would do but takes its times from the wall clock, and renewal must be testable ahead of it.
func NewCA(now time.Time) (Pair, error) {
	return issue(&x509.Certificate{
		Subject:               pkix.Name{CommonName: "gauntlet-wire-agent-ca"},
		NotBefore:             now.Add(-backdate),
		NotAfter:              now.Add(CAValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}, Pair{})
}

// NewServingCert makes the agents' ECDSA P-256 serving certificate for ServerName, signed
// by ca and valid for CertValidity from now.
func NewServingCert(ca Pair, now time.Time) (Pair, error) {
	return issue(&x509.Certificate{
		Subject:     pkix.Name{CommonName: ServerName},
		DNSNames:    []string{ServerName},
		NotBefore:   now.Add(-backdate),
		NotAfter:    now.Add(CertValidity),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}, ca)
}

// issue signs template with a new key: by parent, or by itself when parent is empty.
func issue(template *x509.Certificate, parent Pair) (Pair, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Pair{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return Pair{}, err
	}
	template.SerialNumber = serial
	signer, signerCert := any(key), template
	if parent.Cert != nil {
		if signerCert, err = ParseCert(parent.Cert); err != nil {
			return Pair{}, fmt.Errorf("CA certificate: %w", err)
		}
		if signer, err = keyutil.ParsePrivateKeyPEM(parent.Key); err != nil {
			return Pair{}, fmt.Errorf("CA key: %w", err)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, template, signerCert, &key.PublicKey, signer)
	if err != nil {
		return Pair{}, err
	}
	keyPEM, err := keyutil.MarshalPrivateKeyToPEM(key)
	if err != nil {
		return Pair{}, err
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		return Pair{}, err
	}
	certPEM, err := certutil.EncodeCertificates(c)
	return Pair{Cert: certPEM, Key: keyPEM}, err
}

// ParseCert is the first certificate of a PEM bundle.
func ParseCert(pemData []byte) (*x509.Certificate, error) {
	certs, err := certutil.ParseCertsPEM(pemData)
	if err != nil {
		return nil, err
	}
	return certs[0], nil
}

// Renew says whether a certificate has less than a third of its validity left at now.
func Renew(c *x509.Certificate, now time.Time) bool {
	return c.NotAfter.Sub(now) < c.NotAfter.Sub(c.NotBefore)/3
}

// Verify checks that the serving certificate cert is signed by ca and valid at now for
// ServerName, as the manager's client will.
func Verify(ca, cert []byte, now time.Time) error {
	pool, err := certutil.NewPoolFromBytes(ca)
	if err != nil {
		return err
	}
	c, err := ParseCert(cert)
	if err != nil {
		return err
	}
	if _, err := c.Verify(x509.VerifyOptions{Roots: pool, DNSName: ServerName, CurrentTime: now}); err != nil {
		return err
	}
	if c.NotAfter.Before(now) {
		return errors.New("expired")
	}
	return nil
}
