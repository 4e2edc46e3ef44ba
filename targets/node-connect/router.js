'use strict';
// Connect has no router: this one knows exactly what the contract needs, fixed paths looked
// up in a Map and `:name` segments matched by a regular expression, per method.

class Router {
  constructor() {
    this.exact = new Map(); // "GET /api/ping" -> handlers
    this.patterns = []; // { method, regex, names, handlers }
  }

  get(path, ...handlers) { this.add('GET', path, handlers); }

  post(path, ...handlers) { this.add('POST', path, handlers); }

  add(method, path, handlers) {
    if (!path.includes(':')) {
      this.exact.set(`${method} ${path}`, handlers);
      return;
    }
    const names = [];
    const source = path.replace(/:([A-Za-z]+)/g, (_, name) => {
      names.push(name);
      return '([^/]+)';
    });
    this.patterns.push({ method, regex: new RegExp(`^${source}$`), names, handlers });
  }

  // middleware is the Connect middleware: it sets req.path, req.query (a URLSearchParams)
  // and req.params, then runs the route's handlers; unmatched requests go on to next.
  middleware() {
    return (req, res, next) => {
      const q = req.url.indexOf('?');
      const path = q === -1 ? req.url : req.url.slice(0, q);
      req.query = new URLSearchParams(q === -1 ? '' : req.url.slice(q + 1));
      req.params = {};
      // HEAD is answered like GET, as Node's http server drops the body itself.
      const method = req.method === 'HEAD' ? 'GET' : req.method;
      let handlers = this.exact.get(`${method} ${path}`);
      if (handlers === undefined) {
        for (const p of this.patterns) {
          const m = p.method === method && p.regex.exec(path);
          if (!m) continue;
          p.names.forEach((name, i) => { req.params[name] = m[i + 1]; });
          handlers = p.handlers;
          break;
        }
      }
      if (handlers === undefined) return next();
      return runChain(handlers, 0, req, res, next);
    };
  }
}

// runChain calls handlers in order, each with a next that calls the following one; an error
// (passed to next, thrown, or a rejected promise) goes to Connect's error handlers.
function runChain(handlers, i, req, res, next) {
  const step = (err) => {
    if (err) return next(err);
    if (i + 1 < handlers.length) return runChain(handlers, i + 1, req, res, next);
    return next();
  };
  try {
    const result = handlers[i](req, res, step);
    if (result && typeof result.catch === 'function') result.catch(next);
  } catch (err) {
    next(err);
  }
}

module.exports = { Router };
