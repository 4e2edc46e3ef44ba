// Package lab is the lab tier: a real single-node Kubernetes on this machine (hack/lab/),
// started by the test, checked, and stopped; then the machine must be as it was before.
// Its tests build with -tags lab (make lab-test adds labfull: the three operators).
package lab
