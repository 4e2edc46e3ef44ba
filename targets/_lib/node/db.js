'use strict';
// One pg Pool per worker process (seed 001's per-worker model) and the contract's queries.
// pg sends unnamed statements (never server-side prepared ones), so PgBouncer's transaction
// mode works and DB_PREPARED changes nothing here.
//
// The caller passes its own `pg` module in: this package is linked (file:../_lib/node), and a
// require('pg') here would resolve from this folder's real path, not from the target's
// node_modules, so the kit has no dependencies at all.

const INT8_OID = 20;
const SQL = {
  ping: "SELECT json_build_object('ok', true, 'message', 'OK')::text",
  time: "SELECT json_build_object('serverTime', extract(epoch from now())::integer)::text",
  document: 'SELECT id, queue, sender, subject, body, created_at, ttl FROM documents WHERE id = $1',
  documents: 'SELECT id, name, category, price_cents, in_stock, updated_at FROM items ORDER BY id LIMIT $1',
};

// created_at and updated_at are bigint: pg returns int8 as a string by default; the values
// (unix seconds) are far inside Number's exact range, so they are sent as JSON numbers.
function typesOf(pg) {
  return {
    getTypeParser(oid, format) {
      if (oid === INT8_OID && format !== 'binary') return Number;
      return pg.types.getTypeParser(oid, format);
    },
  };
}

class Database {
  constructor(pg, cfg) {
    this.min = cfg.poolMin;
    this.pool = new pg.Pool({
      connectionString: cfg.databaseURL,
      min: cfg.poolMin, // pg-pool >= 3.10 keeps this many idle clients instead of closing them
      max: cfg.poolMax,
      connectionTimeoutMillis: 5000, // a request fails instead of hanging when the DB is gone
      types: typesOf(pg),
    });
    // An idle client losing its connection must not crash the worker; the pool replaces it.
    this.pool.on('error', (err) => console.error(`pg pool: idle client error: ${err.message}`));
  }

  // warm opens the pool's min connections up front, as asyncpg and pgxpool do; pg-pool's
  // min only stops idle ones from being closed. It also fails fast on a bad DATABASE_URL.
  async warm() {
    const clients = await Promise.all(Array.from({ length: this.min }, () => this.pool.connect()));
    for (const c of clients) c.release();
    if (this.min === 0) await this.pool.query('SELECT 1');
  }

  // text runs a statement that returns one JSON text value and gives that text unchanged.
  async text(sql) {
    const res = await this.pool.query({ text: sql, rowMode: 'array' });
    return res.rows[0][0];
  }

  ping() { return this.text(SQL.ping); }

  time() { return this.text(SQL.time); }

  // document resolves the row with this id, or undefined when there is none.
  async document(id) {
    const res = await this.pool.query(SQL.document, [id]);
    return res.rows[0];
  }

  async documents(limit) {
    const res = await this.pool.query(SQL.documents, [limit]);
    return res.rows;
  }

  end() { return this.pool.end(); }
}

// openDatabase returns a warmed Database on the given pg module, or null when DATABASE_URL
// is unset (DB endpoints 503).
async function openDatabase(pg, cfg) {
  if (cfg.databaseURL === '') return null;
  const db = new Database(pg, cfg);
  try {
    await db.warm();
  } catch (err) {
    await db.end().catch(() => {});
    throw new Error(`cannot connect to DATABASE_URL: ${err.message}`);
  }
  return db;
}

module.exports = { Database, openDatabase };
