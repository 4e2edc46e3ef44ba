package historydb

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// OpenFile opens the store at the PostgreSQL URL held in the file at path (a Secret's key
// mounted as a file, CloudNativePG's <cluster>-app `uri`). The file is read again before
// each new connection, so a rotated password is used without a restart; host, port and
// database are the first read's.
func OpenFile(ctx context.Context, path string) (*Store, error) {
	dsn, err := readURL(path)
	if err != nil {
		return nil, err
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("history store: the URL in %s: %s", path, Redact(err.Error(), dsn))
	}
	cfg.BeforeConnect = func(_ context.Context, cc *pgx.ConnConfig) error {
		dsn, err := readURL(path)
		if err != nil {
			return err
		}
		fresh, err := pgx.ParseConfig(dsn)
		if err != nil {
			return fmt.Errorf("history store: the URL in %s: %s", path, Redact(err.Error(), dsn))
		}
		cc.User, cc.Password = fresh.User, fresh.Password
		return nil
	}
	return open(ctx, cfg)
}

// readURL reads the URL file, refusing an empty one.
func readURL(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("history store: %w", err)
	}
	dsn := strings.TrimSpace(string(data))
	if dsn == "" {
		return "", fmt.Errorf("history store: %s is empty: want a PostgreSQL URL", path)
	}
	return dsn, nil
}

var (
	urlPassword = regexp.MustCompile(`(postgres(?:ql)?://[^:/@\s]*):[^@\s]*@`)
	kvPassword  = regexp.MustCompile(`(?i)(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)`)
)

// Redact removes what could be a password from msg: the password of dsn (the URL or
// key=value string connected with) wherever it appears, a URL's user info password and a
// password= setting. pgx's errors can carry the connection string; messages that reach a
// status, an event or a log go through this.
func Redact(msg, dsn string) string {
	if dsn != "" {
		if cfg, err := pgx.ParseConfig(dsn); err == nil && cfg.Password != "" {
			msg = strings.ReplaceAll(msg, cfg.Password, "xxxxx")
		}
		msg = strings.ReplaceAll(msg, dsn, urlPassword.ReplaceAllString(dsn, "$1:xxxxx@"))
	}
	msg = urlPassword.ReplaceAllString(msg, "$1:xxxxx@")
	return kvPassword.ReplaceAllString(msg, "${1}xxxxx")
}

// RedactFile is Redact with the DSN read from the URL file (nothing when it cannot be read).
func RedactFile(msg, path string) string {
	dsn, _ := readURL(path)
	return Redact(msg, dsn)
}
