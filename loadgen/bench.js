// Gauntlet's one k6 script. Everything that varies between trials comes from the JSON
// plan at __ENV.PLAN (built and validated by internal/workload); the plan is data only:
// no JavaScript is ever generated from user input and nothing is evaluated.
import http from 'k6/http';
import exec from 'k6/execution';

if (!__ENV.PLAN) {
  throw new Error('PLAN: set it to the path of the JSON plan (k6 run -e PLAN=/path/plan.json)');
}
const plan = JSON.parse(open(__ENV.PLAN));
if (!Array.isArray(plan.requests) || plan.requests.length === 0 || !(plan.mixTotal > 0)) {
  throw new Error('plan.requests: the plan has no weighted requests');
}
if (plan.model !== 'open' && plan.model !== 'closed') {
  throw new Error(`plan.model: "${plan.model}" is not "open" or "closed"`);
}

const ms = (n) => `${n}ms`;

// Parallel runners share one plan; each pod sets GAUNTLET_RUNNER so series stay apart.
const tags = Object.assign({}, plan.tags);
if (__ENV.GAUNTLET_RUNNER) {
  tags.runner = __ENV.GAUNTLET_RUNNER;
}

// A duet (plan.arms, internal/workload.Duet): this one k6 loads every arm, each at the
// whole load point, the arms in turns: iteration i goes to arm i mod n, so the arrivals
// alternate A, B, A, B from one schedule at n times the rate. (A scenario per arm, offset by
// a share of the interval, kept no turns on one CPU: k6's timers fired the arms together.)
// Each request of an arm carries the arm's tags and arm=k.
const arms = Array.isArray(plan.arms) && plan.arms.length > 1 ? plan.arms : null;
const nArms = arms ? arms.length : 1;

// One executor definition, used twice: the warmup, then the measured window. Each k6
// scenario tags its samples (phase), so the measured window has series of its own.
function scenario(phase, startMs, durationMs) {
  const s = {
    startTime: ms(startMs),
    // Measured requests in flight at the end may finish (up to the timeout). The warmup
    // stops at once instead: its window then does not overlap the measured one, so k6
    // hands the warmup's VUs, with their open keep-alive connections, to the measured
    // window rather than starting a second, cold set (verified: 51 connections, not 100).
    gracefulStop: phase === 'warmup' ? '0s' : ms(plan.timeoutMs),
    // The plan's tags are repeated per scenario: a --tag on k6's command line (k6-operator
    // always adds some) replaces options.tags, but not a scenario's own tags.
    tags: Object.assign({}, tags, { phase }),
    // One exported function per phase: the phase is then known without reading
    // exec.scenario on every request (see send below).
    exec: phase,
  };
  if (plan.model === 'open') {
    return Object.assign(s, {
      executor: 'constant-arrival-rate',
      rate: plan.rate * nArms,
      timeUnit: '1s',
      duration: ms(durationMs),
      preAllocatedVUs: plan.preAllocatedVUs * nArms,
      maxVUs: plan.maxVUs * nArms,
    });
  }
  return Object.assign(s, { executor: 'constant-vus', vus: plan.vus * nArms, duration: ms(durationMs) });
}

const scenarios = {};
if (plan.warmupMs > 0) {
  scenarios.warmup = scenario('warmup', 0, plan.warmupMs);
}
scenarios.measure = scenario('measure', plan.warmupMs, plan.measureMs);

// Always-true thresholds on the measured submetrics: they make k6 keep these submetrics,
// so --summary-export carries exact figures of the measured window alone (per arm in a
// duet). dropped_iterations carries only the k6 scenario tag (not the scenario's own tags),
// so a duet's arms share its count.
const thresholds = { 'dropped_iterations{scenario:measure}': ['count>=0'] };
for (const tag of arms ? arms.map((_, k) => `,arm:${k}`) : ['']) {
  thresholds[`http_req_duration{phase:measure${tag}}`] = ['max>=0'];
  thresholds[`http_reqs{phase:measure${tag}}`] = ['count>=0'];
  thresholds[`http_req_failed{phase:measure${tag}}`] = ['rate>=0'];
}

export const options = {
  scenarios,
  tags,
  // false: k6 sets Go's DisableKeepAlives, a new connection per request.
  noConnectionReuse: !plan.keepAlive,
  // Bodies are read to the end (timings include them) but not kept.
  discardResponseBodies: true,
  // A redirect is answered, never followed (k6 follows 10 by default): a target must not
  // turn the benchmark's rate onto another host. The 3xx then fails the request's expected
  // status and counts as an error, like the verifier's refusal of redirects.
  maxRedirects: 0,
  // Only the system tags Gauntlet reads (internal/metrics, internal/k6): scenario (on
  // dropped_iterations, which carries no scenario tags) and expected_response (the failed
  // requests). Every tag costs k6 CPU on every sample; status, method, url and the rest
  // are read by nothing, and url would make one series per {id}.
  systemTags: ['scenario', 'expected_response'],
  summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(50)', 'p(90)', 'p(95)', 'p(99)', 'p(99.9)'],
  thresholds,
};

// Per-request parameters, built once per VU, per arm and per phase. No per-request tags
// but a duet arm's: nothing reads a per-endpoint series, and each tag costs CPU on every
// sample. The Gauntlet-Phase
// header marks each request's window on the wire, so a packet capture (internal/wire)
// counts exactly the requests k6 counts as measured.
function params(r, phase, arm) {
  const headers = { 'Gauntlet-Phase': phase };
  if (r.body) {
    headers['Content-Type'] = 'application/json';
  }
  const p = {
    headers,
    timeout: ms(plan.timeoutMs),
    // http_req_failed (and expected_response=false) then means "not the status the
    // contract expects": no check() is needed, and none is made (it would cost a sample
    // per request).
    responseCallback: http.expectedStatuses(r.expectStatus),
  };
  if (arms) {
    // A duet's request is its arm's sample: the arm's own tags (target, testid, ...), arm=k.
    p.tags = Object.assign({}, arms[arm].tags, { phase, arm: String(arm) });
    if (__ENV.GAUNTLET_RUNNER) {
      p.tags.runner = __ENV.GAUNTLET_RUNNER;
    }
  }
  return p;
}
const requests = plan.requests.map((r) => ({
  method: r.method,
  path: r.path,
  body: r.body ? r.body : null,
  cumWeight: r.cumWeight,
  idMin: r.idMin || 0,
  idSpan: r.idSpan || 0,
  idStride: r.idStride || 0,
  // Per arm (one for a plan of one target), then per phase.
  params: Array.from({ length: nArms }, (_, k) => ({ warmup: params(r, 'warmup', k), measure: params(r, 'measure', k) })),
}));

// Marks the start of the load on stderr: internal/k6 times its CPU samples from it.
export function setup() {
  console.log('gauntlet: load starts');
}

// A plan of one request with a fixed path (ping and the like) needs no iteration number
// (a duet's does: it picks the arm).
// Reading exec.scenario builds a fresh object of the scenario's state on every call: with
// it gone from this path, k6 spent 23-28% less CPU per request than with the script
// before the leaner one (16-core x86, 2k and 10k req/s: hack/bench-generator, README).
const single = requests.length === 1 && requests[0].idSpan === 0 && !arms ? requests[0] : null;
const singleURL = single ? plan.baseURL + single.path : '';
const baseURLs = arms ? arms.map((a) => a.baseURL) : [plan.baseURL];

// The same deterministic rules as internal/workload (Mix.Pick and IDRange.At). In a duet,
// iteration i is arm i mod n's (i / n)th, so every arm gets the same sequence of requests.
function send(phase) {
  if (single) {
    http.request(single.method, singleURL, single.body, single.params[0][phase]);
    return;
  }
  const n = exec.scenario.iterationInTest;
  const arm = n % nArms;
  const it = Math.floor(n / nArms);
  const pos = ((it % plan.mixTotal) * plan.mixStride) % plan.mixTotal;
  let i = 0;
  while (i < requests.length - 1 && pos >= requests[i].cumWeight) {
    i++;
  }
  const q = requests[i];
  let path = q.path;
  if (q.idSpan > 0) {
    const id = q.idMin + ((it % q.idSpan) * q.idStride) % q.idSpan;
    path = path.split('{id}').join(String(id));
  }
  http.request(q.method, baseURLs[arm] + path, q.body, q.params[arm][phase]);
}

export function warmup() {
  send('warmup');
}

export function measure() {
  send('measure');
}
