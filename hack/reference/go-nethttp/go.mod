module github.com/gauntlet-bench/gauntlet/hack/reference/go-nethttp

go 1.26
