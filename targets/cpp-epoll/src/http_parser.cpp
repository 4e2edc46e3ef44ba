#include "http_parser.h"

#include <cstdint>

namespace {

bool is_tchar(char c) {  // RFC 9110 token characters
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  switch (c) {
    case '!': case '#': case '$': case '%': case '&': case '\'': case '*': case '+':
    case '-': case '.': case '^': case '_': case '`': case '|': case '~':
      return true;
    default:
      return false;
  }
}

bool is_token(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!is_tchar(c)) return false;
  return true;
}

char lower(char c) { return (c >= 'A' && c <= 'Z') ? char(c + 32) : c; }

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); i++)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

ParseResult error(int status, const char* reason) {
  ParseResult r{ParseStatus::kError};
  r.error_status = status;
  r.reason = reason;
  return r;
}

// Reads the Connection header's comma-separated options.
void connection_options(std::string_view v, bool& close, bool& keep_alive) {
  while (!v.empty()) {
    size_t comma = v.find(',');
    std::string_view opt = trim(v.substr(0, comma));
    if (iequals(opt, "close")) close = true;
    if (iequals(opt, "keep-alive")) keep_alive = true;
    if (comma == std::string_view::npos) break;
    v.remove_prefix(comma + 1);
  }
}

}  // namespace

ParseResult parse_request(std::string_view buf, Request& out) {
  size_t pos = 0;
  // RFC 9112 2.2: ignore empty lines before the request line (left over from a previous body).
  while (pos < buf.size() && (buf[pos] == '\r' || buf[pos] == '\n')) pos++;

  // Lines end in CRLF; a bare LF is accepted too (RFC 9112 2.2 allows it).
  auto next_line = [&](std::string_view& line) -> bool {
    size_t nl = buf.find('\n', pos);
    if (nl == std::string_view::npos) return false;
    line = buf.substr(pos, nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos = nl + 1;
    return true;
  };
  auto incomplete = [&]() {
    if (buf.size() > kMaxHeaderBytes) return error(431, "request header too large");
    return ParseResult{ParseStatus::kIncomplete};
  };

  std::string_view line;
  if (!next_line(line)) return incomplete();
  size_t sp1 = line.find(' ');
  size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos)
    return error(400, "malformed request line");
  std::string_view method = line.substr(0, sp1);
  std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  std::string_view version = line.substr(sp2 + 1);
  if (!is_token(method)) return error(400, "malformed method");
  if (target.empty() || target[0] != '/') return error(400, "request target must be an absolute path");
  for (char c : target)
    if (uint8_t(c) <= 0x20 || uint8_t(c) >= 0x7f) return error(400, "invalid character in request target");
  if (version.size() != 8 || version.substr(0, 5) != "HTTP/" || version[6] != '.' ||
      version[5] < '0' || version[5] > '9' || version[7] < '0' || version[7] > '9')
    return error(400, "malformed HTTP version");
  if (version[5] != '1') return error(505, "only HTTP/1.x is supported");
  int minor = version[7] - '0';

  bool saw_length = false, saw_te = false, opt_close = false, opt_keep_alive = false;
  int hosts = 0;
  uint64_t length = 0;
  for (;;) {
    if (!next_line(line)) return incomplete();
    if (pos > kMaxHeaderBytes) return error(431, "request header too large");
    if (line.empty()) break;
    if (line[0] == ' ' || line[0] == '\t') return error(400, "obsolete header line folding");
    size_t colon = line.find(':');
    if (colon == std::string_view::npos || !is_token(line.substr(0, colon)))
      return error(400, "malformed header field");
    std::string_view name = line.substr(0, colon);
    std::string_view value = trim(line.substr(colon + 1));
    for (char c : value)
      if ((uint8_t(c) < 0x20 && c != '\t') || c == 0x7f) return error(400, "invalid character in header value");
    if (iequals(name, "content-length")) {
      if (value.empty() || value.size() > 18) return error(400, "invalid Content-Length");
      uint64_t n = 0;
      for (char c : value) {
        if (c < '0' || c > '9') return error(400, "invalid Content-Length");
        n = n * 10 + uint64_t(c - '0');
      }
      if (saw_length && n != length) return error(400, "conflicting Content-Length headers");
      saw_length = true;
      length = n;
    } else if (iequals(name, "transfer-encoding")) {
      saw_te = true;
    } else if (iequals(name, "connection")) {
      connection_options(value, opt_close, opt_keep_alive);
    } else if (iequals(name, "host")) {
      hosts++;
    }
  }
  // RFC 9112 6.1 / 3.2: ambiguous framing and a missing or repeated Host are rejected.
  if (saw_te && saw_length) return error(400, "both Transfer-Encoding and Content-Length");
  if (saw_te) return error(501, "Transfer-Encoding request bodies are not supported");
  if (minor >= 1 && hosts != 1) return error(400, "exactly one Host header is required");
  if (length > kMaxBodyBytes) return error(413, "request body larger than 64 KiB");
  if (buf.size() - pos < length) return ParseResult{ParseStatus::kIncomplete};

  size_t q = target.find('?');
  out.method.assign(method);
  out.path.assign(target.substr(0, q));
  out.query.assign(q == std::string_view::npos ? std::string_view() : target.substr(q + 1));
  out.body.assign(buf.substr(pos, length));
  out.minor_version = minor;
  out.keep_alive = minor >= 1 ? !opt_close : (opt_keep_alive && !opt_close);
  ParseResult r{ParseStatus::kComplete};
  r.consumed = pos + length;
  return r;
}
