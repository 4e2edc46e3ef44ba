import { Config } from './config';

// The parts of the `pg` module the kit uses; pass the module itself (import * as pg from 'pg').
export interface PgModule {
  Pool: new (config: any) => any;
  types: { getTypeParser(oid: number, format?: any): any };
}

export type Row = Record<string, unknown>;

export declare class Database {
  constructor(pg: PgModule, cfg: Config);
  warm(): Promise<void>;
  ping(): Promise<string>;
  time(): Promise<string>;
  document(id: number): Promise<Row | undefined>;
  documents(limit: number): Promise<Row[]>;
  end(): Promise<void>;
}

export declare function openDatabase(pg: PgModule, cfg: Config): Promise<Database | null>;
