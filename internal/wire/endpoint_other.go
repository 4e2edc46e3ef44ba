//go:build !linux

package wire

import "fmt"

// EndpointCapture is a pod's capture; off Linux none can start.
type EndpointCapture struct{}

// StartEndpoint refuses: there is no packet socket off Linux.
func StartEndpoint(ep Endpoint, iface string) (*EndpointCapture, error) {
	return nil, fmt.Errorf("wire capture of %v:%d: %w", ep.Addr, ep.Port, errNoPacketSocket)
}

// Stop has nothing to stop.
func (c *EndpointCapture) Stop() (EndpointResult, error) { return EndpointResult{}, errNoPacketSocket }
