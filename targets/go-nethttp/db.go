package main

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"net/http"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Seed 001's statements, run exactly as written.
const (
	sqlPing      = `SELECT json_build_object('ok', true, 'message', 'OK')::text`
	sqlTime      = `SELECT json_build_object('serverTime', extract(epoch from now())::integer)::text`
	sqlDocument  = `SELECT id, queue, sender, subject, body, created_at, ttl FROM documents WHERE id = $1`
	sqlDocuments = `SELECT id, name, category, price_cents, in_stock, updated_at FROM items ORDER BY id LIMIT $1`
)

// newPool builds the process's single pool (seed 001: Go shares one pool across goroutines).
func newPool(ctx context.Context, cfg config) (*pgxpool.Pool, error) {
	pc, err := pgxpool.ParseConfig(cfg.databaseURL)
	if err != nil {
		return nil, errors.New("DATABASE_URL is not a valid PostgreSQL URL")
	}
	pc.MinConns, pc.MaxConns = cfg.poolMin, cfg.poolMax
	if !cfg.prepared {
		// No server-side prepared statements: works behind PgBouncer transaction pooling.
		pc.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	}
	return pgxpool.NewWithConfig(ctx, pc)
}

type document struct {
	ID        int32  `json:"id"`
	Queue     string `json:"queue"`
	Sender    string `json:"sender"`
	Subject   string `json:"subject"`
	Body      string `json:"body"`
	CreatedAt int64  `json:"created_at"`
	TTL       int32  `json:"ttl"`
}

type item struct {
	ID         int32  `json:"id"`
	Name       string `json:"name"`
	Category   string `json:"category"`
	PriceCents int32  `json:"price_cents"`
	InStock    bool   `json:"in_stock"`
	UpdatedAt  int64  `json:"updated_at"`
}

// dbHandlers serve the database endpoints; pool is nil when DATABASE_URL is unset.
type dbHandlers struct{ pool *pgxpool.Pool }

func (h *dbHandlers) ping(w http.ResponseWriter, r *http.Request) { h.text(w, r, sqlPing) }
func (h *dbHandlers) time(w http.ResponseWriter, r *http.Request) { h.text(w, r, sqlTime) }

// text returns the single text value a statement yields, unchanged.
func (h *dbHandlers) text(w http.ResponseWriter, r *http.Request, sql string) {
	if !h.available(w) {
		return
	}
	var out string
	if err := h.pool.QueryRow(r.Context(), sql).Scan(&out); err != nil {
		dbError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, []byte(out))
}

func (h *dbHandlers) document(w http.ResponseWriter, r *http.Request) {
	id, err := parseUint(r.PathValue("id"))
	if errors.Is(err, errNotUint) || err == nil && id < 1 {
		writeError(w, http.StatusBadRequest, "document id must be a positive integer")
		return
	}
	if !h.available(w) {
		return
	}
	if err != nil || id > math.MaxInt32 { // a valid id the integer column cannot hold
		writeError(w, http.StatusNotFound, "document not found")
		return
	}
	var d document
	err = h.pool.QueryRow(r.Context(), sqlDocument, int32(id)).
		Scan(&d.ID, &d.Queue, &d.Sender, &d.Subject, &d.Body, &d.CreatedAt, &d.TTL)
	if errors.Is(err, pgx.ErrNoRows) {
		writeError(w, http.StatusNotFound, "document not found")
		return
	}
	if err != nil {
		dbError(w, err)
		return
	}
	body, _ := json.Marshal(d)
	writeJSON(w, http.StatusOK, body)
}

func (h *dbHandlers) documents(w http.ResponseWriter, r *http.Request) {
	limit, err := queryUint(r.URL.Query(), "limit", 10)
	if err != nil || limit < 1 || limit > 100 {
		writeError(w, http.StatusBadRequest, "limit must be an integer in 1..100")
		return
	}
	if !h.available(w) {
		return
	}
	rows, _ := h.pool.Query(r.Context(), sqlDocuments, int32(limit))
	items := make([]item, 0, limit)
	var it item
	_, err = pgx.ForEachRow(rows, []any{&it.ID, &it.Name, &it.Category, &it.PriceCents, &it.InStock, &it.UpdatedAt},
		func() error { items = append(items, it); return nil })
	if err != nil {
		dbError(w, err)
		return
	}
	body, _ := json.Marshal(items)
	writeJSON(w, http.StatusOK, body)
}

func (h *dbHandlers) available(w http.ResponseWriter) bool {
	if h.pool == nil {
		writeError(w, http.StatusServiceUnavailable, "database not configured (DATABASE_URL is unset)")
		return false
	}
	return true
}

// dbError answers 500 with the SQLSTATE of a server error (e.g. 42P05 when PgBouncer routes a
// prepared statement to another server), 503 when no server answered; never the server's
// message or the DSN.
func dbError(w http.ResponseWriter, err error) {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		writeError(w, http.StatusInternalServerError, "database error (SQLSTATE "+pgErr.Code+")")
		return
	}
	writeError(w, http.StatusServiceUnavailable, "database unavailable")
}
