// The provider holding this worker's pg Pool (seed 001's per-worker model) and the
// contract's queries. pg sends unnamed statements (never server-side prepared ones), so
// PgBouncer's transaction mode works and DB_PREPARED changes nothing here.
import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Pool, types as pgTypes, CustomTypesConfig } from 'pg';
import { Config } from './config';

export const CONFIG = Symbol('CONFIG');

const INT8_OID = 20;
const SQL = {
  ping: "SELECT json_build_object('ok', true, 'message', 'OK')::text",
  time: "SELECT json_build_object('serverTime', extract(epoch from now())::integer)::text",
  document: 'SELECT id, queue, sender, subject, body, created_at, ttl FROM documents WHERE id = $1',
  documents: 'SELECT id, name, category, price_cents, in_stock, updated_at FROM items ORDER BY id LIMIT $1',
};

// created_at and updated_at are bigint: pg returns int8 as a string by default; the values
// (unix seconds) are far inside Number's exact range, so they are sent as JSON numbers.
const types: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID && format !== 'binary' ? Number : pgTypes.getTypeParser(oid, format)) as CustomTypesConfig['getTypeParser'],
};

export type Row = Record<string, unknown>;

@Injectable()
export class DatabaseService implements OnModuleInit, OnApplicationShutdown {
  private readonly pool: Pool | null;

  constructor(@Inject(CONFIG) private readonly cfg: Config) {
    this.pool = cfg.databaseURL === '' ? null : new Pool({
      connectionString: cfg.databaseURL,
      min: cfg.poolMin, // pg-pool >= 3.10 keeps this many idle clients instead of closing them
      max: cfg.poolMax,
      connectionTimeoutMillis: 5000, // a request fails instead of hanging when the DB is gone
      types,
    });
    // An idle client losing its connection must not crash the worker; the pool replaces it.
    this.pool?.on('error', (err) => console.error(`pg pool: idle client error: ${err.message}`));
  }

  // enabled is false without DATABASE_URL: the DB endpoints then answer 503.
  get enabled(): boolean {
    return this.pool !== null;
  }

  // onModuleInit opens the pool's min connections up front, as asyncpg and pgxpool do;
  // pg-pool's min only stops idle ones from being closed. A bad DATABASE_URL fails startup.
  async onModuleInit(): Promise<void> {
    if (this.pool === null) return;
    const pool = this.pool;
    try {
      const clients = await Promise.all(Array.from({ length: this.cfg.poolMin }, () => pool.connect()));
      for (const c of clients) c.release();
      if (this.cfg.poolMin === 0) await pool.query('SELECT 1');
    } catch (err) {
      await pool.end().catch(() => undefined);
      throw new Error(`cannot connect to DATABASE_URL: ${(err as Error).message}`);
    }
  }

  // Nest calls this after the HTTP server has closed, so in-flight queries have finished.
  async onApplicationShutdown(): Promise<void> {
    await this.pool?.end();
  }

  // text runs a statement that returns one JSON text value and gives that text unchanged.
  private async text(sql: string): Promise<string> {
    const res = await this.pool!.query<unknown[]>({ text: sql, rowMode: 'array' });
    return res.rows[0][0] as string;
  }

  ping(): Promise<string> { return this.text(SQL.ping); }

  time(): Promise<string> { return this.text(SQL.time); }

  // document resolves the row with this id, or undefined when there is none.
  async document(id: number): Promise<Row | undefined> {
    const res = await this.pool!.query<Row>(SQL.document, [id]);
    return res.rows[0];
  }

  async documents(limit: number): Promise<Row[]> {
    const res = await this.pool!.query<Row>(SQL.documents, [limit]);
    return res.rows;
  }
}
