export interface Config {
  host: string;
  port: number;
  workers: number;
  databaseURL: string; // empty: DB endpoints answer 503
  poolMin: number;
  poolMax: number;
}

export type Env = Record<string, string | undefined>;

export declare function loadConfig(env: Env): Config;
