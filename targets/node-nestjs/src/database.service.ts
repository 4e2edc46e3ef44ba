// The provider holding this worker's pg pool (seed 001's per-worker model) and the
// contract's queries, both from @gauntlet/target-kit's Database; this service ties them to
// Nest's lifecycle. pg sends unnamed statements (never server-side prepared ones), so
// PgBouncer's transaction mode works and DB_PREPARED changes nothing here.
import { Inject, Injectable, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import * as pg from 'pg';
import { Config, Database, openDatabase, Row } from '@gauntlet/target-kit';

export type { Row };
export const CONFIG = Symbol('CONFIG');

@Injectable()
export class DatabaseService implements OnModuleInit, OnApplicationShutdown {
  private db: Database | null = null;

  constructor(@Inject(CONFIG) private readonly cfg: Config) {}

  // enabled is false without DATABASE_URL: the DB endpoints then answer 503.
  get enabled(): boolean {
    return this.cfg.databaseURL !== '';
  }

  // onModuleInit opens the pool and its min connections up front, as asyncpg and pgxpool
  // do. A bad DATABASE_URL fails startup.
  async onModuleInit(): Promise<void> {
    this.db = await openDatabase(pg, this.cfg);
  }

  // Nest calls this after the HTTP server has closed, so in-flight queries have finished.
  async onApplicationShutdown(): Promise<void> {
    await this.db?.end();
  }

  ping(): Promise<string> { return this.db!.ping(); }

  time(): Promise<string> { return this.db!.time(); }

  // document resolves the row with this id, or undefined when there is none.
  document(id: number): Promise<Row | undefined> { return this.db!.document(id); }

  documents(limit: number): Promise<Row[]> { return this.db!.documents(limit); }
}
