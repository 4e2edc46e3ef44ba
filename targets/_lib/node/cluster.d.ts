import { Config } from './config';

export declare function start(name: string, loadWorker: () => (cfg: Config) => Promise<void>): void;
export declare function runPrimary(cfg: Config, name: string): void;
