// Framework-free pieces of targets/CONTRACT.md: fixed bodies, input rules, the primes
// algorithm and request IDs. The same rules in every node-* target keep them comparable.
import { randomBytes } from 'node:crypto';

export const SERVER_NAME = 'node-nestjs'; // the Server header: which target answered
export const FRAMEWORK = 'NestJS'; // /health's framework field
export const JSON_TYPE = 'application/json; charset=utf-8';
export const COMMAND_LATENCY_MS = 2; // seed 000's simulated hardware latency
export const MAX_WAIT_MS = 500; // the long poll's cap
export const MAX_PRIMES_N = 10000000;
export const MAX_INT4 = 2147483647; // documents.id is an integer column: larger ids have no row

// Fixed bodies are serialized once, as seed 001's Node service does.
export const PING_BODY = '{"ok":true,"message":"OK"}';
export const HEALTHZ_BODY = '{"status":"ok"}';
export const NOT_FOUND_BODY = '{"error":"not found"}';
export const DEVICES_BODY =
  '[{"id":1,"type":"lightbulb","on":true},{"id":2,"type":"thermostat","on":true},' +
  '{"id":3,"type":"lock","on":false},{"id":4,"type":"camera","on":true},' +
  '{"id":5,"type":"sensor","on":true}]';

export type QueryValue = string | string[] | undefined;

// parseUint accepts decimal digits only ("+5", "1e3", " 7" and "" are not integers);
// it returns NaN for those and Infinity past the safe integer range.
export function parseUint(s: unknown): number {
  if (typeof s !== 'string' || !/^[0-9]+$/.test(s)) return NaN;
  const n = Number(s);
  return Number.isSafeInteger(n) ? n : Infinity;
}

// A query parameter given twice counts by its first value, as in the Go target.
export function firstValue(v: QueryValue): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

export interface Command {
  action: string;
  value?: number;
  unit?: string;
}

// commandError returns why a parsed command body is rejected, or '' when it is valid.
export function commandError(body: unknown): string {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return 'body must be a JSON object (Content-Type: application/json)';
  }
  const cmd = body as Record<string, unknown>;
  if (typeof cmd.action !== 'string' || cmd.action === '') return 'action must be a non-empty string';
  if (cmd.value !== undefined && typeof cmd.value !== 'number') return 'value must be a number';
  if (cmd.unit !== undefined && typeof cmd.unit !== 'string') return 'unit must be a string';
  return '';
}

// waitMs reads the long poll's wait: absent is 0, too large is capped, anything else is null.
export function waitMs(raw: string | undefined): number | null {
  if (raw === undefined) return 0;
  const n = parseUint(raw);
  return Number.isNaN(n) ? null : Math.min(n, MAX_WAIT_MS);
}

// Seed 003's algorithm: trial division by 2 and the odd numbers up to sqrt(k), no sieve.
export function primesBelow(n: number): number[] {
  const primes: number[] = [];
  for (let k = 2; k < n; k++) {
    if (isPrime(k)) primes.push(k);
  }
  return primes;
}

function isPrime(k: number): boolean {
  if (k < 4) return k >= 2;
  if (k % 2 === 0) return false;
  for (let d = 3; d * d <= k; d += 2) {
    if (k % d === 0) return false;
  }
  return true;
}

// Request IDs: a random prefix per process plus a counter, unique across workers and
// restarts without a random read per request.
const idPrefix = `req-${randomBytes(8).toString('hex')}-`;
let idCounter = 0;
export function nextRequestId(): string {
  idCounter += 1;
  return idPrefix + idCounter;
}
