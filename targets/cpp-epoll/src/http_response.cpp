#include "http_response.h"

#include <charconv>
#include <ctime>

namespace {

const char* reason_phrase(int status) {
  switch (status) {
    case 200: return "OK";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 413: return "Content Too Large";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Unknown";
  }
}

// The Date header changes once a second: formatted once per second, not per response.
std::string_view http_date() {
  static time_t cached_second = 0;
  static char cached[40];
  static size_t cached_len = 0;
  timespec ts;
  clock_gettime(CLOCK_REALTIME_COARSE, &ts);
  if (ts.tv_sec != cached_second) {
    tm t;
    gmtime_r(&ts.tv_sec, &t);
    cached_len = strftime(cached, sizeof cached, "%a, %d %b %Y %H:%M:%S GMT", &t);
    cached_second = ts.tv_sec;
  }
  return std::string_view(cached, cached_len);
}

}  // namespace

void append_response(std::string& out, int status, std::string_view body, std::string_view extra_headers,
                     const ResponseMeta& meta) {
  char num[24];
  out += "HTTP/1.1 ";
  out.append(num, std::to_chars(num, num + sizeof num, status).ptr);
  out += ' ';
  out += reason_phrase(status);
  out += "\r\nServer: cpp-epoll\r\nDate: ";
  out += http_date();
  out += "\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ";
  out.append(num, std::to_chars(num, num + sizeof num, body.size()).ptr);
  out += "\r\n";
  if (!meta.keep_alive) {
    out += "Connection: close\r\n";
  } else if (meta.http10) {
    out += "Connection: keep-alive\r\n";
  }
  out += extra_headers;
  out += "\r\n";
  if (!meta.head) out += body;
}
