// Serializes responses: status line, the contract's headers, body.
#pragma once

#include <string>
#include <string_view>

struct ResponseMeta {
  bool keep_alive = true;
  bool http10 = false;  // HTTP/1.0 client: keep-alive must be announced
  bool head = false;    // HEAD: headers only
};

// Appends one complete response to out. extra_headers is preformatted "Name: value\r\n" lines.
void append_response(std::string& out, int status, std::string_view body, std::string_view extra_headers,
                     const ResponseMeta& meta);
