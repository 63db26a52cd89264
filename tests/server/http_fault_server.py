#!/usr/bin/env python3
"""A scripted HTTP(S) server for pgci's fetch tests (Python standard library only).

Binds 127.0.0.1 on an ephemeral port, prints the port on the first line of stdout,
and exits by itself after --lifetime seconds. Every request is appended to --log as
"<behaviour> <path>", so a test can count what pgci asked for (a warm cache makes
no request; a 404 is asked once).

The first path segment picks the behaviour; the rest (usually <tag>/src/<path>) is
echoed into generated bodies:

  ok                  200, a valid Python module of about --size bytes
  files               200 with the file under --root (404 when missing), after --delay ms
  redirect            302 to /ok/<rest>
  loop-CODE           CODE (301, 302) to the same path, forever
  shortlength         200 whose Content-Length stops 8 bytes short, inside a string
  status-NNN          status NNN with a small HTML body (404, 403, 410, 500 ...)
  fail-N-CODE         the first N requests of a path get CODE, then as ok
  retry-after-S       the first request of a path gets 429 with Retry-After: S
  html                200, an HTML page (the `curl` without -f trap)
  stall               200, Content-Length 1000, 20 bytes, then silence
  silent              reads the request and never answers (not even a status line)
  truncated           200, Content-Length 5000, 100 bytes, then the connection closes
  big                 200, --big bytes of valid Python with a Content-Length
  bigstream           the same without Content-Length (ends when the connection closes)
  gzip                200, gzip-encoded valid Python
  gzipbomb            200, gzip-encoded, 64 MiB once decoded
  binary              200, bytes with NULs
  badutf8             200, Python with an invalid UTF-8 byte
  syntax              200, text that is not valid Python
  empty               200 with an empty body
  nocontent           204 (no body)
  blank               200, only whitespace
  json                200, a JSON error object (valid Python, not a module)
"""
import argparse
import gzip
import os
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
COUNTS = {}


def python_body(rest, size):
    lines = [f"# generated for {rest}\n", "import os\n", "\n"]
    n = sum(len(x) for x in lines)
    i = 0
    while n < size:
        chunk = f"\ndef f_{i}(x, y=None):\n    return x + {i}\n"
        lines.append(chunk)
        n += len(chunk)
        i += 1
    return "".join(lines).encode()


BOMB = []


def gzip_bomb():
    """64 MiB of '#' once decoded, about 64 KiB on the wire (made once)."""
    with LOCK:
        if not BOMB:
            BOMB.append(gzip.compress(b"#" * (64 << 20), 6))
        return BOMB[0]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # headers and body go out in separate writes; with Nagle on, a kept-alive
    # connection waits for the client's delayed ACK (40 ms) between them
    disable_nagle_algorithm = True

    def log_message(self, fmt, *args):  # quiet: the request log is the record
        pass

    def send_body(self, code, body, ctype="text/plain; charset=utf-8", extra=()):
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in extra:
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        path = self.path.split("?", 1)[0]
        parts = path.lstrip("/").split("/", 1)
        what = parts[0]
        rest = parts[1] if len(parts) > 1 else ""
        with LOCK:
            COUNTS[path] = COUNTS.get(path, 0) + 1
            nth = COUNTS[path]
            with open(self.server.log_path, "a") as f:
                f.write(f"{what} {path}\n")
        size = self.server.size
        if what == "ok":
            self.send_body(200, python_body(rest, size))
        elif what == "files":
            time.sleep(self.server.delay / 1000)
            full = os.path.realpath(os.path.join(self.server.root or "/nonexistent", rest))
            root = os.path.realpath(self.server.root or "/nonexistent")
            if full.startswith(root + os.sep) and os.path.isfile(full):
                with open(full, "rb") as f:
                    self.send_body(200, f.read())
            else:
                self.send_body(404, b"<html><body>404</body></html>", "text/html")
        elif what == "redirect":
            self.send_body(302, b"", extra=[("Location", "/ok/" + rest)])
        elif what.startswith("loop-"):
            self.send_body(int(what[5:]), b"", extra=[("Location", path)])
        elif what == "shortlength":
            body = b'x = 1\ny = "a string that the length cuts"\n'
            self.send_response(200)
            self.send_header("Content-Length", str(len(body) - 8))
            self.end_headers()
            self.wfile.write(body)
            self.close_connection = True
        elif what.startswith("status-"):
            self.send_body(int(what[7:]), b"<html><body>nope</body></html>", "text/html")
        elif what.startswith("fail-"):
            _, n, code = what.split("-")
            if nth <= int(n):
                self.send_body(int(code), b"<html><body>try later</body></html>", "text/html")
            else:
                self.send_body(200, python_body(rest, size))
        elif what.startswith("retry-after-"):
            if nth == 1:
                self.send_body(429, b"slow down", extra=[("Retry-After", what[12:])])
            else:
                self.send_body(200, python_body(rest, size))
        elif what == "html":
            self.send_body(200, b"<!DOCTYPE html>\n<html><head><title>Sign in</title></head>"
                           b"<body>please log in</body></html>\n", "text/html")
        elif what == "stall":
            self.send_response(200)
            self.send_header("Content-Length", "1000")
            self.end_headers()
            self.wfile.write(b"# a body that stops\n")
            self.wfile.flush()
            time.sleep(self.server.lifetime)
        elif what == "silent":
            time.sleep(self.server.lifetime)
            self.close_connection = True
        elif what == "truncated":
            self.send_response(200)
            self.send_header("Content-Length", "5000")
            self.end_headers()
            self.wfile.write(python_body(rest, 100)[:100])
            self.wfile.flush()
            self.close_connection = True
        elif what in ("big", "bigstream"):
            body = python_body(rest, self.server.big)
            self.send_response(200)
            if what == "big":
                self.send_header("Content-Length", str(len(body)))
            else:
                self.send_header("Connection", "close")
                self.close_connection = True
            self.end_headers()
            for i in range(0, len(body), 65536):
                self.wfile.write(body[i:i + 65536])
        elif what == "gzip":
            self.send_body(200, gzip.compress(python_body(rest, size)),
                           extra=[("Content-Encoding", "gzip")])
        elif what == "gzipbomb":
            self.send_body(200, gzip_bomb(), extra=[("Content-Encoding", "gzip")])
        elif what == "binary":
            self.send_body(200, bytes(range(256)) * 8, "application/octet-stream")
        elif what == "badutf8":
            self.send_body(200, b"x = 1\ny = '\xff\xfe'\n")
        elif what == "syntax":
            self.send_body(200, b"def f(:\n    return\n")
        elif what == "empty":
            self.send_body(200, b"")
        elif what == "nocontent":
            self.send_body(204, b"")
        elif what == "blank":
            self.send_body(200, b"\n  \n\t\n")
        elif what == "json":
            self.send_body(200, b'{"error": "not found"}\n', "application/json")
        else:
            self.send_body(400, b"unknown behaviour")


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128  # parallel clients must not meet a full listen backlog


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--log", required=True, help="append one line per request here")
    ap.add_argument("--lifetime", type=float, default=60, help="exit after this many seconds")
    ap.add_argument("--size", type=int, default=2000, help="bytes of an 'ok' module")
    ap.add_argument("--big", type=int, default=2 << 20, help="bytes of a 'big' module")
    ap.add_argument("--root", help="directory served under /files/")
    ap.add_argument("--delay", type=float, default=0, help="ms to wait before answering /files/")
    ap.add_argument("--tls", nargs=2, metavar=("CERT", "KEY"), help="serve HTTPS")
    a = ap.parse_args()
    srv = Server(("127.0.0.1", 0), Handler)
    srv.log_path, srv.size, srv.big, srv.root = a.log, a.size, a.big, a.root
    srv.lifetime, srv.delay = a.lifetime, a.delay
    if a.tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(a.tls[0], a.tls[1])
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    print(srv.server_address[1], flush=True)
    t = threading.Thread(target=srv.serve_forever, daemon=True)
    t.start()
    time.sleep(a.lifetime)
    srv.shutdown()
    srv.server_close()


if __name__ == "__main__":
    sys.exit(main())
