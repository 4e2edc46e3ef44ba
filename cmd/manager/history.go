package main

import (
	"errors"
	"fmt"
	"time"

	"github.com/gauntlet-bench/gauntlet/controllers/schedule"
)

// historyDatabase is the schedules' history database of --history-database-url-file (nil
// without it: ConfigMaps). The file is checked here, its URL read when connecting.
func historyDatabase(urlFile string, retention time.Duration) (*schedule.HistoryDatabase, error) {
	if retention < 24*time.Hour {
		return nil, fmt.Errorf("--history-retention %s: want at least 24h", retention)
	}
	if urlFile == "" {
		return nil, nil
	}
	if urlFile[0] != '/' {
		return nil, errors.New("--history-database-url-file must be an absolute path")
	}
	return &schedule.HistoryDatabase{URLFile: urlFile, Retention: retention}, nil
}
