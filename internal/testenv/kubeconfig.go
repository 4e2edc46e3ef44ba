package testenv

import "sigs.k8s.io/controller-runtime/pkg/envtest"

// KubeConfig is a kubeconfig file's content for a new user of the API server in the given
// groups (system:masters for an administrator), for tests of what reads a kubeconfig as a
// user's tools do.
func (e *Env) KubeConfig(user string, groups ...string) ([]byte, error) {
	u, err := e.env.AddUser(envtest.User{Name: user, Groups: groups}, nil)
	if err != nil {
		return nil, err
	}
	return u.KubeConfig()
}
