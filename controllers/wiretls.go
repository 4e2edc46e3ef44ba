package controllers

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"maps"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	certutil "k8s.io/client-go/util/cert"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/gauntlet-bench/gauntlet/internal/wireagent"
)

// EnsureWireTLS keeps the wire agents' TLS Secret namespace/name and returns the CA bundle
// the manager trusts. The first call creates it (a CA and a serving certificate for
// wireagent.ServerName); later calls keep it while it is sound and renew at now whatever has
// less than a third of its validity left: the serving certificate alone, or the CA with it
// (the bundle then holds the new CA and the old, so agents still serving the old pair stay
// trusted until the kubelet updates their volume). A Secret that cannot be read as such
// (a key missing, a certificate not the CA's) is replaced. c must read without a cache (it
// runs before the manager starts); replicas racing are settled by the API server's
// conflict check, the loser taking the winner's Secret.
func EnsureWireTLS(ctx context.Context, c client.Client, namespace, name string, now time.Time) ([]byte, error) {
	key := client.ObjectKey{Namespace: namespace, Name: name}
	s := &corev1.Secret{}
	err := c.Get(ctx, key, s)
	if apierrors.IsNotFound(err) {
		s = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name,
			Labels: map[string]string{"app.kubernetes.io/part-of": "gauntlet", "app.kubernetes.io/component": "wire-agent"}},
			Type: corev1.SecretTypeTLS}
		if s.Data, err = renewWireTLS(nil, now); err != nil {
			return nil, err
		}
		err = c.Create(ctx, s)
		if apierrors.IsAlreadyExists(err) { // another replica made it first
			err = c.Get(ctx, key, s)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("wire agent TLS Secret %s/%s: %w", namespace, name, err)
	}
	data, err := renewWireTLS(s.Data, now)
	if err != nil {
		return nil, fmt.Errorf("wire agent TLS Secret %s/%s: %w", namespace, name, err)
	}
	if !maps.EqualFunc(data, s.Data, bytes.Equal) {
		s.Data = data
		if err := c.Update(ctx, s); apierrors.IsConflict(err) {
			return EnsureWireTLS(ctx, c, namespace, name, now) // another replica renewed it
		} else if err != nil {
			return nil, fmt.Errorf("renewing the wire agent TLS Secret %s/%s: %w", namespace, name, err)
		}
	}
	return data[wireagent.CACertKey], nil
}

// renewWireTLS is the Secret's data as it should be at now: old itself when sound and not
// near expiry, otherwise with what needs renewing renewed.
func renewWireTLS(old map[string][]byte, now time.Time) (map[string][]byte, error) {
	ca := wireagent.Pair{Cert: old[wireagent.CACertKey], Key: old[wireagent.CAKeyKey]}
	bundle := ca.Cert
	current, err := wireagent.ParseCert(ca.Cert)
	if err == nil {
		ca.Cert, _ = certutil.EncodeCertificates(current) // the current CA alone signs
		_, err = tls.X509KeyPair(ca.Cert, ca.Key)         // and its key is its own
	}
	if err != nil || wireagent.Renew(current, now) {
		if ca, err = wireagent.NewCA(now); err != nil {
			return nil, err
		}
		bundle = ca.Cert
		if current != nil && now.Before(current.NotAfter) {
			prev, _ := certutil.EncodeCertificates(current)
			bundle = append(bytes.Clone(ca.Cert), prev...)
		}
	}
	serving := wireagent.Pair{Cert: old[wireagent.CertKey], Key: old[wireagent.KeyKey]}
	cert, err := wireagent.ParseCert(serving.Cert)
	if err == nil {
		_, err = tls.X509KeyPair(serving.Cert, serving.Key)
	}
	if err != nil || wireagent.Renew(cert, now) || wireagent.Verify(ca.Cert, serving.Cert, now) != nil {
		if serving, err = wireagent.NewServingCert(ca, now); err != nil {
			return nil, err
		}
	}
	return map[string][]byte{wireagent.CACertKey: bundle, wireagent.CAKeyKey: ca.Key,
		wireagent.CertKey: serving.Cert, wireagent.KeyKey: serving.Key}, nil
}
