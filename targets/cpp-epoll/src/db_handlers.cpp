// The database endpoints: seed 001's statements, and seed 002/003's document reads.
#include <limits>

#include "app.h"
#include "json.h"

namespace {

constexpr const char* kSqlPing = "SELECT json_build_object('ok', true, 'message', 'OK')::text";
constexpr const char* kSqlTime = "SELECT json_build_object('serverTime', extract(epoch from now())::integer)::text";
constexpr const char* kSqlDocument =
    "SELECT id, queue, sender, subject, body, created_at, ttl FROM documents WHERE id = $1";
constexpr const char* kSqlDocuments =
    "SELECT id, name, category, price_cents, in_stock, updated_at FROM items ORDER BY id LIMIT $1";

// Appends "key": value where value is the text of column col (numbers come as their digits).
void member(std::string& out, const DbResult& res, int row, int col, const char* key, bool quoted) {
  out += '"';
  out += key;
  out += "\":";
  std::string_view v(res.value(row, col), size_t(res.length(row, col)));
  if (quoted) {
    append_json_string(out, v);
  } else {
    out += v;
  }
}

}  // namespace

bool App::db_available(const Responder& r) {
  if (db_ != nullptr) return true;
  r.send(503, error_json("database not configured (DATABASE_URL is unset)"));
  return false;
}

void App::db_ping(const Request&, const Responder& r) { db_text(kSqlPing, r); }
void App::db_time(const Request&, const Responder& r) { db_text(kSqlTime, r); }

// Returns the statement's single text value unchanged.
void App::db_text(const char* sql, const Responder& r) {
  if (!db_available(r)) return;
  db_->query(sql, {}, [r](DbResult res) {
    if (!res.ok() || res.rows() != 1) return r.send(res.error_status(), res.error_body());
    r.send(200, std::string_view(res.value(0, 0), size_t(res.length(0, 0))));
  });
}

void App::db_document(std::string_view id_text, const Responder& r) {
  int64_t id;
  bool overflow;
  if (!parse_digits(id_text, id, overflow) || (!overflow && id < 1))
    return r.send(400, error_json("document id must be a positive integer"));
  if (!db_available(r)) return;
  if (overflow || id > std::numeric_limits<int32_t>::max())  // valid, but beyond the integer column
    return r.send(404, error_json("document not found"));
  db_->query(kSqlDocument, {std::to_string(id)}, [r](DbResult res) {
    if (!res.ok()) return r.send(res.error_status(), res.error_body());
    if (res.rows() == 0) return r.send(404, error_json("document not found"));
    std::string body = "{";
    member(body, res, 0, 0, "id", false);
    body += ',';
    member(body, res, 0, 1, "queue", true);
    body += ',';
    member(body, res, 0, 2, "sender", true);
    body += ',';
    member(body, res, 0, 3, "subject", true);
    body += ',';
    member(body, res, 0, 4, "body", true);
    body += ',';
    member(body, res, 0, 5, "created_at", false);
    body += ',';
    member(body, res, 0, 6, "ttl", false);
    body += '}';
    r.send(200, body);
  });
}

void App::db_documents(const Request& req, const Responder& r) {
  int64_t limit = 10;
  std::string_view raw;
  bool overflow = false;
  if (query_param(req.query, "limit", raw) && (!parse_digits(raw, limit, overflow) || overflow || limit < 1 || limit > 100))
    return r.send(400, error_json("limit must be an integer in 1..100"));
  if (!db_available(r)) return;
  db_->query(kSqlDocuments, {std::to_string(limit)}, [r](DbResult res) {
    if (!res.ok()) return r.send(res.error_status(), res.error_body());
    std::string body = "[";
    for (int i = 0; i < res.rows(); i++) {
      if (i > 0) body += ',';
      body += '{';
      member(body, res, i, 0, "id", false);
      body += ',';
      member(body, res, i, 1, "name", true);
      body += ',';
      member(body, res, i, 2, "category", true);
      body += ',';
      member(body, res, i, 3, "price_cents", false);
      body += R"(,"in_stock":)";
      body += res.value(i, 4)[0] == 't' ? "true" : "false";  // booleans come as t/f in text format
      body += ',';
      member(body, res, i, 5, "updated_at", false);
      body += '}';
    }
    body += ']';
    r.send(200, body);
  });
}
