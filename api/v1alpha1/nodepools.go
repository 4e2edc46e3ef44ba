package v1alpha1

// Pool is the entry of spec.nodePools with this name; an empty or unknown name is the
// empty pool (any node): the API's CEL rules refuse unknown names, so that only happens
// for in-memory specs. Both the operator's object builders and the runners' sizing (which
// the local mode shares) read pools through it.
func (s *BenchmarkRunSpec) Pool(name string) NodePool {
	for _, p := range s.NodePools {
		if name != "" && p.Name == name {
			return p
		}
	}
	return NodePool{}
}
