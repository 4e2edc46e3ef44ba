// Types of contract.js, for the TypeScript target (node-nestjs).
export { primesBelow } from './primes';
export { nextRequestId, responseTime } from './request-id';

export declare const JSON_TYPE: 'application/json; charset=utf-8';
export declare const COMMAND_LATENCY_MS: number;
export declare const MAX_WAIT_MS: number;
export declare const MAX_PRIMES_N: number;
export declare const MAX_INT4: number;
export declare const PING_BODY: string;
export declare const HEALTHZ_BODY: string;
export declare const NOT_FOUND_BODY: string;
export declare const DEVICES_BODY: string;

// A query parameter as frameworks on Node's querystring parse it.
export type QueryValue = string | string[] | undefined;

// A device command that commandError accepted.
export interface Command {
  action: string;
  value?: number;
  unit?: string;
}

export declare function parseUint(s: unknown): number;
export declare function firstValue(v: QueryValue): string | undefined;
export declare function commandError(body: unknown): string;
export declare function waitMs(raw: string | undefined): number | null;
