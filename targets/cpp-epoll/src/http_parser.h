// Incremental HTTP/1.x request parser: one request at a time from the front of a buffer.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

constexpr size_t kMaxHeaderBytes = 16 * 1024;  // request line + headers
constexpr size_t kMaxBodyBytes = 64 * 1024;    // Content-Length bodies only

struct Request {
  std::string method;
  std::string path;   // before '?', not percent-decoded (every route is plain ASCII)
  std::string query;  // after '?', without it
  std::string body;
  int minor_version = 1;  // HTTP/1.minor
  bool keep_alive = true;
};

enum class ParseStatus { kComplete, kIncomplete, kError };

struct ParseResult {
  ParseStatus status;
  size_t consumed = 0;         // bytes of the buffer the request used (kComplete)
  int error_status = 0;        // HTTP status to answer (kError)
  const char* reason = "";     // short text for {"error": ...} (kError)
};

// Parses the first request in buf. Only Content-Length bodies are accepted: a
// Transfer-Encoding answers 501, so the connection is closed rather than misread.
ParseResult parse_request(std::string_view buf, Request& out);
